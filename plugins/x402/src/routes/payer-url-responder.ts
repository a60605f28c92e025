import type { Actor, MachinePaymentResponder, Payable, RouteResult } from '@gw/kernel';
import type { InvoiceService, InvoiceView } from '@gw/plugin-invoices/contract';
import type { CheckoutSessions, SessionView } from '@gw/plugin-sessions/contract';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { X402Config } from '../config.js';
import { decodeX402Header, encodeX402Header } from '../protocol/headers.js';
import { X402_HEADERS, X402_VERSION, type PaymentRequired, type ResourceInfo, type SettleResponse } from '../protocol/messages.js';
import { X402_REASONS } from '../protocol/reasons.js';
import { sessionResource, type PayerOffer, type PayerOffers } from '../services/payer-offers.js';
import type { PaymentTarget } from '../services/payment-target.js';
import type { X402Asset } from '../services/x402-networks.js';
import type { X402Payments } from '../services/x402-payments.js';

/** The services the payer URLs' x402 answers read. */
export const PAYER_URL_RESPONDER_DEPS = ['x402Config', 'x402Payments', 'x402PayerOffers', 'invoicesService', 'sessionsCheckout', 'logger'] as const;

interface ResponderDeps {
  readonly x402Config: X402Config;
  readonly x402Payments: X402Payments;
  readonly x402PayerOffers: PayerOffers;
  readonly invoicesService: InvoiceService;
  readonly sessionsCheckout: CheckoutSessions;
  readonly logger: Logger;
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
  /** The invoice behind the URL when there is one but x402 can pay nothing now (a replay is told so). */
  readonly unpayable?: PaymentTarget | undefined;
}

/**
 * The payer URLs' x402 answers (issue 41, "HTTP: payer URLs"): an invoice's checkout URL and a
 * session's page URL are x402 resources themselves. A client that does not ask for HTML (or sends
 * `PAYMENT-SIGNATURE`) gets 402 with the invoice's requirements (`PAYMENT-REQUIRED`, and the same
 * JSON as the body); its payment is verified, then settled into the invoice's own address (200 with
 * `PAYMENT-RESPONSE`); a refusal is 402 with the reason as the requirements' `error`. A session's
 * URL answers for its current invoice; before any pick it picks `?coin=` (an allowed, payable
 * coin) or the first allowed payable coin; it never switches coins. What cannot be paid with x402
 * falls through to the page, except a payment, which is refused (402 `invalid_payment_requirements`,
 * no `accepts`). A failing node or database is the page too, or 402 `unexpected_verify_error` for a
 * payment, never a 500.
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
      let asked: Asked | undefined;
      try {
        asked = payable.kind === 'invoice' ? await invoiceOffer(deps, payable) : await sessionOffer(deps, ctx, payable, paying);
      } catch (error) {
        // A node or the database failing: the page still answers a request without a payment; a
        // payment is refused the protocol's way (the payer may retry), never a 500.
        deps.logger.error({ err: error, kind: payable.kind }, 'x402: the payer URL’s requirements could not be read');
        return paying ? failed({ url: `${ctx.origin}${ctx.path}` }, X402_REASONS.verify) : undefined;
      }
      if (!asked?.offer) return paying && asked ? refused(deps, ctx, asked) : undefined;
      if (!paying) return paymentRequired(asked.offer.required);
      return pay(deps, ctx, asked.offer);
    },
  };
}

async function invoiceOffer(deps: ResponderDeps, payable: Extract<Payable, { kind: 'invoice' }>): Promise<Asked> {
  const offered = await deps.x402PayerOffers.invoice(payable.projectId, payable.invoiceId);
  const offer = offerOf(offered, 'invoice');
  return offer
    ? { resource: offered.resource, offer }
    : { resource: offered.resource, unpayable: { projectId: offered.invoice.project_id, invoiceId: offered.invoice.id, source: 'invoice' } };
}

/**
 * A session's invoice to pay (`PayerOffers.coinChoice`, the rule MCP's tool shares): the current
 * one when x402 can pay its coin; before any pick, `?coin=` or else the first allowed payable coin,
 * picked as the payer's page picks it. A GET never switches the coin: a current invoice of another
 * coin is the page's, and a payment pays the current invoice or nothing.
 */
async function sessionOffer(deps: ResponderDeps, ctx: Context, payable: Extract<Payable, { kind: 'session' }>, paying: boolean): Promise<Asked | undefined> {
  const offers = deps.x402PayerOffers;
  const found = await deps.sessionsCheckout.byToken(payable.token);
  if (!found) return undefined;
  const session = found.session;
  const resource = sessionResource(session);
  const asked = typeof ctx.query['coin'] === 'string' && COIN.test(ctx.query['coin']) ? ctx.query['coin'] : undefined;
  const choice = await offers.coinChoice(session, asked);
  if (choice.kind === 'current') return { resource, offer: await sessionOfferOf(deps, session, await offers.sessionInvoice(session, choice.invoiceId)) };
  if (paying || choice.kind !== 'pick') return { resource };
  const requestId = String(ctx.state['requestId'] ?? '');
  const actor: Actor = { actor: 'x402', channel: 'rest', ...(requestId === '' ? {} : { requestId }) };
  return { resource, offer: await sessionOfferOf(deps, session, await offers.pick(payable.token, choice.coin, actor)) };
}

/** A session invoice's offer, naming the session's other payable coins in its 402 (M5: `?coin=` is discoverable). */
async function sessionOfferOf(deps: ResponderDeps, session: SessionView, offered: PayerOffer): Promise<Offer | undefined> {
  const offer = offerOf(offered, 'session', session.id);
  if (!offer) return undefined;
  const others = (await deps.x402PayerOffers.payableAssets(session)).filter((asset) => asset.coin !== offer.invoice.coin);
  if (others.length === 0) return offer;
  return {
    ...offer,
    required: { ...offer.required, extensions: { ...offer.required.extensions, [SESSION_COINS_EXTENSION]: coinsExtension(session, others) } },
  };
}

/** The offer to pay when x402 can pay the payer URL's invoice now; undefined otherwise. */
function offerOf(offered: PayerOffer, source: 'invoice' | 'session', sessionId?: string): Offer | undefined {
  const { invoice, required } = offered;
  if (!required) return undefined;
  const target: PaymentTarget = { projectId: invoice.project_id, invoiceId: invoice.id, source };
  return { invoice, required, target, ...(sessionId === undefined ? {} : { sessionId }) };
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
  let verification: Awaited<ReturnType<X402Payments['verification']>>;
  try {
    verification = await deps.x402Payments.verification(payload, requirements, offer.target);
  } catch (error) {
    deps.logger.error({ err: error, invoiceId: offer.invoice.id }, 'x402: a payment to a payer URL could not be verified');
    return paymentRequired({ ...offer.required, error: X402_REASONS.verify });
  }
  const { response: verified, payment } = verification;
  if (!payment) return paymentRequired({ ...offer.required, error: verified.invalidReason ?? X402_REASONS.verify });
  const settled = await deps.x402Payments.settleVerified(payment);
  if (!settled.success) return paymentRequired({ ...offer.required, error: settled.errorReason ?? X402_REASONS.settle }, settled);
  const body: X402PaymentBody = {
    object: 'x402_payment',
    invoice_id: offer.invoice.id,
    ...(offer.sessionId === undefined ? {} : { session_id: offer.sessionId }),
    status: await statusAfterSettlement(deps, offer),
    transaction: settled.transaction,
    network: settled.network,
    payer: settled.payer ?? verified.payer,
  };
  return { status: 200, headers: { ...ANSWER_HEADERS, [X402_HEADERS.response]: encodeX402Header(settled) }, body };
}

/** The invoice's status after its settlement; the status known before when it cannot be read again (the money moved: still a 200). */
async function statusAfterSettlement(deps: ResponderDeps, offer: Offer): Promise<string> {
  try {
    return (await deps.invoicesService.get(offer.target.projectId, offer.invoice.id)).status;
  } catch (error) {
    deps.logger.error({ err: error, invoiceId: offer.invoice.id }, 'x402: the invoice could not be read again after its settlement');
    return offer.invoice.status;
  }
}

/**
 * `extensions` key of a session's 402 that names its other coins x402 can pay, each with the
 * session URL that picks it (`?coin=`, effective while the session has no invoice; docs/x402.md).
 */
export const SESSION_COINS_EXTENSION = 'gateway-session-coins';

function coinsExtension(session: SessionView, others: readonly X402Asset[]) {
  return {
    info: {
      description: 'Other coins this checkout session accepts with x402; a ?coin= URL picks one while the session has no invoice.',
      coins: others.map((asset) => ({ coin: asset.coin, network: asset.caip, asset: asset.asset, url: coinUrl(session.url, asset.coin) })),
    },
  };
}

function coinUrl(sessionUrl: string, coin: string): string {
  const url = new URL(sessionUrl);
  url.searchParams.set('coin', coin);
  return url.toString();
}

/**
 * A payment to a payer URL x402 cannot pay now (a paid or expired invoice, a coin without EIP-3009):
 * nothing to accept; the replay of an authorization that paid the invoice is told so.
 */
async function refused(deps: ResponderDeps, ctx: Context, asked: Asked): Promise<RouteResult> {
  const reason = asked.unpayable
    ? await deps.x402Payments.nothingDueReason(decodeX402Header(ctx.get(X402_HEADERS.signature)), asked.unpayable)
    : X402_REASONS.requirements;
  return failed(asked.resource, reason);
}

/** A payment refused with `reason` and nothing to accept. */
function failed(resource: ResourceInfo, reason: string): RouteResult {
  return paymentRequired({ x402Version: X402_VERSION, error: reason, resource, accepts: [] });
}

const ANSWER_HEADERS = {
  'Cache-Control': 'no-store',
  Vary: 'Accept',
  'Content-Type': 'application/json; charset=utf-8',
  // A browser agent's script reads the protocol's headers only when they are exposed.
  'Access-Control-Expose-Headers': `${X402_HEADERS.required}, ${X402_HEADERS.response}`,
} as const;

/** 402: the requirements in `PAYMENT-REQUIRED` and as the body; a failed settlement's `PAYMENT-RESPONSE` too. */
function paymentRequired(required: PaymentRequired, settled?: SettleResponse): RouteResult {
  const headers: Record<string, string> = { ...ANSWER_HEADERS, [X402_HEADERS.required]: encodeX402Header(required) };
  if (settled) headers[X402_HEADERS.response] = encodeX402Header(settled);
  return { status: 402, headers, body: required };
}
