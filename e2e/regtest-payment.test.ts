/**
 * The shipped gateway takes a payment on a local regtest node with configuration only (issue 33
 * item 3b): the app's own processes (`apps/all`, the operator CLI), a config file that is
 * docs/watchers.md's "A local regtest node" example pointed at a real litecoind `-regtest` node
 * (packages/testing/src/litecoind.ts), secrets in the environment; no chain composed in code.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { toBaseUnits } from '@gw/kernel';
import { createTestDatabase, waitFor } from '@gw/kernel/testing';
import {
  createInvoiceOncePoolFills,
  Litecoind,
  litecoindInstalled,
  ltcTestnetWallet,
  Receiver,
  ROOT,
  runCliProcess,
  startApp,
  waitForPaidInvoice,
  waitForUrl,
} from '@gw/testing';

if (!litecoindInstalled()) throw new Error('litecoind is not installed: apt-get install -y litecoind (.ci/run installs it)');

/** docs/watchers.md's regtest example: the `<!-- config -->` block that sets `chains.testNetworks`. */
function regtestDocConfig(): Record<string, any> {
  const text = readFileSync(join(ROOT, 'docs/watchers.md'), 'utf8');
  const blocks = [...text.matchAll(/<!-- config -->\n```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1]!) as Record<string, any>);
  const found = blocks.find((b) => b['chains']?.testNetworks);
  if (!found) throw new Error('docs/watchers.md has no config example with chains.testNetworks');
  return found;
}

// The same mnemonic's receive index 0 on Litecoin regtest: the testnet address's witness program under `rltc`.
const REGTEST_ADDRESS_0 = 'rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg';

test('a testnet project of the shipped gateway, configured for ltc regtest, is paid by a litecoind -regtest node', async (t) => {
  const node = await Litecoind.start();
  t.teardown(() => node.stop());
  // Coinbase outputs mature after 100 blocks.
  await node.mine(101);
  const database = await createTestDatabase();
  t.teardown(() => database.drop());
  const receiver = await Receiver.start();
  t.teardown(() => receiver.close());
  const received = () => receiver.requests.map((r) => ({ type: String(r.headers['x-service-event-type']), body: JSON.parse(r.body) }));

  const config = regtestDocConfig();
  t.deepEqual(config['chains'].testNetworks, { ltc: 'regtest' });
  const regtest = config['plugins'].watchers.chains.ltc.regtest;
  Object.assign(regtest.providers[0], { url: node.url, username: node.username, password: node.password });
  regtest.startHeight = (await node.height()) + 1;
  config['plugins'].watchers.scanIntervalSeconds = 1;
  // The test's webhook receiver is on loopback; a fixed LTC rate keeps the test off the network.
  config['plugins'].webhooks = { allowPrivateTargets: true };
  config['plugins'].rates = { providers: ['fixed'], fixed: { LTC: '80' } };
  const dir = mkdtempSync(join(tmpdir(), 'gw-regtest-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'gateway.config.json'), JSON.stringify(config));
  const env = { DATABASE_URL: database.url, GW_CONFIG: join(dir, 'gateway.config.json'), GW_MASTER_KEY: '2e'.repeat(32), LOG_LEVEL: 'info' };

  // An offline command reads the same config (it answered "Unknown or disabled chain" before).
  const preview = await runCliProcess(
    { ...env, LOG_LEVEL: 'warn' },
    'wallet',
    'preview',
    '--chain',
    'ltc',
    '--xpub',
    ltcTestnetWallet.xpub,
    '--network',
    'testnet',
    '--count',
    '1',
    '--json',
  );
  t.is(preview.code, 0, preview.output);
  t.is(preview.json.addresses[0].address, REGTEST_ADDRESS_0);

  const app = startApp('all', { ...env, PORT: '0' });
  t.teardown(() => {
    if (app.child.exitCode === null) app.child.kill('SIGKILL');
  });
  const url = await waitForUrl(app);
  t.regex(app.output(), /testnet and sandbox projects of ltc use Litecoin regtest \(chains\.testNetworks\.ltc\)/);

  const cli = (...args: string[]) => runCliProcess({ ...env, LOG_LEVEL: 'warn' }, ...args);
  const created = await cli('project', 'create', '--kind', 'testnet', '--name', 'regtest-shop', '--json');
  t.is(created.code, 0, created.output);
  const projectId: string = created.json.project.id;
  const secret: string = created.json.credentials.api_secret;
  const registered = await cli('wallet', 'register', '--project', projectId, '--chain', 'ltc', '--xpub', ltcTestnetWallet.xpub, '--json');
  t.is(registered.code, 0, registered.output);
  t.is(registered.json.challenge.sign_with_address, REGTEST_ADDRESS_0);
  const signature = await ltcTestnetWallet.sign(registered.json.challenge.message);
  const verified = await cli('wallet', 'verify', '--project', projectId, '--chain', 'ltc', '--signature', signature, '--json');
  t.is(verified.code, 0, verified.output);
  const hooks = `${receiver.url}/hooks`;
  t.is((await cli('webhook', 'set', '--project', projectId, '--url', hooks, '--json')).code, 0);

  // The pool fills just after verification; until then creation is refused.
  const invoice = await createInvoiceOncePoolFills(url, { projectId, secret }, { external_id: 'regtest-1', coin: 'ltc', amount_crypto: '0.5' }, 30_000);
  t.regex(invoice.address, /^rltc1q/);
  t.is(invoice.payment_uri, `litecoin:${invoice.address}?amount=0.5`);

  // Paid from the node's wallet, then mined to the threshold.
  const txid = await node.send(invoice.address, toBaseUnits(invoice.amount_crypto, 8));
  await node.mine(invoice.confirmation_threshold);
  const paid = await waitForPaidInvoice(url, { projectId, secret }, invoice.id, 60_000);
  t.like(paid.transactions[0], { tx_hash: txid, amount_units: '50000000', status: 'confirmed' });
  await waitFor(
    async () => received().some((r) => r.type === 'invoice.paid' && r.body.data.invoice_id === invoice.id),
    30_000,
    'invoice.paid at the webhook URL',
  );
  t.is(received().find((r) => r.type === 'invoice.paid')!.body.mode, 'testnet');

  app.child.kill('SIGTERM');
  t.is(await app.exited, 0, app.output());
});

test('a test network the chain does not have stops the app at start-up, naming the key', async (t) => {
  // Refused while the chains are built, before any database connection.
  const app = startApp('all', {
    DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none',
    GW_MASTER_KEY: '2e'.repeat(32),
    PORT: '0',
    GW__chains__testNetworks: '{"btc":"regtset"}',
  });
  t.is(await app.exited, 1);
  t.regex(app.output(), /chains\.testNetworks\.btc: "regtset" is not a network of this chain; Bitcoin's test networks are signet, testnet, regtest/);
});
