import { defineRoute, restActor, type RouteDefinition, withDeps } from '@gw/kernel';
import {
  CreateInvoiceBody,
  InvoiceIdParams,
  InvoiceListSchema,
  InvoiceTransactionListSchema,
  InvoiceWithTransactionsSchema,
  ListInvoicesQuery,
  ListTransactionsQuery,
} from './schemas.js';

/** Invoice endpoints of spec 4.2, for production and testnet projects. */
export const invoicesRoutes = withDeps(['invoicesService'], (deps): RouteDefinition[] => {
  const service = () => deps.invoicesService;
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/invoices',
      summary: 'Create an invoice (idempotent on external_id).',
      description:
        "Creates an invoice for one coin with a deposit address from the project's pool. Give exactly one of amount_usd (converted at the current " +
        'rate, rounded up to the next base unit; the rate is recorded in rate_snapshot) and amount_crypto. A replay with the same external_id and ' +
        'the same parameters returns the existing invoice with 200; different parameters are 409 external_id_conflict.',
      tags: ['invoices'],
      auth: 'signed',
      // A retry of the same signed create gets the first answer (spec 3 item 3).
      idempotent: true,
      access: { projectKind: 'production', write: true },
      body: CreateInvoiceBody,
      responses: { 200: InvoiceWithTransactionsSchema, 201: InvoiceWithTransactionsSchema },
      errors: [
        'validation_error',
        'invalid_webhook_url',
        'external_id_conflict',
        'coin_not_enabled',
        'amount_out_of_range',
        'wallet_not_bound',
        'xpub_not_verified',
        'overlay_matching_mode_required_exact',
        'tron_no_activated_addresses_available',
        'rate_limit_exceeded',
        'internal_error',
        'pool_exhausted',
      ],
      handler: async ({ auth, body, requestId }) => {
        const { invoice, created } = await service().create(auth.project!, body, restActor(auth, requestId));
        return { status: created ? 201 : 200, body: invoice };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/invoices',
      summary: "Search the project's invoices (cursor-paginated, newest first).",
      description: 'Filters combine with AND. Pages are keyed by invoice id, so invoices created while paging never shift or repeat entries.',
      tags: ['invoices'],
      auth: 'signed',
      access: { projectKind: 'production' },
      query: ListInvoicesQuery,
      responses: { 200: InvoiceListSchema },
      errors: ['validation_error'],
      handler: async ({ auth, query }) => ({ body: await service().list(auth.project!.id, query) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/invoices/:id',
      summary: 'Retrieve an invoice with its transactions and confirmations.',
      tags: ['invoices'],
      auth: 'signed',
      access: { projectKind: 'production' },
      params: InvoiceIdParams,
      responses: { 200: InvoiceWithTransactionsSchema },
      errors: ['validation_error', 'invoice_not_found'],
      handler: async ({ auth, params }) => ({ body: await service().get(auth.project!.id, params.id) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/invoices/:id/transactions',
      summary: 'List every transaction of an invoice (cursor-paginated, detection order).',
      description:
        'An invoice view carries its latest 20 transactions with transactions_total and this URL as transactions_url; here are all of them, ' +
        "in pages of the spec's pagination envelope. Addition to spec 4.2 (issue 33).",
      tags: ['invoices'],
      auth: 'signed',
      access: { projectKind: 'production' },
      params: InvoiceIdParams,
      query: ListTransactionsQuery,
      responses: { 200: InvoiceTransactionListSchema },
      errors: ['validation_error', 'invoice_not_found'],
      handler: async ({ auth, params, query }) => ({ body: await service().transactions(auth.project!.id, params.id, query) }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/invoices/:id/cancel',
      summary: 'Cancel a pending or detected invoice.',
      description: 'The deposit address goes back to the pool after its cooldown. Any other status is 409 invoice_not_cancellable.',
      tags: ['invoices'],
      auth: 'signed',
      access: { projectKind: 'production', write: true },
      params: InvoiceIdParams,
      responses: { 200: InvoiceWithTransactionsSchema },
      errors: ['validation_error', 'invoice_not_found', 'invoice_not_cancellable'],
      handler: async ({ auth, params, requestId }) => ({ body: await service().cancel(auth.project!.id, params.id, restActor(auth, requestId)) }),
    }),
  ];
});
