import { defineMcpTool, mcpArguments, type McpToolDefinition, type McpToolInput, type ProjectPrincipal, ULID_PATTERN, withDeps } from '@gw/kernel';
import type { CreateInvoiceInput } from './services/invoice-service.js';
import Type from 'typebox';
import { CreateInvoiceBody, ListInvoicesQuery } from './schemas.js';

const INVOICE_ID = Type.String({ pattern: ULID_PATTERN, description: 'Invoice id (ULID).' });

/** Arguments of `get_invoice` and `cancel_invoice`. */
const InvoiceToolArguments = mcpArguments({ invoice_id: INVOICE_ID });
/** Arguments of `create_invoice`: `project_id` plus the body of POST /invoices. */
const CreateInvoiceToolArguments = mcpArguments(CreateInvoiceBody.properties);

const CREATE_INVOICE_DESCRIPTION =
  'Create an invoice for one coin with a fresh deposit address; the same logic as POST /api/v1/invoices. Idempotent on (project, external_id): ' +
  'calling again with the same arguments returns the existing invoice, different arguments give external_id_conflict. Give exactly one of ' +
  'amount_usd (converted at the current rate; rate_snapshot records it), amount_crypto, or a price in a fiat currency (price_currency such as EUR ' +
  'with price_amount such as "19.90": converted to amount_usd at the current rate, recorded in price_rate). Returns the invoice: id, status, address, ' +
  'amount_crypto, payment_uri, checkout_url (the hosted payment page to send the payer to; optional return_url and cancel_url bring the payer back), expires_at_iso and the rest of the invoice object. On a sandbox project the invoice is a sandbox invoice ' +
  '(drive it with the sandbox_simulate_* tools).';
const CANCEL_INVOICE_DESCRIPTION =
  'Cancel a pending or detected invoice (any other status is invoice_not_cancellable); its address returns to the pool after a cooldown. ' +
  'Returns the cancelled invoice.';

/** The invoice tools of spec 4.6 for production and testnet projects (the sandbox plugin adds sandbox variants). */
export const invoicesMcpTools = withDeps(['invoicesService'], (deps): McpToolDefinition[] => {
  const service = () => deps.invoicesService;
  return [
    defineMcpTool({
      name: 'list_invoices',
      title: 'List invoices',
      description:
        "Search a project's invoices, newest first, 1 to 200 per page (default 50). Filters (all optional, combined with AND): status, " +
        'external_id, address, tx_hash, amount (exact amount_crypto), date_from / date_to (ISO 8601). Returns { items: [invoice], next_cursor }; ' +
        'pass next_cursor as cursor for the next page (absent on the last page).',
      input: mcpArguments(ListInvoicesQuery.properties),
      scope: 'invoices:read',
      writes: false,
      errors: ['validation_error'],
      handler: async ({ args, project }) => {
        const { project_id: _, ...filter } = args;
        return service().list(project.id, filter);
      },
    }),
    defineMcpTool({
      name: 'get_invoice',
      title: 'Get an invoice',
      description: 'One invoice with its transactions and their confirmations. invoice_not_found when it is not an invoice of this project.',
      input: InvoiceToolArguments,
      scope: 'invoices:read',
      writes: false,
      errors: ['validation_error', 'invoice_not_found'],
      handler: async ({ args, project }) => service().get(project.id, args.invoice_id),
    }),
    ...invoiceWriteTools(
      'production',
      {
        create: (project, body, actor) => service().create(project, body, actor),
        cancel: (projectId, invoiceId, actor) => service().cancel(projectId, invoiceId, actor),
      },
      {
        create: [
          'validation_error',
          'external_id_conflict',
          'coin_not_enabled',
          'amount_out_of_range',
          'wallet_not_bound',
          'subscription_expired',
          'pool_exhausted',
          'internal_error',
        ],
        cancel: ['validation_error', 'invoice_not_found', 'invoice_not_cancellable', 'subscription_expired'],
      },
    ),
  ];
});

type ToolActor = McpToolInput<unknown>['actor'];

/** The services behind `create_invoice` and `cancel_invoice` for one project kind. */
export interface InvoiceWriteHandlers {
  readonly create: (project: ProjectPrincipal, body: CreateInvoiceInput, actor: ToolActor) => Promise<{ readonly invoice: unknown }>;
  readonly cancel: (projectId: string, invoiceId: string, actor: ToolActor) => Promise<unknown>;
}

/**
 * `create_invoice` and `cancel_invoice` for projects of `projectKind` (writes: the subscription
 * guard applies to non-sandbox projects). The sandbox plugin declares its variants with it.
 */
export function invoiceWriteTools(
  projectKind: 'production' | 'sandbox',
  handlers: InvoiceWriteHandlers,
  errors: { readonly create: readonly string[]; readonly cancel: readonly string[] },
): McpToolDefinition[] {
  const access = { projectKind, write: true } as const;
  return [
    defineMcpTool({
      name: 'create_invoice',
      title: 'Create an invoice',
      description: CREATE_INVOICE_DESCRIPTION,
      input: CreateInvoiceToolArguments,
      scope: 'invoices:write',
      access,
      writes: true,
      errors: errors.create,
      handler: async ({ args, project, actor }) => {
        const { project_id: _, ...body } = args;
        return (await handlers.create(project, body, actor)).invoice;
      },
    }),
    defineMcpTool({
      name: 'cancel_invoice',
      title: 'Cancel an invoice',
      description: CANCEL_INVOICE_DESCRIPTION,
      input: InvoiceToolArguments,
      scope: 'invoices:write',
      access,
      writes: true,
      errors: errors.cancel,
      handler: async ({ args, project, actor }) => handlers.cancel(project.id, args.invoice_id, actor),
    }),
  ];
}
