import type { Actor, ProjectPrincipal } from '@gw/kernel';
import type { InvoiceView } from '@gw/plugin-invoices/contract';
import type { PaymentRequirements, ResourceInfo } from '../protocol/messages.js';
import type { PaymentTarget } from './payment-target.js';

/** A fresh payTo asked for: a partner's paid call (facilitator) or a paid MCP tool's call. */
export interface OfferInput {
  readonly coin: string;
  /** The price in the coin, decimal string. */
  readonly amount: string;
  readonly resource: ResourceInfo;
  readonly source: 'facilitator' | 'tool';
  readonly tool?: string;
}

/**
 * Fresh payTo addresses (issue 41, "a facilitator for partners' own APIs"): each is an ordinary
 * invoice of the project (external id `x402_<offer id>`, expiring with the validity window), so a
 * paid call gets the invoice's webhooks and shows in the treasury like any payment. At most
 * `payToPerMinute` per project (429 `rate_limit_exceeded`).
 */
export interface X402Offers {
  create(project: ProjectPrincipal, input: OfferInput, actor: Actor): Promise<{ readonly invoice: InvoiceView; readonly requirements: PaymentRequirements }>;
  /** The offer whose network and payTo the requirement names, in the project, as a payment target; undefined when none. */
  target(projectId: string, requirements: PaymentRequirements): Promise<PaymentTarget | undefined>;
}
