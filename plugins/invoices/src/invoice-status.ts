/** Invoice statuses (spec 3.1), `ambiguous` included (the later variant). */
export const INVOICE_STATUSES = [
  'pending',
  'detected',
  'paid',
  'overpaid',
  'partial',
  'expired',
  'expired_paid_late',
  'reverted',
  'cancelled',
  'ambiguous',
] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];


/** Statuses a cancel may leave (spec 3.1: pending and detected only). */
export const CANCELLABLE_STATUSES: readonly InvoiceStatus[] = ['pending', 'detected'];


/**
 * Statuses in which an invoice still waits for money (the sandbox's "active" and "non-terminal")
 * and holds its deposit address. A transition out of them releases the address into the pool's
 * cooldown (late payments still land on a quiet address).
 */
export const WAITING_STATUSES: readonly InvoiceStatus[] = ['pending', 'detected', 'partial', 'ambiguous'];

/** Statuses in which money arrived: entering one records the payment on the pool address. */
export const PAID_STATUSES: readonly InvoiceStatus[] = ['paid', 'overpaid', 'expired_paid_late'];
