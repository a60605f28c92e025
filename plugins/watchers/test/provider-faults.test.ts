/**
 * Faults of the chain provider, against a real EVM node (anvil, Sepolia's chain id) behind a
 * JSON-RPC proxy that misbehaves on demand: a provider that hangs, one that lies (a block that
 * vanishes, a height going backwards) and one that floods (a block of tens of thousands of
 * transfers). Each states what was lost: nothing; no block skipped, none counted twice, no invoice
 * moved by a lie.
 */
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { signedFetch, type TestKernel } from '@gw/kernel/testing';
import { getAddress, parseEther, toBeHex } from 'ethers';
import type { TestProject } from '@gw/plugin-webhooks/testing';
import { Anvil, blockParam, RpcProxy, stopAll } from '@gw/testing';
import { anvilPoolProject, startAnvilKernel } from './anvil-kernel.js';

let anvil: Anvil, proxy: RpcProxy, gw: TestKernel, project: TestProject, payer: string;

test.before(async () => {
  anvil = await Anvil.start(11155111);
  proxy = await RpcProxy.start(anvil.url);
  gw = await startAnvilKernel(anvil, {
    'plugins.watchers.chains': { eth: { sepolia: { providers: [{ name: 'proxy', url: proxy.url }], startHeight: 0 } } },
    'plugins.address-pool.targetFree': 10,
    // The tests drive each pass themselves; the job loop idles.
    'plugins.watchers.scanIntervalSeconds': 3600,
    // Short, so a hanging provider costs little here; the flood's block must still arrive within it.
    'plugins.watchers.providerTimeoutMs': Number(process.env['GW_FAULTS_PROVIDER_TIMEOUT_MS'] ?? 3000),
  });
  ({ project, payer } = await anvilPoolProject(gw, anvil, 'provider-faults'));
});
test.after.always(() => stopAll(gw, proxy, anvil));

const target = () => gw.kernel.cradle.watchersRegistry.get('eth', 'sepolia')!;
/** One pass that ran (the lock may be taken by the idle job loop's pass: then again), its backoff cleared first. */
async function pass() {
  const { db } = gw.kernel.cradle;
  // A failed pass puts the next one off; these tests stand for the time passing.
  await db('watchers_cursors').where({ chain: 'eth', network: 'sepolia' }).update({ next_scan_at: null });
  for (;;) {
    const report = await gw.kernel.cradle.watchersScanner.pass(target());
    if (report.ran) return report;
  }
}
async function invoice(amount: string) {
  const created = await signedFetch(gw.url, '/api/v1/invoices', {
    ...project,
    method: 'POST',
    body: { external_id: `f-${randomBytes(6).toString('hex')}`, coin: 'eth', amount_crypto: amount },
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return created.body;
}
const get = async (id: string) => (await signedFetch(gw.url, `/api/v1/invoices/${id}`, project)).body;
const cursor = async () => Number((await gw.kernel.cradle.db('watchers_cursors').where({ chain: 'eth', network: 'sepolia' }).first()).height);
const transfersOf = (invoiceId: string) => gw.kernel.cradle.db('watchers_transfers').where({ invoice_id: invoiceId });
const eventsOf = async (invoiceId: string) =>
  (await gw.kernel.cradle.db('webhooks_events').where({ invoice_id: invoiceId }).orderBy('id')).map((e) => e.event_type as string);
/** The stored blocks form one unbroken chain from the lowest kept to the cursor: none skipped. */
async function unbroken(t: { true(ok: boolean, message?: string): void }) {
  const rows = await gw.kernel.cradle.db('watchers_blocks').where({ chain: 'eth', network: 'sepolia' }).orderBy('height');
  const top = await cursor();
  t.true(Number(rows.at(-1)!.height) === top, 'blocks stored up to the cursor');
  for (let i = 1; i < rows.length; i++) {
    t.true(
      Number(rows[i]!.height) === Number(rows[i - 1]!.height) + 1 && rows[i]!.parent_hash === rows[i - 1]!.hash,
      `block ${rows[i]!.height} follows ${rows[i - 1]!.height}`,
    );
  }
}

test.serial(
  'a provider that lies (its height goes backwards, a block it served vanishes) moves nothing: no cursor back, no payment undone; the truth resumes with nothing skipped or counted twice',
  async (t) => {
    await pass();
    const inv = await invoice('0.2');
    const txHash = await anvil.sendEth(payer, inv.address, parseEther('0.2'));
    const paidIn = Number(BigInt((await anvil.receipt(txHash)).blockNumber));
    await anvil.mine(2);
    await pass();
    const tip = await anvil.blockNumber();
    t.is(await cursor(), tip);
    const before = await get(inv.id);
    t.is(before.status, 'detected');
    t.is(before.confirmations, 3);

    // The height goes backwards: the provider says the tip is 3 blocks below what it served.
    proxy.rewrite = (call, result) => (call.method === 'eth_blockNumber' ? toBeHex(Number(BigInt(result)) - 3) : result);
    const backwards = await pass();
    t.regex(backwards.error ?? '', /behind/, 'the pass fails: the provider is behind what was scanned');
    t.is(await cursor(), tip, 'the cursor does not go back');
    t.like(await get(inv.id), { status: 'detected', confirmations: 3 });

    // A node that lags behind a balancer, both at once: its tip is below the payment's block, and the
    // blocks from there up are missing. Taken for a reorg, this would undo the payment.
    proxy.rewrite = (call, result) => {
      if (call.method === 'eth_blockNumber') return toBeHex(paidIn - 1);
      const height = blockParam(call);
      return height !== undefined && height >= paidIn ? null : result;
    };
    t.regex((await pass()).error ?? '', /behind/);
    t.is(await cursor(), tip);
    t.like(await get(inv.id), { status: 'detected', confirmations: 3 });

    // The cursor's block vanishes (null) while the provider's tip is above it: not a reorg (a reorg
    // replaces a block, it does not remove it below the tip); the pass fails and undoes nothing.
    await anvil.mine(1);
    proxy.rewrite = (call, result) => (blockParam(call) === tip ? null : result);
    const vanished = await pass();
    t.regex(vanished.error ?? '', /does not have block/, 'the pass fails instead of undoing the block');
    t.is(await cursor(), tip);
    // The payment's block vanishing below the cursor is never asked about: the scan goes on from the cursor.
    proxy.rewrite = (call, result) => (blockParam(call) === paidIn ? null : result);
    t.is((await pass()).error, undefined);
    t.is(await cursor(), tip + 1);
    const during = await get(inv.id);
    t.like(during, { status: 'detected', confirmations: 4 });
    t.is(during.transactions.length, 1);
    t.is(during.transactions[0].status, 'pending', 'the payment was not reverted by a block that only seemed to vanish');

    // The truth resumes: the rest is scanned, the payment confirms once.
    proxy.rewrite = undefined;
    await anvil.mine(inv.confirmation_threshold);
    await pass();
    t.is(await cursor(), await anvil.blockNumber());
    const after = await get(inv.id);
    t.is(after.status, 'paid');
    t.is(after.transactions.length, 1);
    t.is((await transfersOf(inv.id)).length, 1, 'counted once');
    t.deepEqual(await eventsOf(inv.id), ['invoice.detected', 'invoice.paid'], 'no reverted event from a lie');
    await unbroken(t);
  },
);

test.serial('a provider found behind is passed over: with a healthy second provider configured, the next pass scans through it', async (t) => {
  const lagging = await RpcProxy.start(anvil.url);
  const two = await startAnvilKernel(anvil, {
    'plugins.watchers.chains': {
      eth: {
        sepolia: {
          providers: [
            { name: 'lagging', url: lagging.url },
            { name: 'direct', url: anvil.url },
          ],
          startHeight: 0,
        },
      },
    },
    'plugins.watchers.scanIntervalSeconds': 3600,
  });
  t.teardown(async () => {
    await two.close();
    await lagging.close();
  });
  const { db, watchersScanner, watchersRegistry } = two.kernel.cradle;
  const run = async () => {
    await db('watchers_cursors').where({ chain: 'eth', network: 'sepolia' }).update({ next_scan_at: null });
    for (;;) {
      const report = await watchersScanner.pass(watchersRegistry.get('eth', 'sepolia')!);
      if (report.ran) return report;
    }
  };
  const height = async () => Number((await db('watchers_cursors').where({ chain: 'eth', network: 'sepolia' }).first()).height);
  t.is((await run()).error, undefined);
  const scanned = await height();
  // The first provider stops following the chain: its tip stays 2 below what was scanned.
  lagging.rewrite = (call, result) => (call.method === 'eth_blockNumber' ? toBeHex(scanned - 2) : result);
  await anvil.mine(2);
  t.regex((await run()).error ?? '', /behind/, 'the pass that met the lagging provider fails');
  t.is(await height(), scanned);
  const next = await run();
  t.is(next.error, undefined, 'the next pass asks the healthy provider');
  t.is(await height(), await anvil.blockNumber());
});

test.serial(
  'a provider that hangs: each pass fails at the timeout and changes nothing; the payment it held back is counted once when it answers again',
  async (t) => {
    await pass();
    const start = await cursor();
    const inv = await invoice('0.3');
    await anvil.sendEth(payer, inv.address, parseEther('0.3'));
    proxy.hang = true;
    for (let i = 0; i < 2; i++) {
      const hung = await pass();
      t.regex(hung.error ?? '', /no answer within/, hung.error);
    }
    t.is(await cursor(), start);
    t.is((await get(inv.id)).status, 'pending');
    proxy.hang = false;
    await pass();
    t.is(await cursor(), await anvil.blockNumber());
    t.is((await get(inv.id)).status, 'detected');
    t.is((await transfersOf(inv.id)).length, 1);
    await unbroken(t);
  },
);

const FLOOD = Number(process.env['GW_FLOOD_TRANSFERS'] ?? 5_000);

test.serial(
  `a provider that floods (a block of ${FLOOD.toLocaleString('en')} transfers besides the payment): the pass completes, the one payment is counted once, nothing else is recorded`,
  async (t) => {
    await pass();
    const inv = await invoice('0.4');
    const txHash = await anvil.sendEth(payer, inv.address, parseEther('0.4'));
    const flooded = Number(BigInt((await anvil.receipt(txHash)).blockNumber));
    // The block as the provider serves it: the real payment among FLOOD transfers to addresses nobody watches.
    const filler = Array.from({ length: FLOOD }, (_, i) => ({
      hash: `0x${randomBytes(32).toString('hex')}`,
      from: payer,
      to: getAddress(`0x${randomBytes(20).toString('hex')}`),
      value: toBeHex(1_000_000n + BigInt(i)),
      input: '0x',
    }));
    proxy.rewrite = (call, result) => {
      if (blockParam(call) !== flooded || call.params[1] !== true || !result) return result;
      return { ...result, transactions: [...filler, ...result.transactions] };
    };
    const started = Date.now();
    const report = await pass();
    const ms = Date.now() - started;
    proxy.rewrite = undefined;
    t.is(report.error, undefined);
    t.is(report.transfers, 1, 'only the payment to a watched address is recorded');
    t.is((await get(inv.id)).status, 'detected');
    t.is((await transfersOf(inv.id)).length, 1);
    t.is(Number((await gw.kernel.cradle.db('watchers_transfers').where({ block_height: flooded }).count<{ n: string }[]>('* as n'))[0]!.n), 1);
    t.is(await cursor(), await anvil.blockNumber());
    t.log(`a block of ${FLOOD} + 1 transfers: one pass in ${ms} ms`);
    await unbroken(t);
  },
);
