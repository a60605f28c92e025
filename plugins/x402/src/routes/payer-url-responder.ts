import { networkFor, type Actor, type ChainRegistry, type MachinePaymentResponder, type Payable, type RouteResult } from '@gw/kernel';
import type { InvoiceService, InvoiceView } from '@gw/plugin-invoices/contract';
import type { CheckoutSessions, SessionView } from '@gw/plugin-sessions/contract';
import type { Context } from 'koa';
import type { X402Config } from '../config.js';
import { decodeX402Header, encodeX402Header } from '../protocol/headers.js';
import { X402_HEADERS, X402_VERSION, type PaymentRequired, type ResourceInfo, type SettleResponse } from '../protocol/messages.js';
import { X402_REASONS } from '../protocol/reasons.js';
import type { PaymentTarget } from '../services/payment-target.js';
import type { X402Networks } from '../services/x402-networks.js';
import type { X402Payments } from '../services/x402-payments.js';

/** The services the payer URLs' x402 answers read. */
export const PAYER_URL_RESPONDER_DEPS = ['x402Config', 'x402Payments', 'x402Networks', 'invoicesService', 'sessionsCheckout', 'chains'] as const;

interface ResponderDeps {
  readonly x402Config: X402Config;
  readonly x402Payments: X402Payments;
  readonly x402Networks: X402Networks;
  readonly invoicesService: InvoiceService;
  readonly sessionsCheckout: CheckoutSessions;
  readonly chains: ChainRegistry;
}

const HTML = /text\/html/i;
/** A coin id as `?coin=` names one (bounded: anything else names no coin). */
const COIN = /^[a-z0-9_]{1,40}$/;

/** The body of a settled payment (200), next to its `PAYMENT-RESPONSE`. */
export interface X402PaymentBody {
  readonly object: 'x402_payment';
  readonly invoice_id: string;
  readonly session_id?: string;
  /** The invoice's status now: it turns paid when the watchers see the transfer, not on the settlement's word. */
  readonly status: string;
  readonly transaction: string;
  readonly network: string;
  readonly payer: string | undefined;
}

/** The invoice a payer URL's payment pays now, with what it asks for. */
interface Offer {
  readonly invoice: InvoiceView;
  readonly required: PaymentRequired;
  readonly target: PaymentTarget;
  readonly sessionId?: string;
}

/** What a payer URL stands for to x402: its offer, or none (then the page, or a payment's refusal naming the resource). */
interface Asked {
  readonly resource: ResourceInfo;
  readonly offer?: Offer | undefined;
}

/**
 * The payer URLs' x402 answers (issue 41, "HTTP: payer URLs"): an invoice's checkout URL and a
 * session's page URL are x402 resources themselves. A client that does not ask for HTML (or sends
 * `PAYMENT-SIGNATURE`) gets 402 with the invoice's requirements (`PAYMENT-REQUIRED`, and the same
 * JSON as the body); its payment is verified, then settled into the invoice's own address (200 with
 * `PAYMENT-RESPONSE`); a refusal is 402 with the reason as the requirements' `error`. A session's
 * URL answers for its current invoice, or picks `?coin=` (an allowed, payable coin), or the first
 * allowed payable coin when nothing is picked yet. What cannot be paid with x402 falls through to
 * the page, except a payment, which is refused (402 `invalid_payment_requirements`, no `accepts`).
 */
export function payerUrlResponder(deps: ResponderDeps): MachinePaymentResponder {
  return {
    id: 'x402',
    claims(ctx) {
      if (deps.x402Config.settlement === 'off' || ctx.method !== 'GET') return false;
      return ctx.get(X402_HEADERS.signature) !== '' || !HTML.test(ctx.get('accept'));
    },
    async answer(ctx, payable) {
      const paying = ctx.get(X402_HEADERS.signature) !== '';
      const asked = payable.kind === 'invoice' ? await invoiceOffer(deps, payable) : await sessionOffer(deps, ctx, payable, paying);
      if (!asked?.offer) return paying && asked ? refused(asked.resource) : undefined;
      if (!paying) return paymentRequired(asked.offer.required);
      return pay(deps, ctx, asked.offer);
    },
  };
}

async function invoiceOffer(deps: ResponderDeps, payable: Extract<Payable, { kind: 'invoice' }>): Promise<Asked> {
  const invoice = await deps.invoicesService.get(payable.projectId, payable.invoiceId);
  const resource: ResourceInfo = { url: invoice.checkout_url, description: `Invoice ${invoice.id}`, mimeType: 'application/json' };
  const required = await deps.x402Payments.requirementsFor(invoice, resource);
  return { resource, offer: required && { invoice, required, target: { projectId: invoice.project_id, invoiceId: invoice.id, source: 'invoice' } } };
}

/**
 * A session's invoice to pay: the current one when x402 can pay it; else, never with a payment
 * (which pays the current invoice or nothing), `?coin=` or, before any pick, the first allowed
 * payable coin, picked as the payer's page picks it. A current invoice of another coin without
 * `?coin=` is the page's (the payer chose that coin there).
 */
async function sessionOffer(deps: ResponderDeps, ctx: Context, payable: Extract<Payable, { kind: 'session' }>, paying: boolean): Promise<Asked | undefined> {
  const found = await deps.sessionsCheckout.byToken(payable.token);
  if (!found) return undefined;
  const session = found.session;
  const resource: ResourceInfo = { url: session.url, description: `Checkout session ${session.id}`, mimeType: 'application/json' };
  if (session.invoice_id !== null) {
    const current = await sessionInvoiceOffer(deps, session, session.invoice_id, resource);
    if (current || paying) return { resource, offer: current };
  }
  if (paying || session.status !== 'open') return { resource };
  const asked = typeof ctx.query['coin'] === 'string' && COIN.test(ctx.query['coin']) ? ctx.query['coin'] : undefined;
  if (session.invoice_id !== null && asked === undefined) return { resource };
  const coin = asked !== undefined ? ((await payableCoin(deps, session, asked)) ? asked : undefined) : await firstPayableCoin(deps, session);
  if (coin === undefined) return { resource };
  const requestId = String(ctx.state['requestId'] ?? '');
  const actor: Actor = { actor: 'x402', channel: 'rest', ...(requestId === '' ? {} : { requestId }) };
  const picked = await deps.sessionsCheckout.pick(
    payable.token,
    session.allowed_coins.find((c) => c === coin)!,
    actor,
  );
  const invoiceId = picked.session.invoice_id;
  return { resource, offer: invoiceId === null ? undefined : await sessionInvoiceOffer(deps, picked.session, invoiceId, resource) };
}

async function sessionInvoiceOffer(deps: ResponderDeps, session: SessionView, invoiceId: string, resource: ResourceInfo): Promise<Offer | undefined> {
  const invoice = await deps.invoicesService.get(session.project_id, invoiceId);
  const required = await deps.x402Payments.requirementsFor(invoice, resource);
  return (
    required && {
      invoice,
      required,
      target: { projectId: session.project_id, invoiceId: invoice.id, source: 'session' },
      sessionId: session.id,
    }
  );
}

/** Whether the session offers `coin` and x402 can pay it on the network of the session's project kind (never a sandbox's). */
async function payableCoin(deps: ResponderDeps, session: SessionView, coin: string): Promise<boolean> {
  if (session.mode === 'sandbox') return false;
  if (!(session.allowed_coins as readonly string[]).includes(coin) || !(deps.chains.coinIds() as readonly string[]).includes(coin)) return false;
  const network = networkFor(deps.chains.coin(coin).adapter.definition, session.mode);
  return (await deps.x402Networks.asset(coin, network.id)) !== undefined;
}

async function firstPayableCoin(deps: ResponderDeps, session: SessionView): Promise<string | undefined> {
  for (const coin of session.allowed_coins) if (await payableCoin(deps, session, coin)) return coin;
  return undefined;
}

/**
 * Verifies the payment against the offer once, then settles what was verified: a refused
 * verification is the requirements with its reason; a settlement's failure carries its
 * `PAYMENT-RESPONSE` too.
 */
async function pay(deps: ResponderDeps, ctx: Context, offer: Offer): Promise<RouteResult> {
  const requirements = offer.required.accepts[0]!;
  const payload = decodeX402Header(ctx.get(X402_HEADERS.signature));
  if (!payload) return paymentRequired({ ...offer.required, error: X402_REASONS.payload });
  const { response: verified, payment } = await deps.x402Payments.verification(payload, requirements, offer.target);
  if (!payment) return paymentRequired({ ...offer.required, error: verified.invalidReason ?? X402_REASONS.verify });
  const settled = await deps.x402Payments.settleVerified(payment);
  if (!settled.success) return paymentRequired({ ...offer.required, error: settled.errorReason ?? X402_REASONS.settle }, settled);
  const now = await deps.invoicesService.get(offer.target.projectId, offer.invoice.id);
  const body: X402PaymentBody = {
    object: 'x402_payment',
    invoice_id: now.id,
    ...(offer.sessionId === undefined ? {} : { session_id: offer.sessionId }),
    status: now.status,
    transaction: settled.transaction,
    network: settled.network,
    payer: settled.payer ?? verified.payer,
  };
  return { status: 200, headers: { ...ANSWER_HEADERS, [X402_HEADERS.response]: encodeX402Header(settled) }, body };
}

/** A payment to a payer URL x402 cannot pay now (a paid or expired invoice, a coin without EIP-3009): nothing to accept. */
function refused(resource: ResourceInfo): RouteResult {
  return paymentRequired({ x402Version: X402_VERSION, error: X402_REASONS.requirements, resource, accepts: [] });
}

const ANSWER_HEADERS = { 'Cache-Control': 'no-store', Vary: 'Accept', 'Content-Type': 'application/json; charset=utf-8' } as const;

/** 402: the requirements in `PAYMENT-REQUIRED` and as the body; a failed settlement's `PAYMENT-RESPONSE` too. */
function paymentRequired(required: PaymentRequired, settled?: SettleResponse): RouteResult {
  const headers: Record<string, string> = { ...ANSWER_HEADERS, [X402_HEADERS.required]: encodeX402Header(required) };
  if (settled) headers[X402_HEADERS.response] = encodeX402Header(settled);
  return { status: 402, headers, body: required };
}
