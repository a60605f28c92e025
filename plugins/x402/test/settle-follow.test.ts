/**
 * The follow job (`x402.follow`, `SettlementFollower`) on a real anvil node and a real PostgreSQL:
 * a settlement answered `settlement_pending` is recorded `settled` once mined; a settler gone while
 * waiting leaves a `submitted` row, followed once older than `receiptWaitSeconds`; a settlement
 * the node dropped is `failed` with `dropped` (at once when another transaction of the gas wallet
 * used its nonce, after ten minutes otherwise), and the gas wallet's next settlement takes the
 * nonce it gave back. Mining is paused by the tests (anvil's automine off) so that nothing is mined
 * before they say so.
 */
import test from 'ava';
import { sql, sqlQuery } from '@gw/kernel';
import { waitFor } from '@gw/kernel/testing';
import { Transaction, Wallet } from 'ethers';
import { FOLLOW_JOB } from '../src/jobs.js';
import type { FollowedResult } from '../src/metrics.js';
import { X402_REASONS } from '../src/protocol/reasons.js';
import { startX402, USDC, type X402Harness } from './helpers.js';
import { settlementsWith, verifiedPayment } from './settle-payment.js';

/** The cron of the harness's gateway: never within a test, which runs the passes itself (or sends the job). */
const NEVER = '0 0 1 1 *';

let h: X402Harness;
test.before(async () => {
  h = await startX402({ poolSize: 12, config: { 'plugins.x402.followCron': NEVER } });
});
test.after.always(() => h?.stop());

const cradle = () => h.gw.kernel.cradle;
const follow = () => cradle().x402SettlementFollower.follow();
const rowOf = async (txHash: string) => (await cradle().x402Settlements.list({ limit: 1000 })).find((r) => r.tx_hash === txHash);
/** `gateway_x402_settlements_followed_total` of eth/anvil for `result`. */
async function followed(result: FollowedResult): Promise<number> {
  const { values } = await cradle().x402Metrics.followed.get();
  return values.find((v) => v.labels.result === result && v.labels.chain === 'eth' && v.labels.network === 'anvil')?.value ?? 0;
}
/** The nonce of a transaction the node has. */
async function nonceOf(txHash: string): Promise<number> {
  return Number(BigInt((await h.chain.anvil.rpc<{ nonce: string }>('eth_getTransactionByHash', [txHash])).nonce));
}
/** Moves a settlement's creation into the past (what waiting that long would do). */
async function age(txHash: string, minutes: number): Promise<void> {
  await sqlQuery(cradle().db, sql`update x402_settlements set created_at = now() - make_interval(mins => ${minutes}) where tx_hash = ${txHash}`);
}

/** A settlement of a fresh invoice sent while mining is paused: answered `settlement_pending` after a second. Mining stays paused. */
async function pendingSettlement(amount: string) {
  const invoice = await h.invoice(amount);
  const payer = await h.payer(USDC);
  const payment = await verifiedPayment(h, invoice, payer);
  await h.chain.anvil.pauseMining();
  const answer = await settlementsWith(h.gw, { receiptWaitSeconds: 1 }).settlements.settle(payment);
  if (answer.errorReason !== X402_REASONS.pending) throw new Error(`not pending: ${JSON.stringify(answer)}`);
  return { invoice, payer, txHash: answer.transaction };
}

/** A settlement of a fresh invoice by the harness's gateway, mining on. */
async function settledNow(amount: string) {
  const invoice = await h.invoice(amount);
  const payment = await verifiedPayment(h, invoice, await h.payer(USDC));
  return { invoice, answer: await cradle().x402Settlements.settle(payment) };
}

test.serial('a settlement left pending: waiting while the node has it unmined, settled once mined, counted; then nothing to follow', async (t) => {
  const settledBefore = await followed('settled');
  let txHash: string;
  try {
    ({ txHash } = await pendingSettlement('0.6'));
    t.like(await rowOf(txHash), { status: 'pending', settled_at_iso: null });

    t.deepEqual(await follow(), { looked: 1, settled: 0, failed: 0, dropped: 0, waiting: 1 });
    t.like(await rowOf(txHash), { status: 'pending' });

    await h.chain.anvil.mine(1);
  } finally {
    await h.chain.anvil.resumeMining();
  }

  t.deepEqual(await follow(), { looked: 1, settled: 1, failed: 0, dropped: 0, waiting: 0 });
  const row = await rowOf(txHash);
  t.like(row, { status: 'settled', error_reason: null });
  t.truthy(row!.settled_at_iso);
  t.is(await followed('settled'), settledBefore + 1);
  t.deepEqual(await follow(), { looked: 0, settled: 0, failed: 0, dropped: 0, waiting: 0 });
});

test.serial('a settler gone while waiting: its submitted row is left to it for receiptWaitSeconds, then pending, then settled once mined', async (t) => {
  let txHash: string;
  try {
    ({ txHash } = await pendingSettlement('0.7'));
    // As the row stands while its settler waits for the receipt.
    await sqlQuery(cradle().db, sql`update x402_settlements set status = 'submitted' where tx_hash = ${txHash}`);

    t.is((await follow()).looked, 0, 'younger than receiptWaitSeconds (60): its settler may still be waiting');
    await age(txHash, 2);
    t.like(await follow(), { looked: 1, waiting: 1 });
    t.like(await rowOf(txHash), { status: 'pending' });

    await h.chain.anvil.mine(1);
  } finally {
    await h.chain.anvil.resumeMining();
  }
  t.like(await follow(), { looked: 1, settled: 1 });
  t.like(await rowOf(txHash), { status: 'settled' });
});

test.serial(
  'dropped, its nonce used by another transaction of the gas wallet: failed with dropped at once, counted; the next settlement goes on',
  async (t) => {
    const droppedBefore = await followed('dropped');
    let txHash: string;
    let nonce: number;
    try {
      ({ txHash } = await pendingSettlement('0.8'));
      nonce = await nonceOf(txHash);
      await h.chain.anvil.rpc('anvil_dropTransaction', [txHash]);
      // The operator's own transaction from the gas wallet at that nonce (a transfer of its gas money).
      const other = Transaction.from({
        type: 2,
        chainId: 31337n,
        nonce,
        to: Wallet.createRandom().address,
        value: 1n,
        gasLimit: 21_000n,
        maxFeePerGas: 100n * 10n ** 9n,
        maxPriorityFeePerGas: 10n ** 9n,
      });
      other.signature = h.gasWallet.signingKey.sign(other.unsignedHash);
      await h.chain.anvil.rpc('eth_sendRawTransaction', [other.serialized]);
      await h.chain.anvil.mine(1);
    } finally {
      await h.chain.anvil.resumeMining();
    }

    t.deepEqual(await follow(), { looked: 1, settled: 0, failed: 0, dropped: 1, waiting: 0 });
    const row = await rowOf(txHash);
    t.like(row, { status: 'failed', error_reason: 'dropped', settled_at_iso: null });
    t.is(await followed('dropped'), droppedBefore + 1);

    const next = await settledNow('0.81');
    t.like(next.answer, { success: true });
    t.is(await nonceOf(next.answer.transaction), nonce + 1);
    t.is(await h.balanceOf(next.invoice.address), 810_000n);
  },
);

test.serial('dropped without a trace: pending while young, failed with dropped after ten minutes; the next settlement reuses its nonce', async (t) => {
  let txHash: string;
  let nonce: number;
  let invoiceAddress: string;
  try {
    const pending = await pendingSettlement('0.9');
    ({ txHash } = pending);
    invoiceAddress = pending.invoice.address;
    nonce = await nonceOf(txHash);
    await h.chain.anvil.rpc('anvil_dropTransaction', [txHash]);
  } finally {
    await h.chain.anvil.resumeMining();
  }

  t.like(await follow(), { looked: 1, waiting: 1 });
  t.like(await rowOf(txHash), { status: 'pending' });
  await age(txHash, 11);
  t.like(await follow(), { looked: 1, dropped: 1 });
  t.like(await rowOf(txHash), { status: 'failed', error_reason: 'dropped' });

  // The gap is filled by the next settlement: it takes the nonce the dropped one gave back, and is mined.
  const next = await settledNow('0.91');
  t.like(next.answer, { success: true });
  t.is(await nonceOf(next.answer.transaction), nonce);
  t.is(await h.balanceOf(next.invoice.address), 910_000n);
  t.is(await h.balanceOf(invoiceAddress), 0n);
});

test.serial('the job x402.follow: scheduled at plugins.x402.followCron; a run records what was mined', async (t) => {
  const [schedule] = await cradle().jobs.boss.getSchedules(FOLLOW_JOB);
  t.like(schedule, { name: FOLLOW_JOB, cron: NEVER });

  let txHash: string;
  try {
    ({ txHash } = await pendingSettlement('0.95'));
    await h.chain.anvil.mine(1);
  } finally {
    await h.chain.anvil.resumeMining();
  }
  await cradle().jobs.send(FOLLOW_JOB, {});
  const row = await waitFor(
    async () => {
      const now = await rowOf(txHash);
      return now?.status === 'settled' ? now : undefined;
    },
    30_000,
    'the job to record the settlement',
  );
  t.truthy(row.settled_at_iso);
});
