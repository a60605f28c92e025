import { internal, SendMode } from '@ton/core';
import { treasuryChainErrors, type AccountPlanBuild, type AccountStep } from '@gw/chain-api';
import { depositRequest } from './deposit-request.js';
import { tonText, type PreparedSource, type TonPlanContext } from './plan-context.js';
import { TON_TRANSFER_DEPLOY_FEE, TON_TRANSFER_FEE } from './ton-fees.js';

/** What a native sweep of this source would cost (its external; more when it deploys the wallet). */
export const nativeFee = (s: PreparedSource): bigint => (s.state.deployed ? TON_TRANSFER_FEE : TON_TRANSFER_DEPLOY_FEE);

/**
 * `native`: each subwallet sends its whole balance to the destination in one external, with send
 * mode 128 (carry the remaining balance) + 2 (ignore errors, which V5R1 requires of externals).
 * Mode 128 takes the real fee out of the balance, so the wallet ends at exactly zero and the
 * estimate only informs the plan. Not +32 (destroy when zero): a destroyed wallet loses its seqno,
 * so its next external would start at 0 again and any seqno-0 external still within its validity
 * (this plan's own) could be replayed against later deposits; the empty wallet keeps its code and
 * seqno, and its storage debt (micro-TON a year) is paid by the next deposit.
 *
 * One round, one stage: the subwallets are independent accounts.
 */
export async function buildNativePlan(ctx: TonPlanContext, sources: readonly PreparedSource[], minUnits: bigint): Promise<AccountPlanBuild> {
  const steps: AccountStep[] = [];
  const skipped: { address: string; units: bigint; costUnits: bigint }[] = [];
  let moved = 0n;
  let fees = 0n;
  for (const s of sources) {
    const fee = nativeFee(s);
    const balance = s.state.ton;
    // A frozen wallet runs no code until its storage debt is paid and it is unfrozen: nothing it can sign moves.
    if (balance <= fee || balance < minUnits || s.state.status === 'frozen') {
      skipped.push({ address: s.source.address, units: balance, costUnits: fee });
      continue;
    }
    const message = internal({ to: ctx.destination, value: 0n, bounce: ctx.destinationBounce });
    const request = await depositRequest(ctx, s, { message, mode: SendMode.CARRY_ALL_REMAINING_BALANCE });
    steps.push({
      id: `transfer-${s.subwallet}`,
      round: 1,
      stage: 1,
      description: `Send all of ${s.source.address} (about ${tonText(balance - fee)} after its fee) to ${ctx.destinationText}`,
      ...request,
      moves: { [ctx.nativeCoin]: balance - fee },
      feeUnits: fee,
      to: ctx.destinationText,
    });
    moved += balance - fee;
    fees += fee;
  }
  if (steps.length === 0) {
    throw treasuryChainErrors.treasury_insufficient_value({ message: 'No source holds more TON than its transfer fee (or the minimum asked).' });
  }
  return {
    method: 'native',
    coin: ctx.nativeCoin,
    destination: ctx.destinationText,
    steps,
    rounds: 1,
    movedUnits: moved,
    feeUnits: fees,
    operatorPaysUnits: 0n,
    skipped,
    context: { valid_until: ctx.validUntil, send_mode: 'carry_all_remaining_balance' },
  };
}
