/** How a requirement came about: an invoice's or session's URL, a partner's facilitator call, a paid MCP tool. */
export type PaymentSource = 'invoice' | 'session' | 'facilitator' | 'tool';

/** The invoice a payment pays: every x402 payment here is an invoice's, whose address is the requirement's `payTo`. */
export interface PaymentTarget {
  readonly projectId: string;
  readonly invoiceId: string;
  readonly source: PaymentSource;
}
