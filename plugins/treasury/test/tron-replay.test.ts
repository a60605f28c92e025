/**
 * TRON account plans through the treasury plugin (issue 36), on real PostgreSQL. No TRON node runs
 * here: the gateway's providers are a local HTTP server that REPLAYS RECORDED REAL java-tron
 * (TronGrid, Nile) answers, chains/tron/test/fixtures/treasury (see its README for where each comes
 * from and the few that were built). Accounts the recordings do not hold (the derived pool
 * addresses, the operator's funding and staking accounts) are served as the recorded `getaccount`
 * answer with `address` replaced and the fields named changed; an account not on chain is `{}`.
 * Broadcasts answer the recorded SUCCESS; `gettransactioninfobyid` answers the recorded receipt
 * with its `id` set to the transaction asked about, once that transaction was broadcast.
 * Plan files are signed by the real `gateway-signer` (packages/signer) run as a process.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { CLI_ACTOR, defineChain } from '@gw/kernel';
import { signedFetch, startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { tronAddressFromHex, tronChain } from '@gw/chain-tron';
import {
  fixture,
  FUNDING as TEST_FUNDING,
  NILE_TOKEN,
  nileDefinition,
  RECORDED_ACCOUNT,
  STAKING as TEST_STAKING,
  watcherFixture,
} from '@gw/chain-tron/testing';
import { cliRunner, FAST_RETRIES, FIXED_RATES, Receiver, stopAll, tronWallet, type ReceivedRequest, type Reply } from '@gw/testing';
import { watchersPlugin } from '@gw/plugin-watchers';
import { WEBHOOK_PLUGINS } from '@gw/plugin-webhooks/testing';
import { decodeBase58, toBeHex } from 'ethers';
import { treasuryPlugin } from '../src/index.js';
import { signOffline, treasuryApi } from './treasury-helpers.js';

/** The node's 21-byte hex (`41…`) of a T-address. */
const hexOf = (address: string): string => toBeHex(decodeBase58(address), 25).slice(2, 44);
const HEX41 = /^41[0-9a-f]{40}$/i;

const DESTINATION = RECORDED_ACCOUNT;
const definition = nileDefinition;

// The operator's accounts: account 1 of the test mnemonic (the pool key is account 0), as the configuration names them.
const FUNDING = { address: TEST_FUNDING.address, path: TEST_FUNDING.path };
const STAKING = { address: TEST_STAKING.address, path: TEST_STAKING.path };

/**
 * The recorded mainnet block 30864600 and its transaction info (one USDT `transfer`, SUCCESS, its
 * `Transfer` log), replayed as a Nile block holding one such transfer per payment: each a copy of
 * the recorded transaction with the token contract set to the Nile test USDT, the recipient and
 * amount (call data and log) set to the payment's, and the txID's last byte set to its index.
 */
function usdtBlock(payments: readonly (readonly [string, bigint])[]): { block: string; infos: string } {
  const block = watcherFixture('getblockbynum-30864600.json');
  const [info] = watcherFixture('gettransactioninfobyblocknum-30864600.json');
  const [tx] = block.transactions;
  const token = hexOf(NILE_TOKEN);
  const transactions: unknown[] = [];
  const infos: unknown[] = [];
  for (const [i, [to, units]] of payments.entries()) {
    const txID = `${tx.txID.slice(0, 62)}${toBeHex(i, 1).slice(2)}`;
    const word = (hex: string) => hex.padStart(64, '0');
    const copy = JSON.parse(JSON.stringify(tx));
    const value = copy.raw_data.contract[0].parameter.value;
    value.contract_address = token;
    value.data = `a9059cbb${word(hexOf(to).slice(2))}${word(units.toString(16))}`;
    copy.txID = txID;
    transactions.push(copy);
    const infoCopy = JSON.parse(JSON.stringify(info));
    infoCopy.id = txID;
    infoCopy.contract_address = token;
    infoCopy.log[0].address = token.slice(2);
    infoCopy.log[0].topics[2] = word(hexOf(to).slice(2));
    infoCopy.log[0].data = word(units.toString(16));
    infos.push(infoCopy);
  }
  return { block: JSON.stringify({ ...block, transactions }), infos: JSON.stringify(infos) };
}

/** While set, the block the replayed node serves as its head (a scan pass); otherwise the recorded Nile head. */
let scannedBlock: { block: string; infos: string } | undefined;

/** What the replayed chain holds: accounts on chain (T-address → TRX sun), USDT per holder, transactions broadcast. */
const chainState = {
  accounts: new Map<string, bigint>(),
  usdt: new Map<string, bigint>(),
  broadcast: new Set<string>(),
};

/** The recorded `getaccount` answer as the account at `hex`, its `balance` changed to `sun` (and the staking account's `frozenV2` given 5,000 TRX staked for energy). */
function accountAnswer(hex: string, sun: bigint): string {
  const answer = JSON.parse(fixture('getaccount-nile.json'));
  answer.address = hex;
  answer.balance = Number(sun);
  if (hex === hexOf(STAKING.address)) answer.frozenV2 = [{}, { type: 'ENERGY', amount: 5_000_000_000 }, { type: 'TRON_POWER' }];
  return JSON.stringify(answer);
}

const base58Of = (asked: string): string => (HEX41.test(asked) ? tronAddressFromHex(`0x${asked.slice(2)}`) : asked);

/** The txid of a signed protobuf Transaction in hex: sha256 of its raw data (field 1). */
function txidOfSignedHex(hex: string): string {
  const bytes = Buffer.from(hex, 'hex');
  let at = 1;
  let length = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = bytes[at++]!;
    length |= (byte & 0x7f) << shift;
    if (byte < 0x80) break;
  }
  return createHash('sha256')
    .update(bytes.subarray(at, at + length))
    .digest('hex');
}

function answer(request: ReceivedRequest): Reply {
  const path = request.path.split('?')[0]!;
  const body = JSON.parse(request.body || '{}');
  const ok = (text: string): Reply => ({ status: 200, body: text });
  switch (path) {
    case '/wallet/getnowblock':
    case '/walletsolidity/getnowblock':
      return ok(scannedBlock?.block ?? fixture('getnowblock-nile-66987627.json'));
    case '/wallet/getblockbynum':
      return scannedBlock ? ok(scannedBlock.block) : { status: 404, body: '{"Error":"unrecorded"}' };
    case '/wallet/gettransactioninfobyblocknum':
      return scannedBlock ? ok(scannedBlock.infos) : { status: 404, body: '{"Error":"unrecorded"}' };
    case '/wallet/getchainparameters':
      return ok(fixture('getchainparameters-nile.json'));
    case '/wallet/getaccount': {
      const address = base58Of(body.address);
      const sun = chainState.accounts.get(address);
      return ok(sun === undefined ? '{}' : accountAnswer(hexOf(address), sun));
    }
    case '/wallet/getaccountresource':
      return ok(chainState.accounts.has(base58Of(body.address)) ? fixture('getaccountresource-nile.json') : '{}');
    case '/wallet/triggerconstantcontract': {
      if (body.function_selector === 'transfer(address,uint256)') return ok(fixture('triggerconstantcontract-transfer-built.json'));
      const recorded = JSON.parse(fixture('triggerconstantcontract-balanceof-nile.json'));
      recorded.constant_result = [toBeHex(chainState.usdt.get(base58Of(body.owner_address)) ?? 0n, 32).slice(2)];
      return ok(JSON.stringify(recorded));
    }
    case '/wallet/broadcasthex':
      chainState.broadcast.add(txidOfSignedHex(body.transaction));
      return ok(fixture('broadcast-success.json'));
    case '/wallet/gettransactioninfobyid': {
      if (!chainState.broadcast.has(body.value)) return ok('{}');
      const info = JSON.parse(fixture('gettransactioninfobyid-nile.json'));
      info.id = body.value;
      return ok(JSON.stringify(info));
    }
    default:
      return { status: 404, body: '{"Error":"unrecorded"}' };
  }
}

let gw: TestKernel;
let node: Receiver;
let token: string;
let shop: { projectId: string; secret: string; addresses: string[] };

const kernelConfig = (): Record<string, unknown> => ({
  'plugins.rates.providers': ['fixed'],
  'plugins.rates.fixed': { TRX: FIXED_RATES.TRX, USDT: FIXED_RATES.USDT },
  'chains.testNetworks': { tron: 'nile' },
  'plugins.watchers.chains': { tron: { nile: { providers: [{ name: 'trongrid-replay', url: node.url }], startHeight: 30864600 } } },
  'plugins.address-pool.targetFree': 20,
  'plugins.address-pool.hardCap': 20,
  ...FAST_RETRIES,
  'plugins.treasury.networks': { tron: { nile: { operatorAccounts: { funding: FUNDING, staking: STAKING } } } },
  'plugins.treasury.trackCron': '0 0 1 1 *',
  'plugins.treasury.reconcileCron': '0 0 1 1 *',
});

test.before(async () => {
  node = await Receiver.start();
  node.reply = answer;
  chainState.accounts.set(FUNDING.address, 1_793_227_200n);
  chainState.accounts.set(STAKING.address, 1_793_227_200n);
  gw = await startTestKernel({
    plugins: [...WEBHOOK_PLUGINS, watchersPlugin, treasuryPlugin],
    chains: [defineChain({ definition, createAdapter: tronChain.createAdapter })],
    // Role gateway: no worker runs a pass of its own; the test drives the watchers' and the treasury's.
    role: 'gateway',
    config: kernelConfig(),
  });
  const cradle = gw.kernel.cradle;
  const operatorId = (await cradle.tenancyOperators.create('tron-shop', CLI_ACTOR)).id;
  const created = await cradle.tenancyProjects.create({ name: 'tron-shop', kind: 'testnet', operator: operatorId }, CLI_ACTOR);
  const projectId = created.project.id;
  const { challenge } = await cradle.walletsWallets.register({ projectId, chain: 'tron', xpub: tronWallet.xpub }, CLI_ACTOR);
  await cradle.walletsWallets.verify({ projectId, chain: 'tron', signature: await tronWallet.sign(challenge.message) }, CLI_ACTOR);
  await cradle.addressPoolReplenisher.replenish({ projectId });
  const rows = await cradle.db('address_pool_addresses').where({ project_id: projectId, chain: 'tron' }).orderBy('derivation_index').select('address');
  shop = { projectId, secret: created.credentials.api_secret, addresses: rows.map((r: { address: string }) => r.address) };
  // The same key in a production project: its addresses pay on TRON mainnet, not on Nile.
  const mainnet = await cradle.tenancyProjects.create({ name: 'tron-shop-live', kind: 'production', operator: operatorId }, CLI_ACTOR);
  const live = await cradle.walletsWallets.register({ projectId: mainnet.project.id, chain: 'tron', xpub: tronWallet.xpub }, CLI_ACTOR);
  await cradle.walletsWallets.verify({ projectId: mainnet.project.id, chain: 'tron', signature: await tronWallet.sign(live.challenge.message) }, CLI_ACTOR);
  await cradle.addressPoolReplenisher.replenish({ projectId: mainnet.project.id });
  token = (await cradle.tenancyPats.create({ scopes: ['treasury:read', 'treasury:write'], operator: operatorId }, CLI_ACTOR)).token;
});
test.after.always(() => stopAll(gw, node));

const api = treasuryApi(
  () => gw,
  () => token,
);
const ACCOUNTS = '/api/v1/treasury/accounts';
const createTrxInvoice = (externalId: string) =>
  signedFetch(gw.url, '/api/v1/invoices', { ...shop, method: 'POST', body: { external_id: externalId, amount_crypto: '10', coin: 'trx' } });
const poolStatus = async () => (await gw.kernel.cradle.addressPoolStatus.status({ projectId: shop.projectId, chain: 'tron' }))[0]!;

/** The plan's file signed by gateway-signer, imported, broadcast stage by stage and tracked until it leaves `broadcast`. */
async function signBroadcastTrack(planId: string, allowUnlistedTokens: readonly string[] = []): Promise<any> {
  for (let round = 0; round < 3; round++) {
    const plan = (await api('GET', `${ACCOUNTS}/plans/${planId}`)).body;
    if (plan.status !== 'awaiting_signature') break;
    const file = await api('GET', `${ACCOUNTS}/plans/${planId}/file`);
    if (file.status !== 200) throw new Error(JSON.stringify(file.body));
    const { signed } = await signOffline(file.body, { allowUnlistedTokens });
    const imported = await api('POST', `${ACCOUNTS}/plans/${planId}/signed`, { signed });
    if (imported.status !== 200) throw new Error(JSON.stringify(imported.body));
  }
  const sent = await api('POST', `${ACCOUNTS}/plans/${planId}/broadcast`);
  if (sent.status !== 200) throw new Error(JSON.stringify(sent.body));
  for (let i = 0; i < 20; i++) {
    await gw.kernel.cradle.treasuryAccountBroadcaster.track();
    const plan = (await api('GET', `${ACCOUNTS}/plans/${planId}`)).body;
    if (plan.status !== 'broadcast' && plan.status !== 'signed' && plan.status !== 'awaiting_signature') return plan;
    if (plan.status === 'awaiting_signature') {
      const file = (await api('GET', `${ACCOUNTS}/plans/${planId}/file`)).body;
      const { signed } = await signOffline(file, { allowUnlistedTokens });
      const imported = await api('POST', `${ACCOUNTS}/plans/${planId}/signed`, { signed, broadcast: true });
      if (imported.status !== 200) throw new Error(JSON.stringify(imported.body));
    }
  }
  throw new Error('plan not settled');
}

test.serial(
  'a new TRON key: one signed activation plan over its 20 unactivated addresses, then the watchers mark them and a trx invoice is created',
  async (t) => {
    t.is(shop.addresses.length, 20);
    const refused = await createTrxInvoice('before');
    t.is(refused.status, 422, JSON.stringify(refused.body));
    t.is(refused.body.error_code, 'tron_no_activated_addresses_available');

    // `gateway treasury activate` (the operator CLI, on the same database).
    const cli = cliRunner({
      plugins: [...WEBHOOK_PLUGINS, watchersPlugin, treasuryPlugin],
      chains: [defineChain({ definition, createAdapter: tronChain.createAdapter })],
      databaseUrl: () => gw.database.url,
      overrides: kernelConfig,
    });
    const activated = await cli('treasury', 'activate', '--chain', 'tron', '--network', 'nile', '--json');
    t.is(activated.code, 0, JSON.stringify(activated));
    const plan = (await api('GET', `${ACCOUNTS}/plans/${activated.json.plan.id}`)).body;
    t.like(plan, { kind: 'activation', method: 'activation', status: 'awaiting_signature' });
    t.deepEqual([...plan.addresses.map((a: any) => a.address)].sort(), [...shop.addresses].sort());
    t.true(
      plan.addresses.every((a: any) => a.project_id === shop.projectId),
      'the production project’s rows at the same addresses activate on mainnet, not in a Nile plan',
    );
    t.is(plan.steps.length, 20);
    // A second activation plan finds nothing: every address is in the open one.
    const second = await api('POST', `${ACCOUNTS}/activations`, { chain: 'tron', network: 'nile' });
    t.is(second.status, 422);
    t.is(second.body.error_code, 'treasury_nothing_to_move');

    const done = await signBroadcastTrack(plan.id);
    t.is(done.status, 'confirmed', JSON.stringify(done));
    t.true(done.steps.every((s: any) => s.status === 'confirmed'));
    // Every transaction the plan broadcast reached the (replayed) node.
    t.is(chainState.broadcast.size, 20);

    // The accounts now exist on chain (each got 1 TRX): the watchers' activation pass sees them.
    for (const address of shop.addresses) chainState.accounts.set(address, 1_000_000n);
    t.like(await poolStatus(), { activated: 0, available: 0 });
    const report = await gw.kernel.cradle.watchersActivation.pass(gw.kernel.cradle.watchersRegistry.get('tron', 'nile')!);
    t.like(report, { checked: 20, activated: 20 });
    t.like(await poolStatus(), { total: 20, activated: 20, unactivated: 0, available: 20 });

    const invoice = await createTrxInvoice('after');
    t.is(invoice.status, 201, JSON.stringify(invoice.body));
    t.true(shop.addresses.includes(invoice.body.address));
  },
);

test.serial('USDT-TRC20: the quote shows energy delegation and energy burn; a sweep by each moves the USDT to the destination', async (t) => {
  const holders = shop.addresses.slice(0, 3);
  const amounts = [5_000_000n, 7_250_000n, 12_000_000n];
  // The watchers see the three USDT payments in a scan pass; the chain's balances follow.
  scannedBlock = usdtBlock(holders.map((a, i) => [a, amounts[i]!] as const));
  try {
    const report = await gw.kernel.cradle.watchersScanner.pass(gw.kernel.cradle.watchersRegistry.get('tron', 'nile')!);
    t.falsy(report.error, report.error);
    t.like(report, { ran: true, transfers: 3 });
  } finally {
    scannedBlock = undefined;
  }
  for (const [i, address] of holders.entries()) chainState.usdt.set(address, amounts[i]!);

  const holdings = await api('GET', `${ACCOUNTS}/holdings?chain=tron&network=nile`);
  t.is(holdings.status, 200, JSON.stringify(holdings.body));
  for (const [i, address] of holders.entries()) {
    const h = holdings.body.holdings.find((x: any) => x.address === address);
    t.is(h?.balances.usdt_trc20, amounts[i]!.toString(), JSON.stringify(holdings.body.holdings[0]));
  }

  const quote = await api('POST', `${ACCOUNTS}/quote`, { chain: 'tron', network: 'nile', coin: 'usdt_trc20', destination: DESTINATION });
  t.is(quote.status, 200, JSON.stringify(quote.body));
  t.is(quote.body.sources, 3);
  const byMethod = Object.fromEntries(quote.body.quotes.map((q: any) => [q.method, q]));
  t.true(byMethod['energy_delegation']?.available, JSON.stringify(quote.body));
  t.true(byMethod['energy_burn']?.available, JSON.stringify(quote.body));
  t.is(byMethod['energy_burn'].moved_units, '24250000');
  t.true(BigInt(byMethod['energy_burn'].fee_units) > 0n);
  t.true(BigInt(byMethod['energy_burn'].fee_units) > BigInt(byMethod['energy_delegation'].fee_units), 'delegated energy burns no TRX for the transfers');

  const allow = [NILE_TOKEN];
  const delegation = await api('POST', `${ACCOUNTS}/plans`, {
    chain: 'tron',
    network: 'nile',
    coin: 'usdt_trc20',
    destination: DESTINATION,
    method: 'energy_delegation',
  });
  t.is(delegation.status, 201, JSON.stringify(delegation.body));
  t.is(delegation.body.addresses.length, 3);
  const sentBefore = chainState.broadcast.size;
  const delegated = await signBroadcastTrack(delegation.body.id, allow);
  t.is(delegated.status, 'confirmed', JSON.stringify(delegated));
  t.is(chainState.broadcast.size - sentBefore, delegated.steps.length);
  for (const address of holders) chainState.usdt.set(address, 0n);
  const after = await api('GET', `${ACCOUNTS}/holdings?chain=tron&network=nile`);
  t.true(holders.every((a) => after.body.holdings.find((h: any) => h.address === a)?.plan_id === null));

  // New USDT at two addresses, swept by burning TRX for energy.
  chainState.usdt.set(holders[0]!, 3_000_000n);
  chainState.usdt.set(holders[1]!, 4_000_000n);
  const burn = await api('POST', `${ACCOUNTS}/plans`, { chain: 'tron', network: 'nile', coin: 'usdt_trc20', destination: DESTINATION, method: 'energy_burn' });
  t.is(burn.status, 201, JSON.stringify(burn.body));
  t.is(burn.body.moved_units, '7000000');
  const burned = await signBroadcastTrack(burn.body.id, allow);
  t.is(burned.status, 'confirmed', JSON.stringify(burned));
});
