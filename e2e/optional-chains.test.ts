/**
 * The chains the build carries beyond the spec's seven (Base, Litecoin) are off by default and
 * turned on by config `chains.enabled`: then their coins are in the API's coin enum and can be
 * invoiced over the REST API (testnet project with operator keys) and in the sandbox (generated
 * keys), priced from their definitions' price assets. A config naming a chain the build does not
 * have stops start-up naming the key.
 */
import test from 'ava';
import { chains, plugins } from '@gw/app-gateway';
import { createKernel, loadConfig } from '@gw/kernel';
import { signedFetch, startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { CLI_ACTOR, newId, sql, sqlQuery } from '@gw/kernel';
import { FIXED_RATES, projectWithPools, type TestProject } from '@gw/testing';
import { sandboxClient, startSandboxKernel } from '@gw/plugin-sandbox/testing';

const ENABLED = ['btc', 'eth', 'tron', 'ada', 'polygon', 'bsc', 'ton', 'base', 'ltc'];
/** The enabled chains in composition order (the order of `chains.enabled` does not matter). */
const IN_ORDER = ['btc', 'eth', 'tron', 'ada', 'polygon', 'bsc', 'ton', 'ltc', 'base'];
const USDC_BASE_SEPOLIA = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';

let gw: TestKernel;
let project: TestProject;
test.before(async () => {
  gw = await startSandboxKernel({ 'chains.enabled': ENABLED, 'plugins.rates.fixed': { ...FIXED_RATES, LTC: '80' } });
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('optional-chains', CLI_ACTOR)).id;
  project = await projectWithPools(gw, operatorId, ['base', 'ltc'], 'testnet');
});
test.after.always(async () => {
  await gw?.close();
});

const post = (body: unknown) => signedFetch(gw.url, '/api/v1/invoices', { ...project, method: 'POST', body });

test('enabled, Base and Litecoin coins are in the API enum and the registry', async (t) => {
  const { chains: registry } = gw.kernel.cradle;
  t.deepEqual(registry.chainIds(), IN_ORDER);
  t.is(registry.coinIds().length, 18);
  const document = (await (await fetch(`${gw.url}/api/v1/openapi.json`)).json()) as any;
  const schema = document.paths['/api/v1/invoices'].post.requestBody.content['application/json'].schema;
  const coins = (schema.properties?.coin ?? document.components.schemas[schema.$ref.split('/').at(-1)].properties.coin).enum as string[];
  t.deepEqual(coins.slice(-3), ['ltc', 'eth_base', 'usdc_base']);
});

test('a testnet project invoices LTC, ETH on Base and USDC on Base over REST', async (t) => {
  const ltc = await post({ external_id: `ltc-${Date.now()}`, amount_usd: 40, coin: 'ltc' });
  t.is(ltc.status, 201, JSON.stringify(ltc.body));
  t.like(ltc.body, { coin: 'ltc', amount_crypto: '0.5', amount_crypto_units: '50000000', rate_snapshot: { pair: 'LTC/USD', rate: '80', source: 'fixed' } });
  t.regex(ltc.body.address, /^tltc1q[02-9ac-hj-np-z]{38}$/);
  t.is(ltc.body.payment_uri, `litecoin:${ltc.body.address}?amount=0.5`);
  t.regex(ltc.body.derivation_path, /^m\/84'\/1'\/0'\/0\/\d+$/);
  t.is(ltc.body.confirmation_threshold, 6);

  const usdc = await post({ external_id: `usdc-${Date.now()}`, amount_crypto: '12.5', coin: 'usdc_base' });
  t.is(usdc.status, 201, JSON.stringify(usdc.body));
  t.is(usdc.body.amount_crypto_units, '12500000');
  t.is(usdc.body.payment_uri, `ethereum:${USDC_BASE_SEPOLIA}@84532/transfer?address=${usdc.body.address}&uint256=12500000`);

  const eth = await post({ external_id: `eth-${Date.now()}`, amount_usd: 3200.5, coin: 'eth_base' });
  t.is(eth.status, 201, JSON.stringify(eth.body));
  t.like(eth.body, { amount_crypto: '1', rate_snapshot: { pair: 'ETH/USD', rate: FIXED_RATES.ETH } });
  t.true(eth.body.payment_uri.startsWith(`ethereum:${eth.body.address}@84532?value=`));
});

test('a sandbox project gets generated Base and Litecoin keys and invoices their coins', async (t) => {
  const c = await sandboxClient(gw);
  t.deepEqual(
    c.sandbox.wallets.map((w) => w.chain),
    IN_ORDER,
  );
  t.regex(c.sandbox.wallets.find((w) => w.chain === 'ltc')!.xpub, /^ttub/);
  for (const coin of ['ltc', 'eth_base', 'usdc_base']) {
    const created = await c.call('POST', '/invoices', { external_id: `sb-${coin}`, coin, amount_crypto: '1' });
    t.is(created.status, 201, `${coin}: ${JSON.stringify(created.body)}`);
    const detected = await c.call('POST', `/invoices/${created.body.id}/simulate-detect`);
    t.is(detected.body.status, 'detected', coin);
  }
});

test('a chain disabled later keeps what was stored readable (invoices, their export, orphans); its wallets leave the list and its checkout pages are gone', async (t) => {
  const ltc = await post({ external_id: `later-${Date.now()}`, amount_usd: 40, coin: 'ltc' });
  t.is(ltc.status, 201, JSON.stringify(ltc.body));
  // The same database under the default chains (Litecoin and Base off), with every plugin of the build (the watchers' tables too).
  const later = await startTestKernel({
    plugins,
    chains,
    role: 'gateway',
    database: gw.database,
    config: { 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': FIXED_RATES },
  });
  t.teardown(() => later.close());
  // A stray LTC receipt as the watcher stores one: an orphan of the project.
  const pool = await gw.kernel.cradle
    .db('address_pool_addresses')
    .where({ project_id: project.projectId, chain: 'ltc', state: 'available' })
    .first('id', 'address');
  const txHash = 'ab'.repeat(32);
  await sqlQuery(
    gw.kernel.cradle.db,
    sql`insert into watchers_transfers (id, chain, network, coin, tx_hash, output_index, to_address, amount_units, block_height, status, project_id, pool_address_id, match, received_at)
        values (${newId()}, 'ltc', 'testnet', 'ltc', ${txHash}, 0, ${pool.address}, 12345678, 100, 'in_block', ${project.projectId}, ${pool.id}, 'orphan', now())`,
  );

  const read = await signedFetch(later.url, `/api/v1/invoices/${ltc.body.id}`, project);
  t.is(read.status, 200, JSON.stringify(read.body));
  t.like(read.body, { coin: 'ltc', amount_crypto: '0.5' });
  const exported = [];
  for await (const row of later.kernel.cradle.invoicesExporter.invoices({
    projectId: project.projectId,
    from: new Date(Date.now() - 3_600_000),
    to: new Date(Date.now() + 60_000),
  }))
    exported.push(row);
  t.true(exported.some((row) => row.invoice_id === ltc.body.id && row.coin === 'ltc'));
  const orphans = await signedFetch(later.url, `/api/v1/orphan-payments?tx_hash=${txHash}`, project);
  t.is(orphans.status, 200, JSON.stringify(orphans.body));
  t.like(orphans.body.items[0], { tx_hash: txHash, coin: 'ltc', amount: '0.12345678' });
  const wallets = await signedFetch(later.url, '/api/v1/wallets', project);
  t.is(wallets.status, 200, JSON.stringify(wallets.body));
  t.false(JSON.stringify(wallets.body).includes('"ltc"'), 'the disabled chain has no wallet in the list');
  const page = await fetch(`${later.url}/checkout/${String(ltc.body.checkout_url).split('/').at(-1)}`);
  t.is(page.status, 404, 'nobody watches the chain: nothing to pay on its page');
});

test('a config enabling a chain the build does not have stops start-up naming the key', (t) => {
  const config = loadConfig({ env: {}, file: false, overrides: { 'chains.enabled': ['btc', 'doge'], 'security.masterKey': '0f'.repeat(32) } });
  t.throws(() => createKernel({ config, plugins, chains, role: 'gateway' }), {
    message: `chains.enabled: unknown chain "doge"; this build has ${chains.map((chain) => chain.definition.id).join(', ')}`,
  });
});
