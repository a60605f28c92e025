import { fromBaseUnits, treasuryChainErrors, type AccountPlanBuild, type AccountStep, type OperatorAccount } from '@gw/chain-api';
import type { ChainPrices, NodeAccount, NodeBlockRef } from './node-answers.js';
import { referenceBlock, trxTransfer } from './offline-transaction.js';
import { accountCreationCost } from './resource-costs.js';

/** TRX sent to each address to activate it, by default: 1 TRX. */
export const DEFAULT_ACTIVATION_SUN = 1_000_000n;

export interface ActivationState {
  readonly funding: OperatorAccount;
  readonly fundingOnChain: NodeAccount | undefined;
  /** The addresses to activate, in order, with whether each already exists on chain. */
  readonly addresses: readonly { readonly address: string; readonly exists: boolean }[];
  readonly block: NodeBlockRef;
  readonly prices: ChainPrices;
  readonly amount: bigint;
}

/**
 * The activation plan: one TRX transfer of `amount` from the funding account to each address not
 * on chain yet (one round, one stage), each costing the funding account the account-creation fees
 * on top. Addresses already on chain are left out (`skipped`, 0 units). Pure.
 *
 * `destination` of the build is the funding account (the plan has one destination per step).
 */
export function planActivation(state: ActivationState): AccountPlanBuild {
  const ref = referenceBlock(state.block);
  const fee = accountCreationCost(state.prices);
  const steps: AccountStep[] = [];
  const skipped: { address: string; units: bigint; costUnits: bigint }[] = [];
  state.addresses.forEach(({ address, exists }, i) => {
    if (exists) {
      skipped.push({ address, units: 0n, costUnits: 0n });
      return;
    }
    steps.push({
      id: `activate-${i}`,
      round: 1,
      stage: 1,
      description: `Activate ${address} with ${fromBaseUnits(state.amount, 6)} TRX (creation fee ${fromBaseUnits(fee, 6)} TRX)`,
      signer: { kind: 'operator', account: state.funding },
      kind: 'transaction',
      unsigned: { format: 'tron-tx', data: JSON.stringify(trxTransfer(state.funding.address, address, state.amount, ref)) },
      nonce: null,
      moves: { trx: state.amount },
      feeUnits: fee,
      to: address,
    });
  });
  if (steps.length === 0) throw treasuryChainErrors.treasury_insufficient_value({ message: 'Every address is already activated: nothing to plan.' });
  const moved = state.amount * BigInt(steps.length);
  const fees = fee * BigInt(steps.length);
  const has = state.fundingOnChain?.balance ?? 0n;
  if (moved + fees > has) {
    throw treasuryChainErrors.treasury_insufficient_value({
      message: `The funding account ${state.funding.address} holds ${fromBaseUnits(has, 6)} TRX; activating ${steps.length} addresses needs ${fromBaseUnits(moved + fees, 6)} TRX.`,
    });
  }
  return {
    method: 'activation',
    coin: 'trx',
    destination: state.funding.address,
    steps,
    rounds: 1,
    movedUnits: moved,
    feeUnits: fees,
    operatorPaysUnits: moved + fees,
    skipped,
    context: {
      method: 'activation',
      referenceBlock: state.block.height.toString(),
      referenceBlockId: state.block.blockId,
      expiration: ref.expiration,
      activationSun: state.amount.toString(),
    },
  };
}
