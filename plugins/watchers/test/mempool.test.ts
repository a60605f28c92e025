/**
 * Issue 26's lifecycle findings against a real EVM node (anvil, Sepolia's chain id) and the real
 * watcher pipeline. Anvil's EVM watcher has no mempool of its own, so the mempool provider here is
 * the real watcher with a `mempool()` added per test: a rate-limited one (finding 6), and one that
 * reports a payment seen only in the mempool (finding 2), as an Esplora provider would.
 */
import test from 'ava';
import { CLI_ACTOR, type ObservedTransfer, ProviderError, type WatchedAddresses } from '@gw/kernel';
import { signedFetch, type TestKernel } from '@gw/kernel/testing';
import { parseEther } from 'ethers';
import type { TestProject } from '@gw/plugin-webhooks/testing';
import type { ScanTarget } from '../src/index.js';
import { Anvil, stopAll } from '@gw/testing';
import { anvilPoolProject, sepoliaWithMempool, startAnvilKernel, unminedSepoliaTransfer } from './anvil-kernel.js';

const WINDOW = 3;
let anvil: Anvil, gw: TestKernel, project: TestProject, payer: string;

test.before(async () => {
  anvil = await Anvil.start(11155111);
  gw = await startAnvilKernel(anvil, {
    'plugins.address-pool.targetFree': 12,
    'plugins.address-pool.hardCap': 20,
    'plugins.watchers.scanIntervalSeconds': 3600,
    'plugins.watchers.mempoolAddressesPerPass': WINDOW,
    'plugins.watchers.mempoolTimeoutSeconds': 3600,
  });
  ({ project, payer } = await anvilPoolProject(gw, anvil, 'watchers-mempool'));
});
test.after.always(() => stopAll(gw, anvil));

const withMempool = (mempool: (watched: WatchedAddresses) => Promise<ObservedTransfer[]>): ScanTarget => sepoliaWithMempool(gw, mempool);

async function pass(target: ScanTarget) {
  for (;;) {
    const report = await gw.kernel.cradle.watchersScanner.pass(target);
    if (report.error) throw new Error(report.error);
    if (report.ran) return report;
  }
}
const uid = () => `order-${Math.random().toString(36).slice(2)}`;
async function invoice(body: Record<string, unknown>) {
  const created = await signedFetch(gw.url, '/api/v1/invoices', { ...project, method: 'POST', body: { external_id: uid(), ...body } });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return created.body;
}
const get = async (id: string) => (await signedFetch(gw.url, `/api/v1/invoices/${id}`, project)).body;

test.serial('finding 6: a rate-limited mempool provider never holds up blocks; each pass asks it about a bounded, rotating window', async (t) => {
  const asked: string[][] = [];
  const limited = withMempool(async (watched) => {
    asked.push(await watched.active());
    throw new ProviderError('rate_limited', 'esplora', 'GET /address/…/txs/mempool: 429');
  });
  // Several invoices, so more addresses expect payments than one window holds.
  const invoices = [];
  for (let i = 0; i < 7; i++) invoices.push(await invoice({ coin: 'eth', amount_crypto: '0.01' }));
  const paid = invoices[0]!;
  await anvil.sendEth(payer, paid.address, parseEther('0.01'));
  await anvil.mine(paid.confirmation_threshold);
  const report = await pass(limited);
  t.is(report.mempool?.error !== undefined, true, 'the mempool step failed');
  t.is((await get(paid.id)).status, 'paid', 'the block pass committed regardless');
  // A few more passes: every window is bounded, and together they cover every waiting address.
  for (let i = 0; i < 4; i++) await pass(limited);
  t.true(
    asked.every((window) => window.length <= WINDOW),
    JSON.stringify(asked.map((w) => w.length)),
  );
  const covered = new Set(asked.flat());
  for (const inv of invoices.slice(1)) t.true(covered.has(inv.address), `${inv.address} was asked about in some pass`);
  const metrics = await gw.kernel.cradle.metrics.registry.getSingleMetricAsString('gateway_watcher_mempool_failures_total');
  t.regex(metrics, /kind="rate_limited"} [1-9]/);
});

test.serial(
  'finding 2: a payment that stays in the mempool stops holding its invoice after the timeout; paid after expiry it is expired_paid_late',
  async (t) => {
    const inv = await invoice({ coin: 'eth', amount_crypto: '0.02' });
    // Small, but above ETH's dust floor (a transfer below it would never detect the invoice).
    const dust = unminedSepoliaTransfer(`0x${'d'.repeat(64)}`, inv.address, 10n ** 13n);
    const mempool = withMempool(async () => [dust]);
    await pass(mempool);
    const detected = await get(inv.id);
    t.is(detected.status, 'detected');
    t.like(detected.transactions[0], { tx_hash: dust.txHash, status: 'pending', confirmations: 0 });
    // The invoice's deadline passes: a detected invoice is left to its payment.
    const { invoicesLifecycle, db } = gw.kernel.cradle;
    const later = new Date(Date.now() + 2 * 86_400_000);
    await invoicesLifecycle.expireDue(CLI_ACTOR, { asOf: later });
    t.is((await get(inv.id)).status, 'detected');
    // The dust never makes it into a block (replaced by fee elsewhere): the clock moves past the timeout.
    await db('watchers_transfers')
      .where({ tx_hash: dust.txHash })
      .update({ received_at: db.raw(`now() - interval '2 hours'`) });
    const report = await pass(withMempool(async () => []));
    t.is(report.mempool?.dropped, 1);
    const released = await get(inv.id);
    t.is(released.status, 'pending', 'back to waiting');
    t.is(released.transactions[0].status, 'dropped');
    await invoicesLifecycle.expireDue(CLI_ACTOR, { asOf: later });
    t.is((await get(inv.id)).status, 'expired', 'and it expires as usual');
    // A real payment after expiry is late, never paid at the creation-time rate.
    await anvil.sendEth(payer, inv.address, parseEther('0.02'));
    await anvil.mine(inv.confirmation_threshold);
    await pass(withMempool(async () => []));
    t.is((await get(inv.id)).status, 'expired_paid_late');
  },
);

test.serial('finding 9: a payment that existed before an invoice was created never pays that invoice', async (t) => {
  const inv = await invoice({ coin: 'eth', amount_crypto: '0.03' });
  const txHash = await anvil.sendEth(payer, inv.address, parseEther('0.03'));
  const block = await anvil.rpc<{ timestamp: string }>('eth_getBlockByNumber', [(await anvil.receipt(txHash)).blockNumber, false]);
  // The invoice was created after that block existed (its clock moved past the block's time and the chain's skew allowance).
  const { db } = gw.kernel.cradle;
  await db('invoices_invoices')
    .where({ id: inv.id })
    .update({ created_at: new Date(Number(BigInt(block.timestamp)) * 1000 + 3_600_000) });
  await pass(withMempool(async () => []));
  t.is((await get(inv.id)).status, 'pending', 'the earlier payment is not this invoice’s');
  const orphan = await db('watchers_transfers').where({ tx_hash: txHash }).first();
  t.is(orphan.match, 'orphan');
  t.is(orphan.invoice_id, null);
});

test.serial(
  'budgeted providers (mempoolScope awaiting) are asked only about addresses an invoice waits on; the others also about those in cooldown',
  async (t) => {
    const waiting = await invoice({ coin: 'eth', amount_crypto: '0.04' });
    const ended = await invoice({ coin: 'eth', amount_crypto: '0.05' });
    const cancelled = await signedFetch(gw.url, `/api/v1/invoices/${ended.id}/cancel`, { ...project, method: 'POST' });
    t.is(cancelled.status, 200, JSON.stringify(cancelled.body));
    const { addressPoolService } = gw.kernel.cradle;
    t.is((await addressPoolService.expectingAddresses('eth')).find((row) => row.address === ended.address)?.state, 'cooldown');
    const askedIn = async (scope: 'awaiting' | 'expecting') => {
      const asked = new Set<string>();
      const mempool = withMempool(async (watched) => {
        for (const address of await watched.active()) asked.add(address);
        return [];
      });
      const target: ScanTarget = { ...mempool, mempoolScope: scope };
      // Enough passes for the rotating window to go round every address the scope holds.
      const expecting = (await addressPoolService.expectingAddresses('eth')).length;
      for (let i = 0; i <= Math.ceil(expecting / WINDOW); i++) await pass(target);
      return asked;
    };
    const budgeted = await askedIn('awaiting');
    t.true(budgeted.has(waiting.address), 'the waiting invoice’s address is asked about');
    t.false(budgeted.has(ended.address), 'the address in cooldown is not');
    const unbudgeted = await askedIn('expecting');
    t.true(unbudgeted.has(ended.address), 'without a budget, the address in cooldown is asked about too');
    // The registry decides the scope from the providers: anvil's endpoint has no limit.
    t.is(gw.kernel.cradle.watchersRegistry.get('eth', 'sepolia')!.mempoolScope, 'expecting');
  },
);
