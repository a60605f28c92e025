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

/** Statuses in which an invoice still waits for money and holds its deposit address. */
export const OPEN_STATUSES: readonly InvoiceStatus[] = ['pending', 'detected'];

/** Statuses a cancel may leave (spec 3.1: pending and detected only). */
export const CANCELLABLE_STATUSES: readonly InvoiceStatus[] = ['pending', 'detected'];

export function isOpen(status: InvoiceStatus): boolean {
  return OPEN_STATUSES.includes(status);
}
