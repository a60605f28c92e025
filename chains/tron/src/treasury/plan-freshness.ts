import { fromBaseUnits, treasuryChainErrors, type AccountStep } from '@gw/chain-api';
import type { TronNodeReads } from './node-reads.js';
import { signerAddress, unsignedOf } from './verify-signed.js';

/**
 * TRON has no nonce: a transaction is pinned by its reference block and expiry. A plan is stale
 * when a step's expiry has passed the chain's head, or when an account no longer holds what its
 * steps send (a deposit address's coin, the funding account's TRX for its top-ups and fees). Any
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
  const problems = new Map<string, string>();
  for (const step of steps) {
    if (BigInt(unsignedOf(step).raw_data.expiration) <= head.timestamp) problems.set(step.id, `step ${step.id} expired`);
  }
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
    if ((await reads.transactionInfo(unsignedOf(step).txID)) !== undefined) continue;
    throw treasuryChainErrors.treasury_nonce_stale({ message: `The TRON plan went stale: ${why}. Nothing was broadcast; make a new plan.` });
  }
}
