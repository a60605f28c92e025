import { defineRoute, restActor, type RouteAccess, type RouteDefinition, withDeps } from '@gw/kernel';
import {
  CreateInvoiceBody,
  InvoiceIdParams,
  InvoiceListSchema,
  InvoiceTransactionListSchema,
  InvoiceWithTransactionsSchema,
  ListInvoicesQuery,
  ListTransactionsQuery,
} from './schemas.js';
import type { InvoiceService } from './services/invoice-service.js';

/** The invoice API's operations, as a mount documents them. */
export type InvoiceOperation = 'create' | 'list' | 'get' | 'transactions' | 'cancel';

/** What a create is refused for on every mount of the invoice API (production and sandbox) before the mount's own checks. */
export const INVOICE_CREATE_BODY_ERRORS = [
  'validation_error',
  'invalid_webhook_url',
  'external_id_conflict',
  'coin_not_enabled',
  'amount_out_of_range',
] as const;

/**
 * One mount of the invoice API (spec 4.2): the production API, or a mirror of it (the sandbox's,
 * spec 4.5) with its own path, access, documentation and the service its writes go through.
 */
export interface InvoiceApiMount {
  /** Path of the invoice collection, e.g. `/api/v1/invoices`. */
  readonly path: string;
  readonly tags: readonly string[];
  /** Access of the reads; the writes add `write: true`. */
  readonly access: RouteAccess;
  /** The service of the reads (list, get, transactions). */
  readonly reads: () => Pick<InvoiceService, 'list' | 'get' | 'transactions'>;
  /** The service of the writes (create, cancel): the mount's own checks come first there. */
  readonly writes: () => Pick<InvoiceService, 'create' | 'cancel'>;
  /** Each operation's summary and description in the OpenAPI document. */
  readonly docs: Readonly<Record<InvoiceOperation, { readonly summary: string; readonly description?: string }>>;
  /** The error codes of the writes, which differ per mount. */
  readonly errors: { readonly create: readonly string[]; readonly cancel: readonly string[] };
}

/** The invoice API's five routes at a mount. */
export function invoiceApiRoutes(mount: InvoiceApiMount): RouteDefinition[] {
  const { path, tags, access, docs } = mount;
  const common = { tags, auth: 'signed' } as const;
  return [
    defineRoute({
      method: 'POST',
      path,
      ...docs.create,
      ...common,
      // A retry of the same signed create gets the first answer (spec 3 item 3).
      idempotent: true,
      access: { ...access, write: true },
      body: CreateInvoiceBody,
      responses: { 200: InvoiceWithTransactionsSchema, 201: InvoiceWithTransactionsSchema },
      errors: mount.errors.create,
      handler: async ({ auth, body, requestId }) => {
        const { invoice, created } = await mount.writes().create(auth.project!, body, restActor(auth, requestId));
        return { status: created ? 201 : 200, body: invoice };
      },
    }),
    defineRoute({
      method: 'GET',
      path,
      ...docs.list,
      ...common,
      access,
      query: ListInvoicesQuery,
      responses: { 200: InvoiceListSchema },
      errors: ['validation_error'],
      handler: async ({ auth, query }) => ({ body: await mount.reads().list(auth.project!.id, query) }),
    }),
    defineRoute({
      method: 'GET',
      path: `${path}/:id`,
      ...docs.get,
      ...common,
      access,
      params: InvoiceIdParams,
      responses: { 200: InvoiceWithTransactionsSchema },
      errors: ['validation_error', 'invoice_not_found'],
      handler: async ({ auth, params }) => ({ body: await mount.reads().get(auth.project!.id, params.id) }),
    }),
    defineRoute({
      method: 'GET',
      path: `${path}/:id/transactions`,
      ...docs.transactions,
      ...common,
      access,
      params: InvoiceIdParams,
      query: ListTransactionsQuery,
      responses: { 200: InvoiceTransactionListSchema },
      errors: ['validation_error', 'invoice_not_found'],
      handler: async ({ auth, params, query }) => ({ body: await mount.reads().transactions(auth.project!.id, params.id, query) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${path}/:id/cancel`,
      ...docs.cancel,
      ...common,
      access: { ...access, write: true },
      params: InvoiceIdParams,
      responses: { 200: InvoiceWithTransactionsSchema },
      errors: mount.errors.cancel,
      handler: async ({ auth, params, requestId }) => ({ body: await mount.writes().cancel(auth.project!.id, params.id, restActor(auth, requestId)) }),
    }),
  ];
}

/** Invoice endpoints of spec 4.2, for production and testnet projects. */
export const invoicesRoutes = withDeps(['invoicesService'], (deps): RouteDefinition[] =>
  invoiceApiRoutes({
    path: '/api/v1/invoices',
    tags: ['invoices'],
    access: { projectKind: 'production' },
    reads: () => deps.invoicesService,
    writes: () => deps.invoicesService,
    docs: {
      create: {
        summary: 'Create an invoice (idempotent on external_id).',
        description:
          "Creates an invoice for one coin with a deposit address from the project's pool. Give exactly one of amount_usd (converted at the current " +
          'rate, rounded up to the next base unit; the rate is recorded in rate_snapshot), amount_crypto, and a price in a fiat currency ' +
          "(price_currency with price_amount: amount_usd is the price at the currency's current USD rate, rounded to cents, recorded in price_rate; " +
          'an unknown currency is 400 validation_error, a price outside the amount_usd bounds 422 amount_out_of_range). A replay with the same external_id and ' +
          'the same parameters returns the existing invoice with 200; different parameters are 409 external_id_conflict.',
      },
      list: {
        summary: "Search the project's invoices (cursor-paginated, newest first).",
        description: 'Filters combine with AND. Pages are keyed by invoice id, so invoices created while paging never shift or repeat entries.',
      },
      get: { summary: 'Retrieve an invoice with its transactions and confirmations.' },
      transactions: {
        summary: 'List every transaction of an invoice (cursor-paginated, detection order).',
        description:
          'An invoice view carries its latest 20 transactions with transactions_total and this URL as transactions_url; here are all of them, ' +
          "in pages of the spec's pagination envelope. Addition to spec 4.2 (issue 33).",
      },
      cancel: {
        summary: 'Cancel a pending or detected invoice.',
        description: 'The deposit address goes back to the pool after its cooldown. Any other status is 409 invoice_not_cancellable.',
      },
    },
    errors: {
      create: [
        ...INVOICE_CREATE_BODY_ERRORS,
        'wallet_not_bound',
        'xpub_not_verified',
        'overlay_matching_mode_required_exact',
        'tron_no_activated_addresses_available',
        'rate_limit_exceeded',
        'internal_error',
        'pool_exhausted',
      ],
      cancel: ['validation_error', 'invoice_not_found', 'invoice_not_cancellable'],
    },
  }),
);
