import { defineRoute, restActor, type RouteDefinition, withDeps } from '@gw/kernel';
import { InvoiceWithTransactionsSchema } from '@gw/plugin-invoices/contract';
import { AttributeBody, ListOrphansQuery, OrphanPageSchema, TxHashParams } from './schemas.js';

/** The orphan-payment inbox of spec 4.3, for production and testnet projects. */
export const watchersRoutes = withDeps(['watchersOrphans'], (deps): RouteDefinition[] => {
  const inbox = () => deps.watchersOrphans;
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/orphan-payments',
      summary: "List the project's orphan payments: receipts at its pool addresses that no invoice took (newest first).",
      description: 'Filters combine with AND. Pages are keyed by receipt id, so receipts recorded while paging never shift or repeat entries.',
      tags: ['orphan-payments'],
      auth: 'signed',
      access: { projectKind: 'production' },
      query: ListOrphansQuery,
      responses: { 200: OrphanPageSchema },
      errors: ['validation_error', 'rate_limit_exceeded'],
      handler: async ({ auth, query }) => ({ body: await inbox().list(auth.project!.id, query) }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/orphan-payments/:tx_hash/attribute',
      summary: 'Attribute an orphan payment to an external_id: creates a synthetic paid invoice and enqueues invoice.paid.',
      description:
        'When the transaction paid several pool addresses of the project (or has several outputs), to_address or tx_output_index picks one; without them such a call is 400 validation_error listing the candidates.',
      tags: ['orphan-payments'],
      auth: 'signed',
      access: { projectKind: 'production', write: true },
      params: TxHashParams,
      body: AttributeBody,
      responses: { 200: InvoiceWithTransactionsSchema },
      errors: [
        'validation_error',
        'orphan_not_found',
        'orphan_already_attributed',
        'orphan_not_confirmed',
        'external_id_conflict',
        'rate_limit_exceeded',
        'internal_error',
      ],
      handler: async ({ auth, params, body, requestId }) => ({
        body: await inbox().attribute(
          { id: auth.project!.id, kind: auth.project!.kind },
          params.tx_hash,
          { ...body, metadata: body.metadata as Record<string, unknown> | undefined },
          restActor(auth, requestId),
        ),
      }),
    }),
  ];
});
