import { INVOICE_STATUSES, type InvoiceStatus } from '../invoice-status.js';
import { statusesAccepting, statusesLeaving, statusesReachedBy } from './transition-table.js';

/**
 * What is true of each status beyond the moves of the transition table, and every status subset
 * the gateway uses, derived from these traits or from the table. Nothing else lists statuses: a
 * subset is asked for (`statusesWhere`, `statusesReaching`, ...) so it cannot drift from the table.
 */

/** The traits the table does not say, one row per status. */
interface DeclaredTraits {
  /**
   * The invoice still waits for money and holds its deposit address (spec 3.1 "non-terminal"); a
   * move out of it releases the address into the pool's cooldown.
   */
  readonly open: boolean;
  /** Money arrived as payment: entering the status records the payment on the pool address. */
  readonly paid: boolean;
  /** The deadline passed first: payments now are late. */
  readonly pastDeadline: boolean;
}

const DECLARED: Readonly<Record<InvoiceStatus, DeclaredTraits>> = {
  pending: { open: true, paid: false, pastDeadline: false },
  detected: { open: true, paid: false, pastDeadline: false },
  paid: { open: false, paid: true, pastDeadline: false },
  overpaid: { open: false, paid: true, pastDeadline: false },
  partial: { open: true, paid: false, pastDeadline: false },
  expired: { open: false, paid: false, pastDeadline: true },
  expired_paid_late: { open: false, paid: true, pastDeadline: true },
  reverted: { open: false, paid: false, pastDeadline: false },
  cancelled: { open: false, paid: false, pastDeadline: false },
  ambiguous: { open: true, paid: false, pastDeadline: false },
};

export interface StatusTraits extends DeclaredTraits {
  /** A settlement enters the status: it counts the invoice's transfers (read off the table). */
  readonly settled: boolean;
}

const SETTLED = statusesReachedBy('payment_confirmed');

/** The traits of every status. */
export const STATUS_TRAITS: Readonly<Record<InvoiceStatus, StatusTraits>> = Object.fromEntries(
  INVOICE_STATUSES.map((status) => [status, { ...DECLARED[status], settled: SETTLED.includes(status) }]),
) as Record<InvoiceStatus, StatusTraits>;

/** The statuses of `among` (all by default) that have every trait value of `traits`, in the order of INVOICE_STATUSES. */
export function statusesWhere(traits: Partial<StatusTraits>, among: readonly InvoiceStatus[] = INVOICE_STATUSES): readonly InvoiceStatus[] {
  const entries = Object.entries(traits) as [keyof StatusTraits, boolean][];
  return INVOICE_STATUSES.filter((status) => among.includes(status) && entries.every(([trait, value]) => STATUS_TRAITS[status][trait] === value));
}

/** Statuses in which an invoice still waits for money and holds its address (the sandbox's "active" and "non-terminal"). */
export const WAITING_STATUSES = statusesWhere({ open: true });

/** Statuses after which nothing more is waited for (the payer's page stops following the invoice). */
export const TERMINAL_STATUSES = statusesWhere({ open: false });

/** Statuses in which money arrived: entering one records the payment on the pool address. */
export const PAID_STATUSES = statusesWhere({ paid: true });

/** Statuses that count the invoice's transfers (a settlement entered them). */
export const SETTLED_STATUSES = statusesWhere({ settled: true });

/** Statuses a cancel may leave (spec 3.1). */
export const CANCELLABLE_STATUSES = statusesAccepting('cancel_requested');

/** Statuses whose transfers may still settle something; transfers of the others stop being counted. */
export const SETTLEABLE_STATUSES = statusesLeaving('payment_confirmed');

/** Statuses the deadline ends (the expiry job's query). */
export const EXPIRING_STATUSES = statusesLeaving('deadline_passed');

/** Statuses in which an invoice takes a new payment at its address (a payment after the deadline is a late one instead). */
export const TAKING_STATUSES = statusesWhere({ pastDeadline: false }, statusesAccepting('payment_seen'));

/** Invoices a receipt at their address may concern: those waiting, and those accepting a payment (taking or late). */
export const MATCH_CANDIDATE_STATUSES = INVOICE_STATUSES.filter(
  (status) => WAITING_STATUSES.includes(status) || statusesAccepting('payment_seen').includes(status),
);
