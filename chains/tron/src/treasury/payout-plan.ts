import {
  fromBaseUnits,
  payoutPlanBuild,
  payoutRecipientsContext,
  payoutShortfall,
  treasuryChainErrors,
  type AccountPlanBuild,
  type AccountStep,
  type PayoutRecipient,
  type StepSigner,
} from '@gw/chain-api';
import type { ChainPrices, NodeAccount, NodeBlockRef, NodeConstantCall } from './node-answers.js';
import { bandwidthBytes, referenceBlock, trc20Transfer, trxTransfer, type TronUnsignedTx } from './offline-transaction.js';
import { accountCreationCost, bandwidthCost, energyCost, feeLimitFor } from './resource-costs.js';

/** What a TRON payout is built from, read once (`TronTreasury.buildPayout`); the planner is pure over it. */
export interface PayoutState {
  readonly coin: string;
  /** The TRC-20 contract of `coin`; undefined for TRX. */
  readonly contract: string | undefined;
  readonly decimals: number;
  readonly sender: {
    readonly address: string;
    readonly signer: StepSigner;
    /** Undefined: not on chain (it holds nothing). */
    readonly account: NodeAccount | undefined;
    readonly bandwidthLeft: bigint | undefined;
    /** Its balance of `coin`. */
    readonly units: bigint;
  };
  readonly recipients: readonly (PayoutRecipient & {
    /** Whether the recipient's account exists on chain (a first TRX transfer to it pays its creation). */
    readonly exists: boolean;
    /** Token payouts: the simulated `transfer` of its amount from the sender. */
    readonly simulation: NodeConstantCall | undefined;
  })[];
  readonly block: NodeBlockRef;
  readonly prices: ChainPrices;
  readonly operator: boolean;
}

/**
 * TRON payout (`AccountTreasury.buildPayout`): one transaction per recipient from the sender,
 * built offline with `tronweb` on one reference block: a `TransferContract` of the amount (TRX), or a
 * TRC-20 `transfer(recipient, amount)` whose energy the sender pays by burning TRX (`energy_burn`'s
 * way: fee limit = the simulated energy × the energy price, plus a fifth). Each step's fee is its
 * bandwidth the sender's free bandwidth does not cover (counted down step by step), its energy, and
 * for TRX the creation of a recipient not on chain yet. TRON has no nonce: every step is stage 0,
 * broadcast together. Refused (`treasury_insufficient_value`) when the sender lacks the amounts, or
 * the TRX for every fee limit and bandwidth (and, for TRX, the amounts).
 */
export function planTronPayout(state: PayoutState): AccountPlanBuild {
  const { sender } = state;
  const ref = referenceBlock(state.block);
  const total = state.recipients.reduce((sum, r) => sum + r.units, 0n);
  if (sender.units < total) payoutShortfall(state.coin, total, sender.units, sender.address);
  let bandwidthLeft = sender.bandwidthLeft;
  const bandwidthSun = (tx: TronUnsignedTx): bigint => {
    const bytes = bandwidthBytes(tx.raw_data_hex);
    const cost = bandwidthCost(bytes, bandwidthLeft, state.prices);
    if (cost === 0n && bandwidthLeft !== undefined) bandwidthLeft -= bytes;
    return cost;
  };
  const created = new Set<string>();
  let trxNeeded = 0n;
  const steps: AccountStep[] = state.recipients.map((r, i) => {
    let tx: TronUnsignedTx;
    let fee: bigint;
    let description: string;
    const amount = `${fromBaseUnits(r.units, state.decimals)} ${state.coin}`;
    if (state.contract === undefined) {
      tx = trxTransfer(sender.address, r.address, r.units, ref);
      const creation = !r.exists && !created.has(r.address) ? accountCreationCost(state.prices) : 0n;
      created.add(r.address);
      fee = bandwidthSun(tx) + creation;
      trxNeeded += r.units + fee;
      description = `Pay ${amount} from ${sender.address} to ${r.address} (${r.reference})${creation > 0n ? ', creating its account' : ''}`;
    } else {
      const simulation = r.simulation!;
      if (simulation.reverted !== undefined)
        throw treasuryChainErrors.treasury_method_unavailable({
          message: `The node says the ${state.coin} transfer to ${r.address} (recipient ${i}) would fail: ${simulation.reverted}.`,
        });
      const feeLimit = feeLimitFor(simulation.energyUsed, state.prices);
      tx = trc20Transfer(sender.address, state.contract, r.address, r.units, feeLimit, ref);
      const bandwidth = bandwidthSun(tx);
      fee = energyCost(simulation.energyUsed, state.prices) + bandwidth;
      trxNeeded += feeLimit + bandwidth;
      description = `Pay ${amount} (token ${state.contract}) from ${sender.address} to ${r.address} (${r.reference}), ${simulation.energyUsed} energy burned`;
    }
    return {
      id: `payout-${i}`,
      round: 1,
      stage: 0,
      description,
      signer: sender.signer,
      kind: 'transaction',
      unsigned: { format: 'tron-tx', data: JSON.stringify(tx) },
      nonce: null,
      moves: { [state.coin]: r.units },
      feeUnits: fee,
      to: r.address,
    };
  });
  const trxHeld = sender.account?.balance ?? 0n;
  if (trxHeld < trxNeeded) payoutShortfall('trx', trxNeeded, trxHeld, sender.address);
  return payoutPlanBuild({
    coin: state.coin,
    recipients: state.recipients,
    steps,
    operator: state.operator,
    context: {
      method: 'payout',
      referenceBlock: state.block.height.toString(),
      referenceBlockId: state.block.blockId,
      expiration: ref.expiration,
      energyFeeSun: state.prices.energyFee.toString(),
      bandwidthFeeSun: state.prices.bandwidthFee.toString(),
      sender: sender.address,
      recipients: payoutRecipientsContext(state.recipients),
    },
  });
}
