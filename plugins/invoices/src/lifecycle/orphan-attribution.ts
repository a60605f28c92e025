import { newCheckoutToken } from '../services/checkout-links.js';
import { createHash } from 'node:crypto';
import {
  type Actor,
  type AuditLog,
  type ChainRegistry,
  type CoinId,
  coreErrors,
  derivedIdAt,
  fromBaseUnits,
  networkFor,
  networkKindOf,
  newId,
  type ProjectKind,
  randomHex,
} from '@gw/kernel';
import type { AddressPoolService } from '@gw/plugin-address-pool/contract';
import type { RateService } from '@gw/plugin-rates/contract';
import type { Knex } from 'knex';
import { invoicesErrors } from '../errors.js';
import { Invoice } from '../models/invoice.js';
import type { InvoiceRow } from '../services/create-plan.js';
import { insertInvoices } from '../services/create-statements.js';
import { unitsToUsd } from '../services/amounts.js';
import { checkMetadataSize, lockExternalId, storedRateSnapshot } from '../services/invoice-rules.js';
import type { InvoiceView } from '../services/invoice-view.js';
import type { PolicyService } from '../services/policy-service.js';
import { receiptOf, stateOf, type ReceiptFields } from './invoice-state.js';
import type { LifecycleStore } from './lifecycle-store.js';
import { findTransition, NEW } from './transition-table.js';

/** A receipt that matched no invoice, attributed by the partner to an `external_id` (spec 4.3). */
export interface AttributionInput extends ReceiptFields {
  readonly projectId: string;
  readonly projectKind: ProjectKind;
  readonly externalId: string;
  readonly userId?: string | undefined;
  readonly metadata?: Record<string, unknown> | undefined;
  readonly coin: CoinId;
  readonly address: string;
  readonly poolAddressId: string;
  readonly derivationPath: string;
}

/** The outcome: the new paid invoice, or the refusal of a receipt below the confirmation threshold. */
export type AttributionResult = { readonly invoice: InvoiceView } | { readonly refused: { readonly confirmations: number; readonly threshold: number } };

/**
 * Orphan attribution's invoice side (the table's `new → paid` row): a synthetic invoice created
 * directly in `paid` for the receipt's amount, its transfer counted and `invoice.paid` sent, in the
 * caller's transaction (the watchers mark the receipt attributed in the same one). Only a receipt
 * with the chain's confirmation threshold (the project's policy) can be attributed.
 */
export class OrphanAttribution {
  constructor(
    private readonly deps: {
      chains: ChainRegistry;
      audit: AuditLog;
      ratesService: RateService;
      addressPoolService: AddressPoolService;
      invoicesPolicies: PolicyService;
      invoicesLifecycleStore: LifecycleStore;
    },
  ) {}

  /**
   * Creates the invoice in `trx`. 409 `external_id_conflict` when the project already has an
   * invoice under `externalId`; 500 `internal_error` when no USD rate can be had for the snapshot.
   */
  async createPaid(trx: Knex.Transaction, input: AttributionInput, actor: Actor): Promise<AttributionResult> {
    const { adapter, coin } = this.deps.chains.coin(input.coin);
    const chain = adapter.definition.id;
    const policy = (await this.deps.invoicesPolicies.getMany([input.projectId])).get(input.projectId)!;
    const threshold = policy.confirmations[chain] ?? adapter.definition.defaultConfirmations;
    const transition = findTransition(NEW, 'attributed', {
      liveUnits: input.amountUnits,
      amountUnits: input.amountUnits,
      matchingMode: 'exact',
      toleranceUnits: 0n,
      liveCount: 1,
      allFinal: true,
      uncountedFinal: true,
      countedLost: false,
      receiptFinal: input.confirmations >= Math.max(threshold, 1),
    });
    if (!transition || transition.to === 'same') return { refused: { confirmations: input.confirmations, threshold } };
    // The same lock as REST creates: a concurrent create under this external_id waits, then conflicts.
    checkMetadataSize(input.metadata);
    await lockExternalId(trx, input.projectId, input.externalId);
    if (await Invoice.query(trx).findOne({ project_id: input.projectId, external_id: input.externalId }).select('id')) {
      throw invoicesErrors.external_id_conflict({
        message: 'This external_id is already used by another invoice of the project.',
        details: { external_id: input.externalId },
      });
    }
    let quote;
    try {
      quote = await this.deps.ratesService.quote(input.coin);
    } catch (error) {
      throw coreErrors.internal_error({
        message: `No exchange rate for ${coin.symbol} could be had for the attributed invoice; try again later.`,
        cause: error,
      });
    }
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const units = input.amountUnits;
    const row: InvoiceRow = {
      id: newId(),
      project_id: input.projectId,
      project_kind: input.projectKind,
      external_id: input.externalId,
      request_fingerprint: createHash('sha256').update(`attributed:${chain}:${input.txHash}:${input.outputIndex}`).digest('hex'),
      coin: input.coin,
      chain,
      address: input.address,
      pool_address_id: input.poolAddressId,
      address_shared: false,
      // The address was not held for this invoice, so there is nothing to release.
      address_released_at: now,
      derivation_path: input.derivationPath,
      verification_standard: adapter.definition.verificationStandard,
      amount_units: units,
      amount_crypto: fromBaseUnits(units, coin.decimals),
      amount_usd: unitsToUsd(units, quote.rate, coin.decimals),
      rate_snapshot: storedRateSnapshot(quote),
      price_currency: null,
      price_amount: null,
      price_rate: null,
      payment_token: randomHex(8),
      // Already paid: nothing will be looked up by a reference.
      payment_reference: null,
      payment_uri: adapter.paymentUri({
        coin: input.coin,
        network: networkKindOf(input.projectKind),
        sandbox: input.projectKind === 'sandbox',
        address: input.address,
        amountUnits: units,
      }),
      callback_url: null,
      checkout_token: newCheckoutToken(),
      return_url: null,
      cancel_url: null,
      // The invoice has no user field: the partner's user_id is kept in its metadata.
      metadata:
        input.metadata === undefined && input.userId === undefined
          ? null
          : { ...(input.metadata ?? {}), ...(input.userId !== undefined ? { user_id: input.userId } : {}) },
      matching_mode: 'exact',
      confirmation_threshold: threshold,
      underpayment_tolerance: policy.underpayment_tolerance,
      status: transition.to,
      expires_at: now,
      created_at: now,
      updated_at: now,
    };
    const inserted = await insertInvoices(trx, this.deps.audit, [row], []);
    if (!inserted.has(row.id))
      throw invoicesErrors.external_id_conflict({
        message: 'This external_id is already used by another invoice of the project.',
        details: { external_id: input.externalId },
      });
    const invoice = Object.assign(new Invoice(), row, { metadata: inserted.get(row.id) ?? null, event_counts: {} });
    const state = stateOf(invoice, []);
    state.transfers.push({
      id: newId(),
      ...receiptOf(input),
      amountUnits: units,
      status: 'confirmed',
      synthetic: false,
      detectedAt: now,
      confirmedAt: now,
      dirty: true,
    });
    state.eventCounts[transition.event!.type] = 1;
    state.changed = true;
    state.applied.push({
      fact: 'attributed',
      row: transition,
      from: NEW,
      to: transition.to,
      event: {
        type: transition.event!.type,
        id: derivedIdAt(now, invoice.id, transition.event!.type, '1'),
        data: {
          paid_units: units.toString(),
          remaining_units: '0',
          attributed: true,
          tx_hash: input.txHash,
          ...(input.userId !== undefined ? { user_id: input.userId } : {}),
        },
      },
      details: {
        external_id: input.externalId,
        tx_hash: input.txHash,
        output_index: input.outputIndex,
        amount_units: units.toString(),
        confirmations: input.confirmations,
        network: networkFor(adapter.definition, input.projectKind).id,
      },
      transfers: state.transfers.map((t) => ({ ...t })),
    });
    await this.deps.addressPoolService.markPaidMany(trx, [input.poolAddressId]);
    await this.deps.invoicesLifecycleStore.persist(trx, [state], actor);
    return { invoice: this.deps.invoicesLifecycleStore.view(state) };
  }
}
