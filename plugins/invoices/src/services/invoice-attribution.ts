import { createHash, randomBytes } from 'node:crypto';
import { coreErrors, fromBaseUnits, networkFor, networkKindOf, newId, type AuditLog, type ChainRegistry, type CoinId, type InvoiceEvents, type ProjectKind } from '@gw/kernel';
import type { RateService } from '@gw/plugin-rates';
import type { Actor } from '@gw/plugin-tenancy';
import type { Knex } from 'knex';
import { invoicesErrors } from '../errors.js';
import { Invoice } from '../models/invoice.js';
import { transactionsByInvoice } from '../models/invoice-transaction.js';
import { unitsToUsd } from './amounts.js';
import { checkMetadataSize, lockExternalId, storedRateSnapshot } from './invoice-rules.js';
import type { InvoiceTransitions, TransactionWrite } from './invoice-transitions.js';
import { invoiceView, type InvoiceView } from './invoice-view.js';
import type { PolicyService } from './policy-service.js';

/** A receipt that matched no invoice, attributed by the partner to an `external_id` (spec 4.3). */
export interface AttributionInput {
  readonly projectId: string;
  readonly projectKind: ProjectKind;
  readonly externalId: string;
  readonly userId?: string | undefined;
  readonly metadata?: Record<string, unknown> | undefined;
  readonly coin: CoinId;
  readonly address: string;
  readonly poolAddressId: string;
  readonly derivationPath: string;
  readonly transaction: TransactionWrite;
}

/**
 * Orphan attribution's invoice side: a synthetic invoice created directly in `paid` for the
 * receipt's amount, its transaction written and `invoice.paid` emitted, in the caller's
 * transaction (the watchers mark the orphan attributed in the same one).
 */
export class InvoiceAttribution {
  constructor(private readonly deps: { audit: AuditLog; chains: ChainRegistry; invoiceEvents: InvoiceEvents; ratesService: RateService; invoicesPolicies: PolicyService; invoicesTransitions: InvoiceTransitions }) {}

  /**
   * Creates the invoice in `trx`. 409 `external_id_conflict` when the project already has an
   * invoice under `externalId`; 500 `internal_error` when no USD rate can be had for the snapshot.
   */
  async createPaid(trx: Knex.Transaction, input: AttributionInput, actor: Actor): Promise<InvoiceView> {
    // The same lock as REST creates: a concurrent create under this external_id waits, then conflicts.
    checkMetadataSize(input.metadata);
    await lockExternalId(trx, input.projectId, input.externalId);
    if (await Invoice.query(trx).findOne({ project_id: input.projectId, external_id: input.externalId }).select('id')) {
      throw invoicesErrors.external_id_conflict({ message: 'This external_id is already used by another invoice of the project.', details: { external_id: input.externalId } });
    }
    const { adapter, coin } = this.deps.chains.coin(input.coin);
    let quote;
    try {
      quote = await this.deps.ratesService.quote(input.coin);
    } catch (error) {
      throw coreErrors.internal_error({ message: `No exchange rate for ${coin.symbol} could be had for the attributed invoice; try again later.`, cause: error });
    }
    const units = input.transaction.amountUnits;
    const policy = (await this.deps.invoicesPolicies.getMany([input.projectId])).get(input.projectId)!;
    const chain = adapter.definition.id;
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const paymentToken = randomBytes(8).toString('hex');
    const id = newId();
    const invoice = await Invoice.query(trx).insertAndFetch({
      id,
      project_id: input.projectId,
      project_kind: input.projectKind,
      external_id: input.externalId,
      request_fingerprint: createHash('sha256').update(`attributed:${chain}:${input.transaction.txHash}:${input.transaction.outputIndex ?? 0}`).digest('hex'),
      coin: input.coin,
      chain,
      address: input.address,
      pool_address_id: input.poolAddressId,
      address_shared: false,
      // The address was not held for this invoice, so there is nothing to release.
      address_released_at: now,
      derivation_path: input.derivationPath,
      verification_standard: adapter.definition.verificationStandard,
      amount_units: units.toString(),
      amount_crypto: fromBaseUnits(units, coin.decimals),
      amount_usd: unitsToUsd(units, quote.rate, coin.decimals),
      rate_snapshot: storedRateSnapshot(quote),
      payment_token: paymentToken,
      payment_uri: adapter.paymentUri({ coin: input.coin, network: networkKindOf(input.projectKind), address: input.address, amountUnits: units }),
      callback_url: null,
      // The invoice has no user field: the partner's user_id is kept in its metadata.
      metadata: input.metadata === undefined && input.userId === undefined ? null : { ...(input.metadata ?? {}), ...(input.userId !== undefined ? { user_id: input.userId } : {}) },
      matching_mode: 'exact',
      confirmation_threshold: policy.confirmations[chain] ?? adapter.definition.defaultConfirmations,
      status: 'paid',
      expires_at: now,
      created_at: now,
      updated_at: now,
    } as Partial<Invoice>);
    await this.deps.invoicesTransitions.writeTransaction(trx, invoice, input.transaction);
    const view = invoiceView(invoice, (await transactionsByInvoice(trx, [invoice.id])).get(invoice.id) ?? [], this.deps.chains);
    const [eventId] = await this.deps.invoiceEvents.emit(trx, [
      {
        projectId: input.projectId,
        projectKind: input.projectKind,
        invoiceId: invoice.id,
        eventType: 'invoice.paid',
        callbackUrl: null,
        data: { invoice_id: invoice.id, external_id: invoice.external_id, status: 'paid', previous_status: null, attributed: true, ...(input.userId !== undefined ? { user_id: input.userId } : {}), invoice: view },
      },
    ]);
    await this.deps.audit.record(
      {
        ...actor,
        action: 'invoice.attribute',
        projectId: input.projectId,
        target: `invoice:${invoice.id}`,
        details: { external_id: input.externalId, tx_hash: input.transaction.txHash, output_index: input.transaction.outputIndex ?? 0, amount_units: units.toString(), event_id: eventId ?? null, network: networkFor(adapter.definition, input.projectKind).id },
      },
      trx,
    );
    return view;
  }
}
