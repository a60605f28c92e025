import { fromBaseUnits, treasuryChainErrors, type AccountStep } from '@gw/chain-api';
import type { TronNodeReads } from './node-reads.js';
import { signerAddress, unsignedOf } from './verify-signed.js';

/**
 * How long one stage of a plan may take, from its broadcast to the confirmations the next stage waits
 * for: 19 blocks of 3 s (57 s) for the chain, with room for the gateway's polling, provider retries
 * and an operator resuming a plan. Every transaction of a plan shares one expiration (its reference
 * block's time + 24 h − 5 min), so a stage sent later has less of it left: a step needs one
 * allowance for its own stage and each stage before it still to go.
 */
export const STAGE_ALLOWANCE_MS = 10n * 60_000n;

/**
 * TRON has no nonce: a transaction is pinned by its reference block and expiry. A plan is stale
 * when a step's expiry leaves too little time for the stages still to go before it (one
 * {@link STAGE_ALLOWANCE_MS} each: the delegation, the transfers and the reclaim of an
 * energy_delegation plan need three, so the reclaim cannot expire after the transfers land), or
 * when an account no longer holds what its steps send (a deposit address's coin, the funding account's TRX for its top-ups and fees). Any
 * stale step refuses the whole plan with `treasury_nonce_stale` before its first broadcast; a step
 * whose transaction is already on chain is not stale.
 *
 * `balanceOf(address, coin)` reads an account's balance of a coin (TRX or a token).
 */
export async function checkTronFresh(
  steps: readonly AccountStep[],
  reads: TronNodeReads,
  balanceOf: (address: string, coin: string) => Promise<bigint>,
  decimalsOf: (coin: string) => number,
): Promise<void> {
  if (steps.length === 0) return;
  const head = await reads.nowBlock();
  const onChainMemo = new Map<string, Promise<boolean>>();
  const onChain = (step: AccountStep): Promise<boolean> => {
    let known = onChainMemo.get(step.id);
    if (!known) onChainMemo.set(step.id, (known = reads.transactionInfo(unsignedOf(step).txID).then((info) => info !== undefined)));
    return known;
  };
  const problems = new Map<string, string>();
  for (const [id, why] of await expiryProblems(steps, head.timestamp, onChain)) problems.set(id, why);
  // What each signing account must hold for its steps, by coin: what it sends, and TRX for its fees.
  const needs = new Map<string, Map<string, bigint>>();
  for (const step of steps) {
    const address = signerAddress(step);
    const byCoin = needs.get(address) ?? new Map<string, bigint>();
    for (const [coin, units] of Object.entries(step.moves)) byCoin.set(coin, (byCoin.get(coin) ?? 0n) + units);
    // A deposit address's token transfer burns TRX a top-up of the same plan may bring: only operators' fees are counted.
    if (step.signer.kind === 'operator' || step.moves['trx'] !== undefined) byCoin.set('trx', (byCoin.get('trx') ?? 0n) + step.feeUnits);
    needs.set(address, byCoin);
  }
  for (const [address, byCoin] of needs) {
    for (const [coin, units] of byCoin) {
      if (units === 0n) continue;
      const has = await balanceOf(address, coin);
      if (has < units) {
        const ids = steps.filter((s) => signerAddress(s) === address).map((s) => s.id);
        for (const id of ids)
          problems.set(id, `${address} holds ${fromBaseUnits(has, decimalsOf(coin))} ${coin}, the plan sends ${fromBaseUnits(units, decimalsOf(coin))}`);
      }
    }
  }
  for (const [id, why] of problems) {
    const step = steps.find((s) => s.id === id)!;
    if (await onChain(step)) continue;
    throw treasuryChainErrors.treasury_nonce_stale({ message: `The TRON plan went stale: ${why}. Nothing was broadcast; make a new plan.` });
  }
}

/**
 * Steps whose expiration leaves less than their share of {@link STAGE_ALLOWANCE_MS}: a step of the
 * k-th stage still to go needs k allowances. Stages count from the first one not wholly on chain;
 * which those are is asked only when the time is short counting every stage.
 */
async function expiryProblems(steps: readonly AccountStep[], now: bigint, onChain: (step: AccountStep) => Promise<boolean>): Promise<Map<string, string>> {
  const stages = [...new Set(steps.map((s) => s.stage))].sort((a, b) => a - b);
  const short = (from: number): Map<string, string> => {
    const problems = new Map<string, string>();
    for (const step of steps) {
      const position = stages.indexOf(step.stage) - from + 1;
      if (position < 1) continue;
      const left = BigInt(unsignedOf(step).raw_data.expiration) - now;
      if (left <= 0n) problems.set(step.id, `step ${step.id} expired`);
      else if (left < BigInt(position) * STAGE_ALLOWANCE_MS)
        problems.set(
          step.id,
          `step ${step.id} expires in ${left / 60_000n} min, and ${position} stage${position === 1 ? '' : 's'} (its own and those before it) need ${(BigInt(position) * STAGE_ALLOWANCE_MS) / 60_000n} min`,
        );
    }
    return problems;
  };
  const all = short(0);
  if (all.size === 0) return all;
  let first = 0;
  while (first < stages.length) {
    const stage = steps.filter((s) => s.stage === stages[first]);
    if (!(await Promise.all(stage.map(onChain))).every(Boolean)) break;
    first++;
  }
  return short(first);
}
