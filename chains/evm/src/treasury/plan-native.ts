import { treasuryChainErrors, type AccountPlanBuild, type AccountStep } from '@gw/chain-api';
import { depositSigner, formatUnits, transactionStep } from './plan-steps.js';
import type { SweepState } from './sweep-state.js';

/**
 * Native sweep: one EIP-1559 transaction per address sending its balance less its fee, signed by
 * the address's key. The fee is fixed at gas × max fee, so `value = balance − gasLimit × maxFee`
 * never exceeds what the account can pay; the block charges base fee + tip ≤ max fee and refunds
 * the rest to the address, which keeps that difference as dust (it cannot be known in advance).
 * Addresses whose balance does not exceed their fee are skipped.
 */
export function planNative(state: SweepState): AccountPlanBuild {
  const fee = state.nativeTransferGas * state.fees.maxFeePerGas;
  const steps: AccountStep[] = [];
  const skipped: { address: string; units: bigint; costUnits: bigint }[] = [];
  let moved = 0n;
  for (const source of state.sources) {
    const value = source.native - fee;
    if (source.native < state.minUnits || value <= 0n) {
      skipped.push({ address: source.address, units: source.native, costUnits: fee });
      continue;
    }
    moved += value;
    steps.push(
      transactionStep({
        id: `sweep-${source.index}`,
        round: 1,
        stage: 1,
        description: `Send ${formatUnits(value, state.nativeDecimals)} ${state.nativeCoin} from ${source.address} (its balance less the fee) to ${state.destination}`,
        signer: depositSigner(source, state.accountPath),
        fees: state.fees,
        tx: { nonce: source.nonce, to: state.destination, value, data: '0x', gasLimit: state.nativeTransferGas },
        moves: { [state.nativeCoin]: value },
      }),
    );
  }
  if (steps.length === 0)
    throw treasuryChainErrors.treasury_insufficient_value({
      message: `No source holds more ${state.nativeCoin} than the fee of moving it (${fee} base units).`,
    });
  return {
    method: 'native',
    coin: state.coin,
    destination: state.destination,
    steps,
    rounds: 1,
    movedUnits: moved,
    feeUnits: fee * BigInt(steps.length),
    operatorPaysUnits: 0n,
    skipped,
    context: planContext(state),
  };
}

/** What every EVM plan keeps for later rounds and checks. */
export function planContext(state: SweepState): Record<string, string | number | boolean> {
  return {
    chainId: state.fees.chainId.toString(),
    maxFeePerGas: state.fees.maxFeePerGas.toString(),
    maxPriorityFeePerGas: state.fees.maxPriorityFeePerGas.toString(),
  };
}
