/**
 * TRON activation becomes automatic (issue 36): the watchers ask the chain which unactivated pool
 * addresses exist, and mark them activated, whoever activated them. The chain is a local HTTP
 * server that REPLAYS RECORDED REAL java-tron / TronGrid `/wallet/getaccount` answers (see
 * test/fixtures/tron/README.md for where each comes from): the account object TRON's documentation
 * recorded for a Nile account, and `{}`, java-tron's answer for an account that does not exist. The
 * recorded account is another address than the pool's (derived from a published test mnemonic):
 * the server answers it for the one pool address the test declares on chain, with its `address`
 * fields set to the address asked. The scan-pass test replays the chain package's recorded TRON
 * mainnet block 30864544 (chains/tron/test/fixtures/README.md) as the Nile tip, its one TRX
 * transfer's recipient changed to a pool address, and says so.
 */
import test from 'ava';
import { CLI_ACTOR, type ObservedTransfer } from '@gw/kernel';
import { signedFetch, type TestKernel } from '@gw/kernel/testing';
import { tronAddressFromHex } from '@gw/chain-tron';
import { Receiver, stopAll, tronWallet, type ReceivedRequest, type Reply } from '@gw/testing';
import { readFileSync } from 'node:fs';
import { decodeBase58, toBeHex } from 'ethers';
import type { ScanTarget } from '../src/index.js';
import { startWatchersKernel } from './scenario.js';

const recorded = (name: string): string => readFileSync(new URL(`./fixtures/tron/${name}`, import.meta.url), 'utf8');
const RECORDED_ACCOUNT = recorded('getaccount-41dd791d6b49e190062d650e6a23c575510d35f2f9.json');
const ABSENT = recorded('getaccount-absent.json');
const HEX41 = /^41[0-9a-f]{40}$/i;
/** A recorded answer of the TRON chain package's watcher fixtures. */
const chainFixture = (name: string): string => readFileSync(new URL(`../../../chains/tron/test/fixtures/${name}`, import.meta.url), 'utf8');
/** The node's 21-byte hex (`41…`) of a T-address. */
const hexOf = (address: string): string => toBeHex(decodeBase58(address), 25).slice(2, 44);

/** The T-address a `getaccount` request asks about (hex `41…` unless `visible`). */
function askedAddress(request: ReceivedRequest): { base58: string; asked: string } | undefined {
  if (request.path.split('?')[0] !== '/wallet/getaccount') return undefined;
  const body = JSON.parse(request.body || '{}') as { address?: string };
  if (typeof body.address !== 'string') return undefined;
  return { asked: body.address, base58: HEX41.test(body.address) ? tronAddressFromHex(`0x${body.address.slice(2)}`) : body.address };
}

/** The recorded account answer with its address fields set to `address` (in the form it was asked in). */
function recordedAccountOf(address: string): string {
  const account = JSON.parse(RECORDED_ACCOUNT);
  account.address = address;
  account.owner_permission.keys[0].address = address;
  account.active_permission[0].keys[0].address = address;
  return JSON.stringify(account);
}

/** A TronGrid replay: the recorded account for the addresses in `onChain`, `{}` for any other; other paths unrecorded (404). */
function tronGrid(onChain: ReadonlySet<string>, blocks: ReadonlyMap<string, string> = new Map()): (request: ReceivedRequest) => Reply {
  return (request) => {
    const block = blocks.get(request.path.split('?')[0]!);
    if (block !== undefined) return { status: 200, body: block };
    const address = askedAddress(request);
    if (!address) return { status: 404, body: '{"Error":"unrecorded"}' };
    return { status: 200, body: onChain.has(address.base58) ? recordedAccountOf(address.asked) : ABSENT };
  };
}

let gw: TestKernel;
let node: Receiver;
test.before(async () => {
  node = await Receiver.start();
  node.reply = tronGrid(new Set());
  // Role gateway: no worker runs a scan or activation pass of its own; the test drives each pass.
  gw = await startWatchersKernel(
    { tron: { nile: { providers: [{ name: 'trongrid-replay', url: node.url }], startHeight: 30864544 } } },
    { 'chains.testNetworks': { tron: 'nile' }, 'plugins.address-pool.targetFree': 4, 'plugins.address-pool.hardCap': 4 },
    { role: 'gateway' },
  );
});
test.after.always(() => stopAll(gw, node));

const cradle = () => gw.kernel.cradle;

/** A project of `kind` with the test TRON key verified and its pool derived (nothing activated). */
async function tronProject(operator: string, kind: 'testnet' | 'production'): Promise<{ projectId: string; secret: string; addresses: string[] }> {
  const operatorId = (await cradle().tenancyOperators.create(operator, CLI_ACTOR)).id;
  const created = await cradle().tenancyProjects.create({ name: operator, kind, operator: operatorId }, CLI_ACTOR);
  const projectId = created.project.id;
  const { challenge } = await cradle().walletsWallets.register({ projectId, chain: 'tron', xpub: tronWallet.xpub }, CLI_ACTOR);
  await cradle().walletsWallets.verify({ projectId, chain: 'tron', signature: await tronWallet.sign(challenge.message) }, CLI_ACTOR);
  await cradle().addressPoolReplenisher.replenish({ projectId });
  const rows = await cradle().db('address_pool_addresses').where({ project_id: projectId, chain: 'tron' }).orderBy('derivation_index').select('address');
  return { projectId, secret: created.credentials.api_secret, addresses: rows.map((r: { address: string }) => r.address) };
}

const poolOf = async (projectId: string) => (await cradle().addressPoolStatus.status({ projectId, chain: 'tron' }))[0]!;
/** Whether each pool address of the project is activated, in derivation order. */
const activatedFlags = async (projectId: string): Promise<boolean[]> =>
  (await cradle().db('address_pool_addresses').where({ project_id: projectId }).orderBy('derivation_index')).map((r: { activated: boolean }) => r.activated);
/** The project's `address_pool.activate` audit rows. */
const activationAudit = (projectId: string) => cradle().db('kernel_audit_log').where({ project_id: projectId, action: 'address_pool.activate' });
const nile = (): ScanTarget => cradle().watchersRegistry.get('tron', 'nile')!;
const createTrxInvoice = (project: { projectId: string; secret: string }, externalId: string) =>
  signedFetch(gw.url, '/api/v1/invoices', { ...project, method: 'POST', body: { external_id: externalId, amount_crypto: '10', coin: 'trx' } });

test.serial('an address found on chain is marked activated, one that is not stays unactivated, and a trx invoice that was 422 is created', async (t) => {
  const shop = await tronProject('nile-shop', 'testnet');
  // The same key in a production project: its addresses pay on TRON mainnet, which a Nile account says nothing of.
  const mainnetShop = await tronProject('mainnet-shop', 'production');
  t.is(shop.addresses.length, 4);

  const refused = await createTrxInvoice(shop, 'before');
  t.is(refused.status, 422, JSON.stringify(refused.body));
  t.is(refused.body.error_code, 'tron_no_activated_addresses_available');
  t.like(await poolOf(shop.projectId), { total: 4, activated: 0, unactivated: 4, available: 0, activation_required: true });

  const onChain = shop.addresses[2]!;
  node.reply = tronGrid(new Set([onChain]));
  node.requests.length = 0;
  t.truthy(cradle().watchersActivation.probeOf(nile()), 'the TRON adapter answers which addresses exist');
  const report = await cradle().watchersActivation.pass(nile());
  t.deepEqual(report, { checked: 4, activated: 1 });
  // Every unactivated address of the Nile project was asked about; none of the production project's.
  const asked = node.requests.map((r) => askedAddress(r)?.base58).filter((a): a is string => a !== undefined);
  t.deepEqual([...new Set(asked)].sort(), [...shop.addresses].sort());

  t.like(await poolOf(shop.projectId), { total: 4, activated: 1, unactivated: 3, available: 1 });
  t.deepEqual(await activatedFlags(shop.projectId), [false, false, true, false]);
  t.like(await poolOf(mainnetShop.projectId), { activated: 0, available: 0 });
  const audit = await activationAudit(shop.projectId);
  t.is(audit.length, 1);
  t.like(audit[0], { actor: 'watchers', channel: 'system' });
  t.like(audit[0].details, { chain: 'tron', address: onChain, derivation_index: 2, detected_by: 'account_on_chain' });

  const created = await createTrxInvoice(shop, 'after');
  t.is(created.status, 201, JSON.stringify(created.body));
  t.is(created.body.address, onChain);

  // A later pass asks again about the three still unactivated, and marks nothing new.
  node.requests.length = 0;
  t.deepEqual(await cradle().watchersActivation.pass(nile()), { checked: 3, activated: 0 });
});

test.serial('a provider failure marks nothing and the addresses are asked again next pass', async (t) => {
  const shop = await tronProject('failing-shop', 'testnet');
  node.reply = () => ({ status: 500, body: 'internal error' });
  const failed = await cradle().watchersActivation.pass(nile());
  t.truthy(failed.error);
  t.is(failed.activated, 0);
  t.like(await poolOf(shop.projectId), { activated: 0 });
  node.reply = tronGrid(new Set(shop.addresses));
  // Rows of the earlier test's project are in the window too; this project's four are marked.
  await cradle().watchersActivation.pass(nile());
  t.like(await poolOf(shop.projectId), { activated: 4, available: 4, unactivated: 0 });
});

test.serial('TRX seen arriving at a pool address in a block marks it activated at once; a USDT transfer does not', async (t) => {
  const shop = await tronProject('funded-shop', 'testnet');
  const target = nile();
  const transfer = (coin: string, to: string, txHash: string): ObservedTransfer => ({
    chain: 'tron',
    network: 'nile',
    coin,
    txHash,
    outputIndex: 0,
    toAddress: to,
    amountUnits: 1_000_000n,
    blockHeight: 100,
    blockHash: '00'.repeat(32),
    observedAt: new Date(),
  });
  const [trxTo, usdtTo] = [shop.addresses[0]!, shop.addresses[1]!];
  const marked = await cradle().db.transaction((trx) =>
    cradle().watchersActivation.fromTransfers(trx, target, [transfer('trx', trxTo, 'aa'.repeat(32)), transfer('usdt_trc20', usdtTo, 'bb'.repeat(32))]),
  );
  // The earlier tests' testnet projects hold the same key, their rows at trxTo already activated: only this project's is new.
  t.is(marked, 1);
  t.deepEqual(await activatedFlags(shop.projectId), [true, false, false, false]);
  const audit = await activationAudit(shop.projectId);
  t.like(audit[0].details, { address: trxTo, detected_by: 'incoming_transfer', txid: 'aa'.repeat(32) });
});

test.serial('a scan pass that sees TRX arrive at a pool address marks it activated (and every testnet row at it), not the other addresses', async (t) => {
  const shop = await tronProject('scanned-shop', 'testnet');
  const funded = shop.addresses[3]!;
  // The recorded block 30864544 (one TransferContract of 50 TRX), its recipient changed to the pool
  // address; served as the tip and the solidified block too, so the pass scans exactly this block.
  const block = JSON.parse(chainFixture('getblockbynum-30864544.json'));
  block.transactions[0].raw_data.contract[0].parameter.value.to_address = hexOf(funded);
  const blockJson = JSON.stringify(block);
  node.reply = tronGrid(
    new Set(),
    new Map([
      ['/wallet/getnowblock', blockJson],
      ['/walletsolidity/getnowblock', blockJson],
      ['/wallet/getblockbynum', blockJson],
      ['/wallet/gettransactioninfobyblocknum', chainFixture('gettransactioninfobyblocknum-30864544.json')],
    ]),
  );
  const report = await cradle().watchersScanner.pass(nile());
  t.falsy(report.error, report.error);
  t.like(report, { ran: true, to: 30864544, transfers: 1 });

  t.deepEqual(await activatedFlags(shop.projectId), [false, false, false, true]);
  t.like(await poolOf(shop.projectId), { activated: 1, available: 1 });
  const audit = await activationAudit(shop.projectId);
  t.like(audit[0]!.details, { address: funded, detected_by: 'incoming_transfer', txid: block.transactions[0].txID });
  // The production project's row at the same address pays on mainnet: left alone.
  const mainnetRow = await cradle()
    .db('address_pool_addresses')
    .join('tenancy_projects', 'tenancy_projects.id', 'address_pool_addresses.project_id')
    .where({ 'tenancy_projects.kind': 'production', 'address_pool_addresses.address': funded })
    .first('address_pool_addresses.activated');
  t.false(mainnetRow.activated);
});
