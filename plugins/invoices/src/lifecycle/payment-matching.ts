import type { InvoiceStatus } from '../invoice-status.js';
import { TAKING_STATUSES } from './status-traits.js';

/**
 * Which invoice a receipt at an address pays (pure; spec 3.1 "not shown", decided here once for
 * the watchers and the sandbox alike):
 * 1. Only invoices created before the receipt first existed can be its target: a payment already on
 *    its way when an invoice was created was meant for someone else (a late payment for the
 *    address's previous invoice). It existed by the time the gateway first saw it (mempool or scan,
 *    the gateway's clock), and by its block's timestamp, which may lag by the chain's
 *    `blockTimeSkewSeconds`.
 * 2. Among the invoices there that take payments (TAKING_STATUSES): a memo
 *    equal to one's `payment_token` picks it; else a single one takes it; else (a shared, overlay
 *    address) the one pending invoice whose amount equals the receipt; several equal ones are
 *    `ambiguous` (the receipt waits in the orphan inbox).
 * 3. No invoice takes payments but the newest one there expired: a late payment of that invoice.
 * 4. Otherwise an orphan.
 */

/** What matching needs of a candidate invoice. */
export interface MatchCandidate {
  readonly id: string;
  readonly status: InvoiceStatus;
  readonly amountUnits: bigint;
  readonly paymentToken: string;
  readonly createdAt: Date;
}

/** What matching needs of a receipt. */
export interface MatchReceipt {
  readonly amountUnits: bigint;
  readonly memo?: string | undefined;
  /** When the gateway first saw it. */
  readonly firstSeenAt: Date;
  /** Its block's timestamp (null in the mempool). */
  readonly blockTime: Date | null;
  /** How far that timestamp may lag (ms). */
  readonly blockTimeSkewMs: number;
}

export type MatchDecision =
  | { readonly kind: 'invoice'; readonly invoiceId: string }
  | { readonly kind: 'late'; readonly invoiceId: string }
  | { readonly kind: 'ambiguous'; readonly invoiceIds: readonly string[] }
  | { readonly kind: 'orphan' };

/** `candidates` newest first (as the candidate lookup returns them). */
export function matchPayment(candidates: readonly MatchCandidate[], receipt: MatchReceipt): MatchDecision {
  const existedBy = Math.min(receipt.firstSeenAt.getTime(), receipt.blockTime === null ? Infinity : receipt.blockTime.getTime() + receipt.blockTimeSkewMs);
  const eligible = candidates.filter((c) => c.createdAt.getTime() <= existedBy);
  const taking = eligible.filter((c) => TAKING_STATUSES.includes(c.status));
  const memo = receipt.memo?.trim().toLowerCase();
  if (memo) {
    const byToken = taking.filter((c) => c.paymentToken === memo);
    if (byToken.length === 1) return { kind: 'invoice', invoiceId: byToken[0]!.id };
  }
  if (taking.length === 1) return { kind: 'invoice', invoiceId: taking[0]!.id };
  if (taking.length > 1) {
    const exact = taking.filter((c) => c.status === 'pending' && c.amountUnits === receipt.amountUnits);
    if (exact.length === 1) return { kind: 'invoice', invoiceId: exact[0]!.id };
    if (exact.length > 1) return { kind: 'ambiguous', invoiceIds: exact.map((c) => c.id) };
    return { kind: 'orphan' };
  }
  const expired = eligible.find((c) => c.status === 'expired');
  if (expired) return { kind: 'late', invoiceId: expired.id };
  return { kind: 'orphan' };
}
