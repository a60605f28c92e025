/**
 * Checkout sessions and payment links (issue 38): the types of their REST resources (the
 * generated ones of the gateway's OpenAPI document) and the calls of the `checkoutSessions`,
 * `paymentLinks` and sandbox resources of {@link GatewayClient}.
 */
import type { OperationBody, OperationId, OperationQuery, OperationResult } from './operation-types.js';
import { idempotencyHeaders, type IdempotencyOptions } from './money-out.js';

/** A checkout session as the API answers it: a price the payer pays in a coin they pick. */
export type CheckoutSession = OperationResult<'getCheckoutSessionsById'>;
/** One page of checkout sessions. */
export type CheckoutSessionPage = OperationResult<'getCheckoutSessions'>;
/** The body of `POST /checkout-sessions`: a price (fiat ISO 4217 or a coin), the allowed coins, description, lines, URLs, metadata, `expires_in`. */
export type CreateCheckoutSessionInput = OperationBody<'postCheckoutSessions'>;
/** The filters of the session list (`status`, `payment_link_id`, `external_id`, `cursor`, `limit`). */
export type CheckoutSessionQuery = OperationQuery<'getCheckoutSessions'>;

/** A session's status: `open` until paid (`completed`) or past its deadline unpaid (`expired`). */
export const CHECKOUT_SESSION_STATUSES = ['open', 'completed', 'expired'] as const satisfies readonly CheckoutSession['status'][];
export type CheckoutSessionStatus = (typeof CHECKOUT_SESSION_STATUSES)[number];

/** A payment link as the API answers it: a reusable URL (`url`, `qr_url`) that opens a session per payer. */
export type PaymentLink = OperationResult<'getPaymentLinksById'>;
/** One page of payment links. */
export type PaymentLinkPage = OperationResult<'getPaymentLinks'>;
/** The body of `POST /payment-links`: a fixed `price_amount`, or `min_amount` and `max_amount` the payer enters within. */
export type CreatePaymentLinkInput = OperationBody<'postPaymentLinks'>;
/** The filters of the link list (`active`, `cursor`, `limit`). */
export type PaymentLinkQuery = OperationQuery<'getPaymentLinks'>;

/** The operations of each resource on one mount (the project's, or the sandbox's). */
export const SESSION_OPERATIONS = {
  live: {
    sessions: {
      create: 'postCheckoutSessions',
      list: 'getCheckoutSessions',
      retrieve: 'getCheckoutSessionsById',
      expire: 'postCheckoutSessionsByIdExpire',
    },
    links: {
      create: 'postPaymentLinks',
      list: 'getPaymentLinks',
      retrieve: 'getPaymentLinksById',
      deactivate: 'postPaymentLinksByIdDeactivate',
    },
  },
  sandbox: {
    sessions: {
      create: 'postSandboxCheckoutSessions',
      list: 'getSandboxCheckoutSessions',
      retrieve: 'getSandboxCheckoutSessionsById',
      expire: 'postSandboxCheckoutSessionsByIdExpire',
    },
    links: {
      create: 'postSandboxPaymentLinks',
      list: 'getSandboxPaymentLinks',
      retrieve: 'getSandboxPaymentLinksById',
      deactivate: 'postSandboxPaymentLinksByIdDeactivate',
    },
  },
} as const satisfies Record<string, { sessions: Record<string, OperationId>; links: Record<string, OperationId> }>;
type Mount = (typeof SESSION_OPERATIONS)[keyof typeof SESSION_OPERATIONS];

/**
 * A signed call of an operation of the client's table, with extra headers (an `Idempotency-Key`):
 * retried when the document marks the operation `x-retry-safe`, or when `retry` says that
 * repeating it is harmless.
 */
export type OperationCall = (
  operationId: OperationId,
  args: { readonly params?: Readonly<Record<string, string>>; readonly query?: object; readonly body?: unknown },
  options?: { readonly headers?: Readonly<Record<string, string>>; readonly retry?: boolean },
) => Promise<{ status: number; result: unknown }>;

/** Every item of a paginated operation, fetching pages as the loop asks for them. */
export type OperationPages = (operationId: OperationId, query: object) => AsyncGenerator<unknown, void, undefined>;

/** A create's options: its idempotency key, which also makes it safe to retry. */
function createOptions(options: IdempotencyOptions) {
  const { headers, idempotent } = idempotencyHeaders(options);
  return { ...(headers ? { headers } : {}), retry: idempotent };
}

/** The checkout session calls of one mount. */
export function checkoutSessionsResource(call: OperationCall, pages: OperationPages, mount: Mount) {
  const ops = mount.sessions;
  const one = async (operationId: OperationId, id: string) => (await call(operationId, { params: { id } })).result as CheckoutSession;
  const resource = {
    /**
     * Creates a session; the payer opens its `url` and picks the coin. Answers the session and
     * whether it was created now (201) or is the answer to an earlier call with the same
     * idempotency key (200). With a key the call is retried safely.
     */
    createWithStatus: async (body: CreateCheckoutSessionInput, options: IdempotencyOptions = {}) => {
      const { status, result } = await call(ops.create, { body }, createOptions(options));
      return { session: result as CheckoutSession, created: status === 201 };
    },
    /** {@link createWithStatus}, the session only. */
    create: async (body: CreateCheckoutSessionInput, options: IdempotencyOptions = {}): Promise<CheckoutSession> =>
      (await resource.createWithStatus(body, options)).session,
    /** One page of the project's sessions, newest first; pass `next_cursor` back as `cursor`. */
    list: async (query: CheckoutSessionQuery = {}): Promise<CheckoutSessionPage> => (await call(ops.list, { query })).result as CheckoutSessionPage,
    /** Every session matching `query`, newest first, across pages. */
    iterate: (query: CheckoutSessionQuery = {}) => pages(ops.list, query) as AsyncGenerator<CheckoutSession, void, undefined>,
    /** One session with its invoices (one per coin the payer picked). */
    retrieve: (id: string): Promise<CheckoutSession> => one(ops.retrieve, id),
    /** Ends an open session now (its unpaid invoice is cancelled); 409 `checkout_session_closed` otherwise. */
    expire: (id: string): Promise<CheckoutSession> => one(ops.expire, id),
  };
  return resource;
}

/** The payment link calls of one mount. */
export function paymentLinksResource(call: OperationCall, pages: OperationPages, mount: Mount) {
  const ops = mount.links;
  const one = async (operationId: OperationId, id: string) => (await call(operationId, { params: { id } })).result as PaymentLink;
  const resource = {
    /** Creates a link (201), or answers the one an earlier call with the same idempotency key created (200). */
    createWithStatus: async (body: CreatePaymentLinkInput, options: IdempotencyOptions = {}) => {
      const { status, result } = await call(ops.create, { body }, createOptions(options));
      return { link: result as PaymentLink, created: status === 201 };
    },
    /** {@link createWithStatus}, the link only. */
    create: async (body: CreatePaymentLinkInput, options: IdempotencyOptions = {}): Promise<PaymentLink> =>
      (await resource.createWithStatus(body, options)).link,
    /** One page of the project's links, newest first. */
    list: async (query: PaymentLinkQuery = {}): Promise<PaymentLinkPage> => (await call(ops.list, { query })).result as PaymentLinkPage,
    /** Every link matching `query`, newest first, across pages. */
    iterate: (query: PaymentLinkQuery = {}) => pages(ops.list, query) as AsyncGenerator<PaymentLink, void, undefined>,
    /** One link with its `uses` (paid sessions). */
    retrieve: (id: string): Promise<PaymentLink> => one(ops.retrieve, id),
    /** Its URL opens no new session from now on; sessions already open go on. */
    deactivate: (id: string): Promise<PaymentLink> => one(ops.deactivate, id),
  };
  return resource;
}
