import type { Actor, ChainId, KeysetPage, KeysetPageRequest, ProjectPrincipal } from '@gw/kernel';
import type { Knex } from 'knex';
import type { InvoiceLifecycle } from '../lifecycle/invoice-lifecycle.js';
import type { CreateInvoiceInput, CreateResult } from './create-plan.js';
import type { InvoiceCreator } from './invoice-creator.js';
import type { CheckoutInvoice, InvoiceListFilter, InvoicePage, InvoiceReads } from './invoice-reads.js';
import type { InvoiceTransactionView, InvoiceView } from './invoice-view.js';

export type { CreateInvoiceInput, CreateResult } from './create-plan.js';
export type { InvoiceListFilter, InvoicePage } from './invoice-reads.js';

/**
 * Invoices as the other plugins and every channel (REST, MCP, CLI, sandbox) use them: creation
 * (InvoiceCreator), reads (InvoiceReads) and cancellation (the lifecycle's `cancel_requested`).
 * Every write is audited with its actor and channel; every read and write is scoped to the
 * caller's project.
 */
export class InvoiceService {
  constructor(private readonly deps: { invoicesCreator: InvoiceCreator; invoicesReads: InvoiceReads; invoicesLifecycle: InvoiceLifecycle }) {}

  /**
   * Creates an invoice, or returns the existing one for a replay of the same request
   * (`created: false`). Exactly one of `amount_usd` and `amount_crypto` must be given (else 400
   * `validation_error`); a different request under a used `external_id` is 409
   * `external_id_conflict`.
   */
  create(project: ProjectPrincipal, input: CreateInvoiceInput, actor: Actor): Promise<CreateResult> {
    return this.deps.invoicesCreator.create(project, input, actor);
  }

  /** One invoice of the project with its transactions; 404 `invoice_not_found` otherwise. */
  get(projectId: string, invoiceId: string, db?: Knex | Knex.Transaction): Promise<InvoiceView> {
    return this.deps.invoicesReads.get(projectId, invoiceId, db);
  }

  /** Every transaction of one invoice of the project, cursor-paginated; 404 `invoice_not_found` otherwise. */
  transactions(projectId: string, invoiceId: string, page: KeysetPageRequest): Promise<KeysetPage<InvoiceTransactionView>> {
    return this.deps.invoicesReads.transactions(projectId, invoiceId, page);
  }

  /** A page of the project's invoices, newest first (spec 4.2 filters). */
  list(projectId: string, filter: InvoiceListFilter): Promise<InvoicePage> {
    return this.deps.invoicesReads.list(projectId, filter);
  }

  /** Cancels a pending or detected invoice (the lifecycle's `cancel_requested`); 409 `invoice_not_cancellable` otherwise. */
  cancel(projectId: string, invoiceId: string, actor: Actor): Promise<InvoiceView> {
    return this.deps.invoicesLifecycle.cancel(projectId, invoiceId, actor);
  }

  /** How many of the project's invoices still wait for money (pending, detected, partial, ambiguous). */
  countActive(projectId: string): Promise<number> {
    return this.deps.invoicesReads.countActive(projectId);
  }

  /** Whether the project has an invoice under `externalId` (a create with it would be a replay). */
  hasExternalId(projectId: string, externalId: string): Promise<boolean> {
    return this.deps.invoicesReads.hasExternalId(projectId, externalId);
  }

  /** Ids of the project's invoices on `chain` with a payment still waiting for confirmations. */
  awaitingConfirmations(projectId: string, chain: ChainId): Promise<string[]> {
    return this.deps.invoicesReads.awaitingConfirmations(projectId, chain);
  }

  /** Invoices by id with their transactions; ids not found are absent. */
  getMany(invoiceIds: readonly string[], db?: Knex | Knex.Transaction): Promise<Map<string, InvoiceView>> {
    return this.deps.invoicesReads.getMany(invoiceIds, db);
  }

  /** The invoice behind a checkout token with its project's kind (the public checkout page); undefined for an unknown token. */
  byCheckoutToken(token: string): Promise<CheckoutInvoice | undefined> {
    return this.deps.invoicesReads.byCheckoutToken(token);
  }

  /** Deletes every invoice of the project and its transactions (the sandbox reset), in `trx`. */
  purgeProject(trx: Knex.Transaction, projectId: string): Promise<number> {
    return this.deps.invoicesReads.purgeProject(trx, projectId);
  }
}
