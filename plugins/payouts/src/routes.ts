import { defineRoute, idempotencyKeyHeader, restActor, type RouteAccess, type RouteDefinition, withDeps } from '@gw/kernel';
import type { PayoutItems } from './contract.js';
import type { ItemKind } from './item-status.js';
import {
  CreatePayoutsBody,
  CreateRefundBody,
  InvoiceIdParams,
  ItemIdParams,
  ItemList,
  ItemPage,
  ItemSchema,
  ListItemsQuery,
  SimulateClaimBody,
} from './schemas.js';
import { ITEM_SIMULATION_RULES, ITEM_SIMULATIONS } from './services/sandbox-simulations.js';

interface Mount {
  /** `/api/v1` or `/api/v1/sandbox`. */
  readonly base: string;
  readonly tags: readonly string[];
  readonly access: RouteAccess;
  /** Words before the summaries (`Sandbox: `). */
  readonly label: string;
}

const IDEMPOTENCY =
  ' Send an Idempotency-Key header (at most 255 characters) to make a retry safe: the same key with the same body answers the first result with 200; another body is 422 idempotency_key_reused.';

/** The refund and payout API at one mount (production: `/api/v1`; sandbox mirror: `/api/v1/sandbox`). */
function itemRoutes(deps: { payoutsItems: PayoutItems }, mount: Mount): RouteDefinition[] {
  const { base, tags, access, label } = mount;
  // Signed API keys only: a key carries every scope of its project, so these routes check none (PATs reach refunds through the MCP tools).
  const common = { tags, auth: 'signed' } as const;
  const write = { ...access, write: true };
  const items = () => deps.payoutsItems;
  const perKind = (kind: ItemKind): RouteDefinition[] => {
    const path = `${base}/${kind}s`;
    const notFound = kind === 'refund' ? 'refund_not_found' : 'payout_not_found';
    return [
      defineRoute({
        method: 'GET',
        path,
        summary: `${label}List the project's ${kind}s (cursor-paginated, newest first).`,
        ...common,
        access,
        query: ListItemsQuery,
        responses: { 200: ItemPage },
        errors: ['validation_error'],
        handler: async ({ auth, query }) => {
          return {
            body: await items().list({
              projectId: auth.project!.id,
              kind,
              limit: query.limit,
              ...(query.status ? { status: query.status } : {}),
              ...(query.cursor ? { cursor: query.cursor } : {}),
            }),
          };
        },
      }),
      defineRoute({
        method: 'GET',
        path: `${path}/:id`,
        summary: `${label}Retrieve a ${kind}.`,
        ...common,
        access,
        params: ItemIdParams,
        responses: { 200: ItemSchema },
        errors: ['validation_error', notFound],
        handler: async ({ auth, params }) => {
          return { body: await items().get(auth.project!.id, kind, params.id) };
        },
      }),
      defineRoute({
        method: 'POST',
        path: `${path}/:id/cancel`,
        summary: `${label}Cancel a ${kind} before its approval.`,
        description: 'Approved items can only be cancelled by an administrator (dashboard or CLI) before they join a batch: 409 item_not_cancellable.',
        ...common,
        access: write,
        params: ItemIdParams,
        responses: { 200: ItemSchema },
        errors: ['validation_error', notFound, 'item_not_cancellable'],
        handler: async ({ auth, params, requestId }) => {
          return { body: await items().cancel(auth.project!.id, kind, params.id, restActor(auth, requestId)) };
        },
      }),
    ];
  };
  return [
    defineRoute({
      method: 'POST',
      path: `${base}/invoices/:invoiceId/refunds`,
      summary: `${label}Propose a refund of an invoice (its natural amount, or an amount by a rate rule).`,
      description:
        "Without amount: the natural amount (an overpaid invoice's excess; otherwise all it received, less earlier refunds). rate_rule coin_amount " +
        "(default; amount in the coin), fiat_at_payment (amount in USD at the invoice's rate), fiat_now (USD at today's rate); spread_percent is taken " +
        "off. The refunds of an invoice never exceed what it received (422 refund_exceeds_received). Without address the refund awaits the payer's " +
        'claim at claim_url; an administrator approves it in the dashboard or CLI.' +
        IDEMPOTENCY,
      ...common,
      access: write,
      params: InvoiceIdParams,
      body: CreateRefundBody,
      responses: { 200: ItemSchema, 201: ItemSchema },
      errors: [
        'validation_error',
        'invoice_not_found',
        'refund_not_refundable',
        'refund_exceeds_received',
        'claim_address_invalid',
        'idempotency_key_reused',
        'rate_quote_unavailable',
      ],
      handler: async ({ ctx, auth, params, body, requestId }) => {
        const key = idempotencyKeyHeader(ctx);
        const { item, created } = await items().createRefund(
          {
            projectId: auth.project!.id,
            invoiceId: params.invoiceId,
            ...(body.amount === undefined ? {} : { amount: body.amount }),
            ...(body.rate_rule === undefined ? {} : { rateRule: body.rate_rule }),
            ...(body.spread_percent === undefined ? {} : { spreadPercent: body.spread_percent }),
            ...(body.address === undefined ? {} : { address: body.address }),
            ...(body.email === undefined ? {} : { email: body.email }),
            ...(body.reference === undefined ? {} : { reference: body.reference }),
            ...(body.reason === undefined ? {} : { reason: body.reason }),
            ...(body.metadata === undefined ? {} : { metadata: body.metadata }),
            ...(key === undefined ? {} : { idempotencyKey: key }),
          },
          restActor(auth, requestId),
        );
        return { status: created ? 201 : 200, body: item };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/invoices/:invoiceId/refunds`,
      summary: `${label}Every refund of an invoice, oldest first.`,
      ...common,
      access,
      params: InvoiceIdParams,
      responses: { 200: ItemList },
      errors: ['validation_error', 'invoice_not_found'],
      handler: async ({ auth, params }) => {
        return { body: { items: await items().refundsOf(auth.project!.id, params.invoiceId) } };
      },
    }),
    // Each path's methods together, in the order the OpenAPI document lists them.
    ...perKind('refund'),
    defineRoute({
      method: 'POST',
      path: `${base}/payouts`,
      summary: `${label}Propose payouts to 1 to 100 recipients (all or none).`,
      description:
        "Each recipient's address is checked for its coin's network (422 payout_address_invalid with details.index); a reference names a payout " +
        'within the project: the same recipients again answer the first payouts, another address, coin or amount is 409 payout_reference_conflict. ' +
        'An administrator approves them in the dashboard or CLI.' +
        IDEMPOTENCY,
      ...common,
      access: write,
      body: CreatePayoutsBody,
      responses: { 200: ItemList, 201: ItemList },
      errors: ['validation_error', 'payout_address_invalid', 'coin_not_enabled', 'payout_reference_conflict', 'idempotency_key_reused'],
      handler: async ({ ctx, auth, body, requestId }) => {
        const key = idempotencyKeyHeader(ctx);
        const { items: created, created: fresh } = await items().createPayouts(auth.project!.id, body.recipients, restActor(auth, requestId), key);
        return { status: fresh ? 201 : 200, body: { items: created } };
      },
    }),
    ...perKind('payout'),
  ];
}

const SIMULATE_ACCESS = { projectKind: 'sandbox', write: true } as const;

/** The partner API of refunds and payouts, its sandbox mirror and the sandbox's simulations. */
export const payoutsRoutes = withDeps(['payoutsItems', 'payoutsSimulations'], (deps): RouteDefinition[] => [
  ...itemRoutes(deps, { base: '/api/v1', tags: ['refunds and payouts'], access: { projectKind: 'production' }, label: '' }),
  ...itemRoutes(deps, { base: '/api/v1/sandbox', tags: ['sandbox'], access: { projectKind: 'sandbox', crossModeByKey: true }, label: 'Sandbox: ' }),
  ...(['refund', 'payout'] as const).flatMap((kind) =>
    ITEM_SIMULATIONS.filter((s) => kind === 'refund' || s !== 'claim').map((simulation) => {
      const rule = ITEM_SIMULATION_RULES[simulation];
      return defineRoute({
        method: 'POST',
        path: `/api/v1/sandbox/${kind}s/:id/simulate-${simulation}`,
        summary: `Simulate ${simulation} of a sandbox ${kind}: needs ${rule.from.join(' or ')}; the ${kind} becomes ${rule.to} with its event.`,
        tags: ['sandbox'],
        auth: 'signed',
        access: SIMULATE_ACCESS,
        params: ItemIdParams,
        ...(simulation === 'claim' ? { body: SimulateClaimBody } : {}),
        responses: { 200: ItemSchema },
        errors: [
          'validation_error',
          kind === 'refund' ? 'refund_not_found' : 'payout_not_found',
          'item_transition_invalid',
          ...(simulation === 'claim' ? ['claim_address_invalid'] : []),
        ],
        handler: async ({ auth, params, body, requestId }) => {
          const input = (body ?? {}) as { address?: string };
          return {
            body: await deps.payoutsSimulations.simulate(
              auth.project!.id,
              kind,
              params.id,
              simulation,
              input.address === undefined ? {} : { address: input.address },
              restActor(auth, requestId),
            ),
          };
        },
      });
    }),
  ),
]);
