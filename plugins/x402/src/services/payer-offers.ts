import type { Actor } from '@gw/kernel';
import type { InvoiceService, InvoiceView } from '@gw/plugin-invoices/contract';
import type { CheckoutSessions, SessionView } from '@gw/plugin-sessions/contract';
import type { PaymentRequired, ResourceInfo } from '../protocol/messages.js';
import type { X402Networks } from './x402-networks.js';
import type { X402Payments } from './x402-payments.js';

/** What a payer URL offers an x402 client: the invoice it pays and that invoice's requirements at the URL. */
export interface PayerOffer {
  /** The payer URL, as x402 names what is paid for. */
  readonly resource: ResourceInfo;
  readonly invoice: InvoiceView;
  /** Undefined when x402 cannot pay the invoice now (a coin without EIP-3009 here, nothing due, no longer accepting payments). */
  readonly required: PaymentRequired | undefined;
}

/** An invoice's checkout URL as an x402 resource. */
export function invoiceResource(invoice: InvoiceView): ResourceInfo {
  return { url: invoice.checkout_url, description: `Invoice ${invoice.id}`, mimeType: 'application/json' };
}

/** A checkout session's page URL as an x402 resource. */
export function sessionResource(session: SessionView): ResourceInfo {
  return { url: session.url, description: `Checkout session ${session.id}`, mimeType: 'application/json' };
}

/**
 * The payer URLs' offers (issue 41, "HTTP: payer URLs", "MCP"): what an invoice's checkout URL or a
 * checkout session's page asks an x402 client to pay, and which coins of a session x402 can pay.
 * The payer URLs' answers and `get_x402_requirements` read them alike; they differ only in what they
 * answer when there is nothing to offer (the page, or an error naming why).
 */
export class PayerOffers {
  constructor(
    private readonly deps: {
      invoicesService: InvoiceService;
      sessionsCheckout: CheckoutSessions;
      x402Networks: X402Networks;
      x402Payments: X402Payments;
    },
  ) {}

  /** An invoice's offer at its checkout URL; 404 `invoice_not_found`. */
  async invoice(projectId: string, invoiceId: string): Promise<PayerOffer> {
    const invoice = await this.deps.invoicesService.get(projectId, invoiceId);
    return this.offer(invoice, invoiceResource(invoice));
  }

  /** The offer of one of a session's invoices (its current one, `session.invoice_id`) at the session's page URL. */
  async sessionInvoice(session: SessionView, invoiceId: string): Promise<PayerOffer> {
    return this.offer(await this.deps.invoicesService.get(session.project_id, invoiceId), sessionResource(session));
  }

  /**
   * Picks `coin` for the session of the page `token` as its payer's page does (a previous pick's
   * unpaid invoice is cancelled; the same coin again keeps the current invoice): the offer of the
   * invoice the session has then. The sessions' errors: 422 `coin_not_allowed`, 409
   * `checkout_session_closed`, 409 `checkout_session_payment_in_progress`.
   */
  async pick(token: string, coin: string, actor: Actor): Promise<PayerOffer> {
    const { session } = await this.deps.sessionsCheckout.pick(token, coin, actor);
    if (session.invoice_id === null) throw new Error(`checkout session ${session.id}: a pick left it without an invoice`);
    return this.sessionInvoice(session, session.invoice_id);
  }

  /** Whether the session allows `coin` and x402 can pay it on the network of the session's project kind (never a sandbox's). */
  async payableCoin(session: SessionView, coin: string): Promise<boolean> {
    if (!(session.allowed_coins as readonly string[]).includes(coin)) return false;
    return (await this.deps.x402Networks.assetFor(coin, session.mode)) !== undefined;
  }

  /** The first coin the session allows (in its order) that x402 can pay; undefined when none. */
  async firstPayableCoin(session: SessionView): Promise<string | undefined> {
    for (const coin of session.allowed_coins) if (await this.payableCoin(session, coin)) return coin;
    return undefined;
  }

  private async offer(invoice: InvoiceView, resource: ResourceInfo): Promise<PayerOffer> {
    return { resource, invoice, required: await this.deps.x402Payments.requirementsFor(invoice, resource) };
  }
}
