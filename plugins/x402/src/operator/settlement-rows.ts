import { fromBaseUnits, type ChainRegistry } from '@gw/kernel';
import type { SettlementView } from '../services/x402-settlements.js';
import { nativeAmount, type NativeAmount } from './native-amount.js';

/**
 * A settlement's status (`x402_settlements.status`): `submitted` (being sent, its row's transaction
 * open), `settled` (mined, the transfer logged), `pending` (sent, not mined within
 * `receiptWaitSeconds`: the watchers credit it when it is), `failed` (reverted).
 */
export const SETTLEMENT_STATUSES = ['submitted', 'settled', 'pending', 'failed'] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

/** A settlement as the operator reads it: the row, its amount in the coin, its gas in the native coin. */
export interface SettlementRow extends SettlementView {
  /** The amount paid, decimal string in the coin. */
  readonly amount: string;
  /** What the gas wallet signed for (gas limit × max fee); null for an external facilitator's. */
  readonly spend: NativeAmount | null;
}

export function settlementRow(chains: ChainRegistry, view: SettlementView): SettlementRow {
  const coin = chains.knownCoin(view.coin);
  return {
    ...view,
    amount: coin ? fromBaseUnits(BigInt(view.amount_units), coin.decimals) : view.amount_units,
    spend: view.spend_units === null ? null : nativeAmount(chains, view.chain, view.spend_units),
  };
}
