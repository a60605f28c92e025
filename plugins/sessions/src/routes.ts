import { defineRoute, idempotencyKeyHeader, restActor, type RouteAccess, type RouteDefinition, withDeps } from '@gw/kernel';
import type { CheckoutSessions, PaymentLinks } from './contract.js';
import {
  CreateLinkBody,
  CreateSessionBody,
  IdParams,
  ListLinksQuery,
  ListSessionsQuery,
  PaymentLinkPage,
  PaymentLinkSchema,
  SessionPage,
  SessionSchema,
  SimulatePickBody,
} from './schemas.js';

const IDEMPOTENCY =
  ' Send an Idempotency-Key header (at most 255 characters) to make a retry safe: the same key with the same body answers the first result with 200; another body is 422 idempotency_key_reused.';

/** What the create routes may answer about the order (both sessions and links). */
const ORDER_ERRORS = ['validation_error', 'coin_not_allowed', 'idempotency_key_reused'];

interface Mount {
  /** `/api/v1` or `/api/v1/sandbox`. */
  readonly base: string;
  readonly tags: readonly string[];
  readonly access: RouteAccess;
  /** Words before the summaries (`Sandbox: `). */
  readonly label: string;
}

/** The session and link API at one mount (production and testnet: `/api/v1`; sandbox mirror: `/api/v1/sandbox`). */
function mountRoutes(deps: { sessionsCheckout: CheckoutSessions; sessionsLinks: PaymentLinks }, mount: Mount): RouteDefinition[] {
  const { base, tags, access, label } = mount;
  // Signed API keys only, as the other partner resources (the MCP tools and the dashboard reach them otherwise).
  const common = { tags, auth: 'signed' } as const;
  const write = { ...access, write: true };
  const sessions = () => deps.sessionsCheckout;
  const links = () => deps.sessionsLinks;
  return [
    defineRoute({
      method: 'POST',
      path: `${base}/checkout-sessions`,
      summary: `${label}Create a checkout session: a price the payer pays in a coin they pick.`,
      description:
        'The price is in a fiat currency (ISO 4217, converted at the rate when the payer picks a coin) or in one coin (then paid in that coin only). ' +
        "The payer opens the session's url and picks a coin: only then is an invoice of that coin created (a deposit address allocated). " +
        'Switching coin cancels the unpaid invoice; a payment that still reaches its address is credited to the session as a late payment. ' +
        'The session completes when an invoice of it is paid (event checkout_session.completed) and expires at expires_at otherwise (checkout_session.expired).' +
        IDEMPOTENCY,
      ...common,
      access: write,
      body: CreateSessionBody,
      responses: { 200: SessionSchema, 201: SessionSchema },
      errors: ORDER_ERRORS,
      handler: async ({ ctx, auth, body, requestId }) => {
        const project = auth.project!;
        const { session, created } = await sessions().create(
          { id: project.id, kind: project.kind },
          body,
          restActor(auth, requestId),
          idempotencyKeyHeader(ctx),
        );
        return { status: created ? 201 : 200, body: session };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/checkout-sessions`,
      summary: `${label}List the project's checkout sessions (cursor-paginated, newest first).`,
      ...common,
      access,
      query: ListSessionsQuery,
      responses: { 200: SessionPage },
      errors: ['validation_error'],
      handler: async ({ auth, query }) => {
        return {
          body: await sessions().list({
            projectId: auth.project!.id,
            limit: query.limit,
            ...(query.status ? { status: query.status } : {}),
            ...(query.payment_link_id ? { paymentLinkId: query.payment_link_id } : {}),
            ...(query.external_id ? { externalId: query.external_id } : {}),
            ...(query.cursor ? { cursor: query.cursor } : {}),
          }),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/checkout-sessions/:id`,
      summary: `${label}Retrieve a checkout session with its invoices.`,
      ...common,
      access,
      params: IdParams,
      responses: { 200: SessionSchema },
      errors: ['validation_error', 'checkout_session_not_found'],
      handler: async ({ auth, params }) => ({ body: await sessions().get(auth.project!.id, params.id) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${base}/checkout-sessions/:id/expire`,
      summary: `${label}End an open checkout session now (checkout_session.expired); its unpaid invoice is cancelled.`,
      description:
        'A session whose current invoice has seen a payment cannot be ended (409 checkout_session_payment_in_progress); a completed or expired one is 409 checkout_session_closed.',
      ...common,
      access: write,
      params: IdParams,
      responses: { 200: SessionSchema },
      errors: ['validation_error', 'checkout_session_not_found', 'checkout_session_closed', 'checkout_session_payment_in_progress'],
      handler: async ({ auth, params, requestId }) => ({ body: await sessions().expire(auth.project!.id, params.id, restActor(auth, requestId)) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${base}/payment-links`,
      summary: `${label}Create a payment link: a reusable page whose every visit opens a checkout session.`,
      description:
        'A fixed price_amount, or min_amount and max_amount between which the payer enters the amount (line items need a fixed price). ' +
        'max_uses limits its completed sessions (then 409 payment_link_used_up). Its url and qr_url can be shared as they are.' +
        IDEMPOTENCY,
      ...common,
      access: write,
      body: CreateLinkBody,
      responses: { 200: PaymentLinkSchema, 201: PaymentLinkSchema },
      errors: ORDER_ERRORS,
      handler: async ({ ctx, auth, body, requestId }) => {
        const project = auth.project!;
        const { link, created } = await links().create({ id: project.id, kind: project.kind }, body, restActor(auth, requestId), idempotencyKeyHeader(ctx));
        return { status: created ? 201 : 200, body: link };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/payment-links`,
      summary: `${label}List the project's payment links (cursor-paginated, newest first).`,
      ...common,
      access,
      query: ListLinksQuery,
      responses: { 200: PaymentLinkPage },
      errors: ['validation_error'],
      handler: async ({ auth, query }) => {
        return {
          body: await links().list({
            projectId: auth.project!.id,
            limit: query.limit,
            ...(query.active === undefined ? {} : { active: query.active === 'true' }),
            ...(query.cursor ? { cursor: query.cursor } : {}),
          }),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/payment-links/:id`,
      summary: `${label}Retrieve a payment link with its uses.`,
      ...common,
      access,
      params: IdParams,
      responses: { 200: PaymentLinkSchema },
      errors: ['validation_error', 'payment_link_not_found'],
      handler: async ({ auth, params }) => ({ body: await links().get(auth.project!.id, params.id) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${base}/payment-links/:id/deactivate`,
      summary: `${label}Deactivate a payment link: it opens no more sessions (409 payment_link_inactive); sessions already open go on.`,
      ...common,
      access: write,
      params: IdParams,
      responses: { 200: PaymentLinkSchema },
      errors: ['validation_error', 'payment_link_not_found'],
      handler: async ({ auth, params, requestId }) => ({ body: await links().deactivate(auth.project!.id, params.id, restActor(auth, requestId)) }),
    }),
  ];
}

/** The sessions and links API, its sandbox mirror, and the sandbox's pick (a payer's coin choice without the page). */
export const sessionsRoutes = withDeps(['db', 'sessionsCheckout', 'sessionsLinks', 'sessionsStore'], (deps): RouteDefinition[] => [
  ...mountRoutes(deps, { base: '/api/v1', tags: ['checkout sessions and payment links'], access: { projectKind: 'production' }, label: '' }),
  ...mountRoutes(deps, { base: '/api/v1/sandbox', tags: ['sandbox'], access: { projectKind: 'sandbox', crossModeByKey: true }, label: 'Sandbox: ' }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/sandbox/checkout-sessions/:id/simulate-pick',
    summary: "Simulate the payer's pick of a coin on a sandbox session's page: the invoice of that coin is created (the previous unpaid one cancelled).",
    description:
      'The same pick the session page makes; then the sandbox invoice simulations pay the invoice (simulate-detect, then simulate-paid, completes the session).',
    tags: ['sandbox'],
    auth: 'signed',
    access: { projectKind: 'sandbox', write: true },
    params: IdParams,
    body: SimulatePickBody,
    responses: { 200: SessionSchema },
    errors: [
      'validation_error',
      'checkout_session_not_found',
      'checkout_session_closed',
      'checkout_session_payment_in_progress',
      'coin_not_allowed',
      'coin_not_enabled',
      'wallet_not_bound',
      'amount_out_of_range',
      'rate_quote_unavailable',
      'rate_limit_exceeded',
    ],
    handler: async ({ auth, params, body, requestId }) => {
      const session = await deps.sessionsStore.find(deps.db, auth.project!.id, params.id);
      const picked = await deps.sessionsCheckout.pick(session.token, body.coin, restActor(auth, requestId));
      return { body: await deps.sessionsCheckout.get(auth.project!.id, picked.session.id) };
    },
  }),
]);
