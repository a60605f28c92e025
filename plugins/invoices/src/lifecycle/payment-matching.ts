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
 *
 * On a chain with payment references (one recipient for every invoice, issue 43) the address tells
 * nothing; `matchReferencedPayment` decides instead.
 */

/** What matching needs of a candidate invoice. */
export interface MatchCandidate {
  readonly id: string;
  readonly status: InvoiceStatus;
  readonly amountUnits: bigint;
  readonly paymentToken: string;
  readonly createdAt: Date;
  /** Its payment reference (chains with payment references). */
  readonly paymentReference?: string | null;
  /** Its matching mode (read on chains with payment references, where only `exact` invoices are matched by amount). */
  readonly matchingMode?: 'exact' | 'at_least' | 'any';
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
  /** The references the transfer carries (chains with payment references). */
  readonly references?: readonly string[] | undefined;
}

export type MatchDecision =
  | { readonly kind: 'invoice'; readonly invoiceId: string }
  | { readonly kind: 'late'; readonly invoiceId: string }
  | { readonly kind: 'ambiguous'; readonly invoiceIds: readonly string[] }
  | { readonly kind: 'orphan' };

/** `candidates` newest first (as the candidate lookup returns them). */
export function matchPayment(candidates: readonly MatchCandidate[], receipt: MatchReceipt): MatchDecision {
  const eligible = existedBefore(candidates, receipt);
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

/** The candidates created before the receipt first existed (rule 1). */
function existedBefore(candidates: readonly MatchCandidate[], receipt: MatchReceipt): MatchCandidate[] {
  const existedBy = Math.min(receipt.firstSeenAt.getTime(), receipt.blockTime === null ? Infinity : receipt.blockTime.getTime() + receipt.blockTimeSkewMs);
  return candidates.filter((c) => c.createdAt.getTime() <= existedBy);
}

/**
 * Which invoice a receipt pays on a chain with payment references (issue 43; docs/decisions.md,
 * "Issue 43"), where every invoice of a project pays the one recipient address and the reference
 * tells them apart. `candidates` (newest first) are the invoices of the receipt's project, recipient
 * and coin whose `payment_reference` is one of the receipt's references, and the pending `exact`
 * ones whose amount equals the receipt's.
 * 1. Only invoices created before the receipt first existed (as `matchPayment`).
 * 2. An invoice whose reference the receipt carries: it takes the receipt when it takes payments;
 *    an expired one hears a late payment; any other is no target (the receipt is an orphan). Two
 *    such invoices taking payments (a payer who put two invoices' references in one transfer) make
 *    the receipt `ambiguous`.
 * 3. No reference of ours (an exchange withdrawal carries none): the one `pending` invoice in
 *    `exact` mode whose amount equals the receipt's; several are `ambiguous`; none, an orphan. An
 *    `at_least` or `any` invoice is paid by reference only: an amount cannot name it.
 */
export function matchReferencedPayment(candidates: readonly MatchCandidate[], receipt: MatchReceipt): MatchDecision {
  const eligible = existedBefore(candidates, receipt);
  const references = new Set(receipt.references ?? []);
  const referenced = eligible.filter((c) => c.paymentReference != null && references.has(c.paymentReference));
  if (referenced.length > 0) {
    const taking = referenced.filter((c) => TAKING_STATUSES.includes(c.status));
    if (taking.length === 1) return { kind: 'invoice', invoiceId: taking[0]!.id };
    if (taking.length > 1) return { kind: 'ambiguous', invoiceIds: taking.map((c) => c.id) };
    const expired = referenced.find((c) => c.status === 'expired');
    return expired ? { kind: 'late', invoiceId: expired.id } : { kind: 'orphan' };
  }
  const exact = eligible.filter((c) => c.status === 'pending' && c.matchingMode === 'exact' && c.amountUnits === receipt.amountUnits);
  if (exact.length === 1) return { kind: 'invoice', invoiceId: exact[0]!.id };
  if (exact.length > 1) return { kind: 'ambiguous', invoiceIds: exact.map((c) => c.id) };
  return { kind: 'orphan' };
}
