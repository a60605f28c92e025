/** Type helpers over the generated {@link Operations} table. */
import type { Operations } from './generated/operations.js';

export type OperationId = keyof Operations;

type Has<T> = [T] extends [never] ? false : true;

/** What a call of an operation takes: path parameters, query and body where it has them. */
export type OperationArgs<K extends OperationId> = (Has<Operations[K]['params']> extends true
  ? { readonly params: Operations[K]['params'] }
  : { readonly params?: undefined }) &
  (Has<Operations[K]['query']> extends true ? { readonly query?: Operations[K]['query'] } : { readonly query?: undefined }) &
  (Has<Operations[K]['body']> extends true ? { readonly body: Operations[K]['body'] } : { readonly body?: undefined });

/** The body of an operation's success answer. */
export type OperationResult<K extends OperationId> = Operations[K]['responses'][keyof Operations[K]['responses']];

/** The request body of an operation. */
export type OperationBody<K extends OperationId> = Operations[K]['body'];

/** The query of an operation. */
export type OperationQuery<K extends OperationId> = Operations[K]['query'];

/** An invoice as retrieve answers it (with `transactions` and `confirmations`). */
export type Invoice = OperationResult<'getInvoicesById'>;
/** One page of invoices. */
export type InvoicePage = OperationResult<'getInvoices'>;
/** The body of invoice creation. */
export type CreateInvoiceInput = OperationBody<'postInvoices'>;
/** The filters of the invoice search. */
export type InvoiceQuery = OperationQuery<'getInvoices'>;
/** An orphan payment. */
export type OrphanPayment = OperationResult<'getOrphanPayments'>['items'][number];
/** A webhook delivery-log entry. */
export type WebhookEvent = OperationResult<'getWebhooksEventsByEventId'>;
/** A resend's answer. */
export type ResendResult = OperationResult<'postWebhooksEventsByEventIdResend'>;
/** A simulation's answer. */
export type SimulationResult = OperationResult<'postSandboxInvoicesByInvoiceIdSimulatePaid'>;
/** The project the client signs for. */
export type Project = OperationResult<'getProject'>;
