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

// Subsets of statuses are derived from the lifecycle (lifecycle/status-traits.ts), never listed here.
