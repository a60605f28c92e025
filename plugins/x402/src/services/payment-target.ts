/** How a requirement came about: an invoice's or session's URL, a partner's facilitator call, a paid MCP tool. */
export const PAYMENT_SOURCES = ['invoice', 'session', 'facilitator', 'tool'] as const;
export type PaymentSource = (typeof PAYMENT_SOURCES)[number];

/** The invoice a payment pays: every x402 payment here is an invoice's, whose address is the requirement's `payTo`. */
export interface PaymentTarget {
  readonly projectId: string;
  readonly invoiceId: string;
  readonly source: PaymentSource;
}
