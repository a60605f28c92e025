import type { ItemStatus, ItemView } from '@gw/plugin-payouts/contract';

/** BTCPay's `PayoutState`. */
export type PayoutState = 'AwaitingApproval' | 'AwaitingPayment' | 'InProgress' | 'Completed' | 'Cancelled';

/**
 * The payout state of a refund that was claimed (a refund awaiting its claim has no payout yet, as
 * a pull payment nobody claimed from). Approved or in a plan not yet broadcast: awaiting payment;
 * broadcast: in progress; a failed payment (the plan failed or left the chain) is cancelled, as
 * BTCPay cancels a payout it will not pay.
 */
export const PAYOUT_STATE_OF: Readonly<Record<Exclude<ItemStatus, 'awaiting_claim'>, PayoutState>> = {
  claimed: 'AwaitingApproval',
  pending_approval: 'AwaitingApproval',
  approved: 'AwaitingPayment',
  batched: 'AwaitingPayment',
  sent: 'InProgress',
  completed: 'Completed',
  failed: 'Cancelled',
  cancelled: 'Cancelled',
};

/** BTCPay's `PullPaymentData` as this gateway answers it (no Lightning: `BOLT11Expiration` is BTCPay's default). */
export interface PullPaymentData {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly currency: string;
  /** Decimal string. */
  readonly amount: string;
  readonly BOLT11Expiration: string;
  readonly autoApproveClaims: boolean;
  readonly archived: boolean;
  readonly viewLink: string;
  /** Unix seconds. */
  readonly startsAt: number;
  readonly expiresAt: null;
}

/** BTCPay's `PayoutData`. */
export interface PayoutData {
  readonly id: string;
  readonly revision: number;
  readonly pullPaymentId: string;
  /** Unix seconds as a decimal string, as BTCPay's document and PHP client read it. */
  readonly date: string;
  readonly destination: string;
  readonly originalCurrency: string;
  readonly originalAmount: string;
  readonly payoutCurrency: string;
  readonly payoutAmount: string;
  readonly payoutMethodId: string;
  readonly state: PayoutState;
  /** Once a transaction pays it (BTCPay's on-chain proof); absent before. */
  readonly paymentProof?: { readonly proofType: string; readonly transactionId: string; readonly candidates: readonly string[] };
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** One stored pull payment (`btcpay_pull_payments`), as its views need it. */
export interface PullPaymentRow {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly currency: string;
  readonly amount: string;
  readonly created_at: Date;
}

/** BTCPay's default `BOLT11Expiration`, in days (meaningless here: no Lightning). */
const BOLT11_EXPIRATION_DAYS = '30';

/**
 * The pull payment of a refund. Refunds always wait for an administrator's approval, whatever the
 * key may do (`autoApproveClaims: false`); a cancelled refund is an archived pull payment (BTCPay
 * archives a pull payment by cancelling what it has not paid).
 */
export function pullPaymentData(row: PullPaymentRow, refund: ItemView, viewLink: string): PullPaymentData {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    currency: row.currency,
    amount: row.amount,
    BOLT11Expiration: BOLT11_EXPIRATION_DAYS,
    autoApproveClaims: false,
    archived: refund.status === 'cancelled',
    viewLink,
    startsAt: Math.floor(row.created_at.getTime() / 1000),
    expiresAt: null,
  };
}

/**
 * The payout of a claimed refund (undefined before its claim): the refund's id, the address the
 * payer claimed to, the pull payment's amount as originally stated and the coin amount paid, and
 * the transaction once there is one.
 */
export function payoutData(row: PullPaymentRow, refund: ItemView, coinCode: string, payoutMethodId: string): PayoutData | undefined {
  if (refund.status === 'awaiting_claim' || refund.address === null) return undefined;
  const claimedAt = refund.claimed_at_iso ?? refund.created_at_iso;
  return {
    id: refund.id,
    revision: 0,
    pullPaymentId: row.id,
    date: String(Math.floor(Date.parse(claimedAt) / 1000)),
    destination: refund.address,
    originalCurrency: row.currency,
    originalAmount: row.amount,
    payoutCurrency: coinCode,
    payoutAmount: refund.amount,
    payoutMethodId,
    state: PAYOUT_STATE_OF[refund.status],
    ...(refund.txid === null ? {} : { paymentProof: { proofType: 'PayoutTransactionOnChainBlob', transactionId: refund.txid, candidates: [refund.txid] } }),
    metadata: {},
  };
}
