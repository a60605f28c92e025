import type { Actor, CoinId } from '@gw/kernel';
import type { InvoiceService, InvoiceView } from '@gw/plugin-invoices/contract';
import type { CheckoutSessions, SessionView } from '@gw/plugin-sessions/contract';
import type { PaymentRequired, ResourceInfo } from '../protocol/messages.js';
import type { X402Asset, X402Networks } from './x402-networks.js';
import type { X402Payments } from './x402-payments.js';

/** What a payer URL offers an x402 client: the invoice it pays and that invoice's requirements at the URL. */
export interface PayerOffer {
  /** The payer URL, as x402 names what is paid for. */
  readonly resource: ResourceInfo;
  readonly invoice: InvoiceView;
  /** Undefined when x402 cannot pay the invoice now (a coin without EIP-3009 here, nothing due, no longer accepting payments). */
  readonly required: PaymentRequired | undefined;
}

/** What `PayerOffers.coinChoice` decides for a checkout session. */
export type SessionCoinChoice =
  /** The current invoice, of a coin x402 can pay. */
  | { readonly kind: 'current'; readonly coin: CoinId; readonly invoiceId: string }
  /** No invoice yet: pick this coin (allowed, payable). */
  | { readonly kind: 'pick'; readonly coin: CoinId }
  /** The current invoice is of a coin x402 cannot pay (the payer picked it on the page). */
  | { readonly kind: 'current_unpayable'; readonly coin: CoinId }
  /** No invoice yet, and `asked` is not an allowed coin x402 can pay. */
  | { readonly kind: 'asked_unpayable'; readonly coin: string }
  /** No invoice yet, and nothing to pick: the session is not open, or no allowed coin is payable. */
  | { readonly kind: 'none' };

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

  /**
   * Which invoice of a checkout session x402 answers for (docs/decisions.md, "x402: one requirement
   * per 402"); the payer URL and `get_x402_requirements` decide alike. A request never switches a
   * session's coin: the current invoice when x402 can pay its coin; only a session without an
   * invoice gets a pick (`asked` when it names an allowed payable coin, else the first allowed
   * payable coin). Never a sandbox session's coin (its payments are simulated).
   */
  async coinChoice(session: SessionView, asked: string | undefined): Promise<SessionCoinChoice> {
    if (session.invoice_id !== null && session.coin !== null) {
      return (await this.payable(session, session.coin))
        ? { kind: 'current', coin: session.coin, invoiceId: session.invoice_id }
        : { kind: 'current_unpayable', coin: session.coin };
    }
    if (session.status !== 'open') return { kind: 'none' };
    if (asked !== undefined) {
      const allowed = session.allowed_coins.find((coin) => coin === asked);
      return allowed !== undefined && (await this.payable(session, allowed)) ? { kind: 'pick', coin: allowed } : { kind: 'asked_unpayable', coin: asked };
    }
    for (const coin of session.allowed_coins) if (await this.payable(session, coin)) return { kind: 'pick', coin };
    return { kind: 'none' };
  }

  /** The session's allowed coins x402 can pay, in its order, with their assets (none for a sandbox session). */
  async payableAssets(session: SessionView): Promise<X402Asset[]> {
    const assets: X402Asset[] = [];
    for (const coin of session.allowed_coins) {
      const asset = await this.deps.x402Networks.assetFor(coin, session.mode);
      if (asset) assets.push(asset);
    }
    return assets;
  }

  private async payable(session: SessionView, coin: string): Promise<boolean> {
    return (await this.deps.x402Networks.assetFor(coin, session.mode)) !== undefined;
  }

  private async offer(invoice: InvoiceView, resource: ResourceInfo): Promise<PayerOffer> {
    return { resource, invoice, required: await this.deps.x402Payments.requirementsFor(invoice, resource) };
  }
}
