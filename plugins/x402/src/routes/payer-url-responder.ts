import type { Actor, MachinePaymentResponder, Payable, RouteResult } from '@gw/kernel';
import type { InvoiceService, InvoiceView } from '@gw/plugin-invoices/contract';
import type { CheckoutSessions } from '@gw/plugin-sessions/contract';
import type { Context } from 'koa';
import type { X402Config } from '../config.js';
import { decodeX402Header, encodeX402Header } from '../protocol/headers.js';
import { X402_HEADERS, X402_VERSION, type PaymentRequired, type ResourceInfo, type SettleResponse } from '../protocol/messages.js';
import { X402_REASONS } from '../protocol/reasons.js';
import { sessionResource, type PayerOffer, type PayerOffers } from '../services/payer-offers.js';
import type { PaymentTarget } from '../services/payment-target.js';
import type { X402Payments } from '../services/x402-payments.js';

/** The services the payer URLs' x402 answers read. */
export const PAYER_URL_RESPONDER_DEPS = ['x402Config', 'x402Payments', 'x402PayerOffers', 'invoicesService', 'sessionsCheckout'] as const;

interface ResponderDeps {
  readonly x402Config: X402Config;
  readonly x402Payments: X402Payments;
  readonly x402PayerOffers: PayerOffers;
  readonly invoicesService: InvoiceService;
  readonly sessionsCheckout: CheckoutSessions;
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
  const offered = await deps.x402PayerOffers.invoice(payable.projectId, payable.invoiceId);
  return { resource: offered.resource, offer: offerOf(offered, 'invoice') };
}

/**
 * A session's invoice to pay: the current one when x402 can pay it; else, never with a payment
 * (which pays the current invoice or nothing), `?coin=` or, before any pick, the first allowed
 * payable coin, picked as the payer's page picks it. A current invoice of another coin without
 * `?coin=` is the page's (the payer chose that coin there).
 */
async function sessionOffer(deps: ResponderDeps, ctx: Context, payable: Extract<Payable, { kind: 'session' }>, paying: boolean): Promise<Asked | undefined> {
  const offers = deps.x402PayerOffers;
  const found = await deps.sessionsCheckout.byToken(payable.token);
  if (!found) return undefined;
  const session = found.session;
  const resource = sessionResource(session);
  if (session.invoice_id !== null) {
    const current = offerOf(await offers.sessionInvoice(session, session.invoice_id), 'session', session.id);
    if (current || paying) return { resource, offer: current };
  }
  if (paying || session.status !== 'open') return { resource };
  const asked = typeof ctx.query['coin'] === 'string' && COIN.test(ctx.query['coin']) ? ctx.query['coin'] : undefined;
  if (session.invoice_id !== null && asked === undefined) return { resource };
  const coin = asked !== undefined ? ((await offers.payableCoin(session, asked)) ? asked : undefined) : await offers.firstPayableCoin(session);
  if (coin === undefined) return { resource };
  const requestId = String(ctx.state['requestId'] ?? '');
  const actor: Actor = { actor: 'x402', channel: 'rest', ...(requestId === '' ? {} : { requestId }) };
  return { resource, offer: offerOf(await offers.pick(payable.token, coin, actor), 'session', session.id) };
}

/** The offer to pay when x402 can pay the payer URL's invoice now; undefined otherwise. */
function offerOf(offered: PayerOffer, source: 'invoice' | 'session', sessionId?: string): Offer | undefined {
  const { invoice, required } = offered;
  if (!required) return undefined;
  const target: PaymentTarget = { projectId: invoice.project_id, invoiceId: invoice.id, source };
  return { invoice, required, target, ...(sessionId === undefined ? {} : { sessionId }) };
}

/** Verifies the payment against the offer, then settles it. */
async function pay(deps: ResponderDeps, ctx: Context, offer: Offer): Promise<RouteResult> {
  const requirements = offer.required.accepts[0]!;
  const payload = decodeX402Header(ctx.get(X402_HEADERS.signature));
  if (!payload) return paymentRequired({ ...offer.required, error: X402_REASONS.payload });
  const verified = await deps.x402Payments.verify(payload, requirements, offer.target);
  if (!verified.isValid) return paymentRequired({ ...offer.required, error: verified.invalidReason ?? X402_REASONS.verify });
  const settled = await deps.x402Payments.settle(payload, requirements, offer.target);
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
