import {
  type Actor,
  AppError,
  type AuditLog,
  type ChainAdapter,
  type ChainRegistry,
  coreErrors,
  idempotencyDigest,
  type KeysetPage,
  keysetPage,
  networkFor,
  networkKindOf,
  newId,
  type ProjectKind,
  toBaseUnits,
  tokenContractFor,
  UnitsError,
  isUniqueViolation,
  type JobQueue,
} from '@gw/kernel';
import { checkMetadataSize, type InvoiceService } from '@gw/plugin-invoices/contract';
import { isRateUnavailable, type RateService } from '@gw/plugin-rates/contract';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import type { CreateRefundInput, ItemListFilter, ItemView, PayoutItems, PayoutRecipientInput } from '../contract.js';
import { enqueueClaimEmail } from '../claim/claim-email.js';
import type { PayoutsConfig } from '../config.js';
import { payoutsErrors } from '../errors.js';
import { COMMITTED_STATUSES, type ItemKind, PARTNER_CANCELLABLE_STATUSES, RATE_RULES } from '../item-status.js';
import { Item } from '../models/item.js';
import { itemAudit } from './audit.js';
import type { ItemStore } from './item-store.js';
import { usdOf } from './money.js';
import type { Policies } from './policies.js';
import { refundAmount } from './refund-amount.js';

/** Most recipients of one `POST /payouts`. */
export const MAX_RECIPIENTS = 100;
const DECIMAL = /^\d{1,40}(\.\d{1,40})?$/;
const SPREAD = /^\d{1,2}(\.\d{1,2})?$/;

export interface ItemsDeps {
  db: Knex;
  audit: AuditLog;
  chains: ChainRegistry;
  tenancyProjects: ProjectService;
  invoicesService: InvoiceService;
  ratesService: RateService;
  payoutsStore: ItemStore;
  payoutsPolicies: Policies;
  jobs: JobQueue;
  payoutsConfig: PayoutsConfig;
}

/** One recipient of a payout request, checked. */
interface PlannedPayout {
  readonly recipient: PayoutRecipientInput;
  readonly address: string;
  readonly units: bigint;
  readonly rate: string | null;
  readonly usd: string | null;
  readonly adapter: ChainAdapter;
}

/** Partner-side writes (refunds, payouts, cancels) and every read. */
export class PayoutItemsService implements PayoutItems {
  constructor(private readonly deps: ItemsDeps) {}

  async createRefund(
    input: CreateRefundInput,
    actor: Actor,
    options: { readonly inTransaction?: (trx: Knex.Transaction, item: ItemView) => Promise<void> } = {},
  ): Promise<{ item: ItemView; created: boolean }> {
    const { db, payoutsStore: store } = this.deps;
    const rateRule = input.rateRule ?? 'coin_amount';
    if (!RATE_RULES.includes(rateRule)) throw coreErrors.validation_error({ message: 'Unknown rate_rule.', details: { field: 'rate_rule' } });
    if (input.amount !== undefined && !DECIMAL.test(input.amount))
      throw coreErrors.validation_error({ message: 'amount must be a decimal.', details: { field: 'amount' } });
    if (input.spreadPercent !== undefined && !SPREAD.test(input.spreadPercent)) {
      throw coreErrors.validation_error({ message: 'spread_percent must be a decimal below 100 with at most 2 places.', details: { field: 'spread_percent' } });
    }
    checkMetadataSize(input.metadata);
    const { idempotencyKey, ...request } = input;
    const requestDigest = idempotencyDigest({ ...request, rateRule });
    if (idempotencyKey !== undefined) {
      const replay = await this.replayedRefund(input.projectId, idempotencyKey, requestDigest);
      if (replay) return { item: replay, created: false };
    }
    const project = await this.deps.tenancyProjects.get(input.projectId);
    const invoice = await this.deps.invoicesService.get(input.projectId, input.invoiceId);
    const { adapter, coin } = this.coinOf(invoice.coin, project.kind);
    const network = networkFor(adapter.definition, project.kind).id;
    const address = input.address?.trim();
    if (address !== undefined && !adapter.isValidAddress(address, networkKindOf(project.kind))) {
      throw payoutsErrors.claim_address_invalid({ details: { coin: invoice.coin, network } });
    }
    // Every transaction of the invoice (its view carries the latest only).
    const received = await this.receivedUnits(input.projectId, invoice);
    const nowRate = async () => {
      try {
        return (await this.deps.ratesService.quote(invoice.coin)).rate;
      } catch (error) {
        if (isRateUnavailable(error)) throw payoutsErrors.rate_quote_unavailable({ cause: error });
        throw error;
      }
    };
    const policy = await this.deps.payoutsPolicies.get(input.projectId);
    // The thresholds (claim proof, dual approval) value the refund at today's quote: the payment's rate
    // may be far below what the coin is worth now. Only without a quote the payment's; without either
    // the value is unknown and the stricter rule holds.
    const valueRate = (await this.rateOrNull(invoice.coin)) ?? invoice.rate_snapshot?.rate ?? null;
    try {
      return await db.transaction(async (trx) => {
        // Refunds of one invoice are summed and written one at a time.
        await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`payouts:invoice:${invoice.id}`]);
        // A retry that waited for the first request's lock answers what it committed (not 422 for the amount it already holds).
        if (idempotencyKey !== undefined) {
          const replay = await this.replayedRefund(input.projectId, idempotencyKey, requestDigest, trx);
          if (replay) return { item: replay, created: false };
        }
        const refunded = await this.refundedUnits(trx, invoice.id);
        const amount = await refundAmount(
          {
            status: invoice.status,
            decimals: coin.decimals,
            invoicedUnits: BigInt(invoice.amount_crypto_units),
            receivedUnits: received,
            refundedUnits: refunded,
            paymentRate: invoice.rate_snapshot?.rate ?? null,
          },
          {
            rateRule,
            ...(input.amount === undefined ? {} : { amount: input.amount }),
            ...(input.spreadPercent === undefined ? {} : { spreadPercent: input.spreadPercent }),
          },
          nowRate,
        );
        const usd = valueRate === null ? null : usdOf(amount.units, coin.decimals, valueRate);
        const id = newId();
        const claim = address === undefined ? store.newClaimToken(id) : undefined;
        const now = new Date();
        const item = await Item.query(trx).insertAndFetch({
          id,
          project_id: input.projectId,
          project_kind: project.kind,
          kind: 'refund',
          invoice_id: invoice.id,
          chain: adapter.definition.id,
          network,
          coin: invoice.coin,
          amount_units: amount.units,
          rate: amount.rate,
          rate_rule: rateRule,
          spread_percent: input.spreadPercent ?? null,
          address: address ?? null,
          reference: input.reference ?? null,
          reason: input.reason ?? null,
          metadata: input.metadata ? { ...input.metadata } : null,
          status: address === undefined ? 'awaiting_claim' : 'claimed',
          claim_token_hash: claim?.hash ?? null,
          claim_token_sealed: claim?.sealed ?? null,
          claim_requires_proof: adapter.verifyAddressSignature !== undefined && this.deps.payoutsPolicies.claimNeedsProof(policy, usd),
          claim_email: input.email ?? null,
          idempotency_key: idempotencyKey ?? null,
          request_digest: requestDigest,
          approvals_required: this.deps.payoutsPolicies.approvalsRequired(policy, usd),
          created_by: actor.actor,
          created_at: now,
          updated_at: now,
          claimed_at: address === undefined ? null : now,
        });
        await store.emit(trx, item, 'created', null);
        // The partner gave the payer's address: the refund is claimed as it is created.
        if (address !== undefined) await store.emit(trx, item, 'claimed', null);
        await this.deps.audit.record(itemAudit(actor, 'create', item, { invoice_id: invoice.id, amount_units: item.amount_units.toString() }), trx);
        // The claim link goes to the payer's e-mail if and only if the refund is committed.
        if (claim && input.email) await enqueueClaimEmail(this.deps, trx, item.id);
        const view = await store.viewOf(trx, item);
        await options.inTransaction?.(trx, view);
        return { item: view, created: true };
      });
    } catch (error) {
      // A concurrent create under the same key committed first: answer it.
      if (idempotencyKey !== undefined && isUniqueViolation(error, 'payouts_items_idempotency')) {
        const replay = await this.replayedRefund(input.projectId, idempotencyKey, requestDigest);
        if (replay) return { item: replay, created: false };
      }
      throw error;
    }
  }

  async createPayouts(
    projectId: string,
    recipients: readonly PayoutRecipientInput[],
    actor: Actor,
    idempotencyKey?: string,
  ): Promise<{ items: ItemView[]; created: boolean }> {
    const { db, payoutsStore: store } = this.deps;
    if (recipients.length < 1 || recipients.length > MAX_RECIPIENTS) {
      throw coreErrors.validation_error({ message: `recipients takes 1 to ${MAX_RECIPIENTS} entries.`, details: { field: 'recipients' } });
    }
    const requestDigest = idempotencyDigest(recipients);
    if (idempotencyKey !== undefined) {
      const replay = await this.replayedPayouts(projectId, idempotencyKey, requestDigest);
      if (replay) return { items: replay, created: false };
    }
    const project = await this.deps.tenancyProjects.get(projectId);
    const policy = await this.deps.payoutsPolicies.get(projectId);
    const references = new Set<string>();
    const rates = new Map<string, string | null>();
    const planned: PlannedPayout[] = [];
    for (const [index, recipient] of recipients.entries()) {
      if (references.has(recipient.reference)) {
        throw coreErrors.validation_error({ message: 'Each recipient needs its own reference.', details: { field: 'recipients', index } });
      }
      references.add(recipient.reference);
      try {
        checkMetadataSize(recipient.metadata);
      } catch (error) {
        if (error instanceof AppError) throw coreErrors.validation_error({ message: error.message, details: { field: 'metadata', index } });
        throw error;
      }
      const { adapter, coin } = this.coinOf(recipient.coin, project.kind, index);
      const address = recipient.address.trim();
      if (!adapter.isValidAddress(address, networkKindOf(project.kind))) {
        throw payoutsErrors.payout_address_invalid({ details: { index, coin: recipient.coin } });
      }
      let units: bigint;
      try {
        units = toBaseUnits(recipient.amount, coin.decimals);
      } catch (cause) {
        if (!(cause instanceof UnitsError)) throw cause;
        throw coreErrors.validation_error({ message: `amount: ${cause.message}`, details: { field: 'amount', index } });
      }
      if (units <= 0n) throw coreErrors.validation_error({ message: 'The amount is zero.', details: { field: 'amount', index } });
      if (!rates.has(recipient.coin)) rates.set(recipient.coin, await this.rateOrNull(recipient.coin));
      const rate = rates.get(recipient.coin) ?? null;
      planned.push({ recipient, address, units, rate, usd: rate === null ? null : usdOf(units, coin.decimals, rate), adapter });
    }
    try {
      return await db.transaction(async (trx) => {
        if (idempotencyKey !== undefined) {
          // The key's index is not unique (one key, many recipients): requests under one key are written one at a time.
          await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`payouts:payout-key:${projectId}:${idempotencyKey}`]);
          const replay = await this.replayedPayouts(projectId, idempotencyKey, requestDigest, trx);
          if (replay) return { items: replay, created: false };
        }
        const existing = await Item.query(trx)
          .where({ project_id: projectId, kind: 'payout' })
          .whereIn('reference', [...references])
          .forUpdate();
        if (existing.length > 0) return { items: await this.referenceReplay(trx, existing, planned), created: false };
        const now = new Date();
        const items: Item[] = [];
        for (const p of planned) {
          const item = await Item.query(trx).insertAndFetch({
            id: newId(),
            project_id: projectId,
            project_kind: project.kind,
            kind: 'payout',
            invoice_id: null,
            chain: p.adapter.definition.id,
            network: networkFor(p.adapter.definition, project.kind).id,
            coin: p.recipient.coin,
            amount_units: p.units,
            rate: p.rate,
            rate_rule: null,
            spread_percent: null,
            address: p.address,
            reference: p.recipient.reference,
            reason: p.recipient.reason ?? null,
            metadata: p.recipient.metadata ? { ...p.recipient.metadata } : null,
            status: 'pending_approval',
            claim_requires_proof: false,
            idempotency_key: idempotencyKey ?? null,
            request_digest: requestDigest,
            approvals_required: this.deps.payoutsPolicies.approvalsRequired(policy, p.usd),
            created_by: actor.actor,
            created_at: now,
            updated_at: now,
          });
          await store.emit(trx, item, 'created', null);
          items.push(item);
        }
        await this.deps.audit.recordMany(
          items.map((item) => itemAudit(actor, 'create', item, { reference: item.reference, amount_units: item.amount_units.toString(), coin: item.coin })),
          trx,
        );
        return { items: await store.views(trx, items), created: true };
      });
    } catch (error) {
      if (isUniqueViolation(error, 'payouts_items_reference')) {
        // A concurrent request with one of these references committed first.
        return db.transaction(async (trx) => {
          const existing = await Item.query(trx)
            .where({ project_id: projectId, kind: 'payout' })
            .whereIn('reference', [...references]);
          return { items: await this.referenceReplay(trx, existing, planned), created: false };
        });
      }
      throw error;
    }
  }

  async get(projectId: string, kind: ItemKind, id: string): Promise<ItemView> {
    const store = this.deps.payoutsStore;
    return store.viewOf(this.deps.db, await store.find(this.deps.db, projectId, kind, id));
  }

  async list(filter: ItemListFilter): Promise<KeysetPage<ItemView>> {
    const query = Item.query(this.deps.db)
      .where({ project_id: filter.projectId, kind: filter.kind })
      .orderBy('id', 'desc')
      .limit(filter.limit + 1);
    if (filter.status) query.where('status', filter.status);
    if (filter.invoiceId) query.where('invoice_id', filter.invoiceId);
    if (filter.cursor) query.where('id', '<', filter.cursor);
    return keysetPage(await query, filter.limit, (rows) => this.deps.payoutsStore.views(this.deps.db, rows));
  }

  /** Every refund of an invoice of the project, oldest first; 404 `invoice_not_found` for another project's. */
  async refundsOf(projectId: string, invoiceId: string): Promise<ItemView[]> {
    await this.deps.invoicesService.get(projectId, invoiceId);
    const rows = await Item.query(this.deps.db).where({ project_id: projectId, kind: 'refund', invoice_id: invoiceId }).orderBy('id');
    return this.deps.payoutsStore.views(this.deps.db, rows);
  }

  async cancel(projectId: string, kind: ItemKind, id: string, actor: Actor): Promise<ItemView> {
    const store = this.deps.payoutsStore;
    return this.deps.db.transaction(async (trx) => {
      const item = await store.find(trx, projectId, kind, id, true);
      if (!PARTNER_CANCELLABLE_STATUSES.includes(item.status)) throw payoutsErrors.item_not_cancellable({ details: { status: item.status } });
      const moved = await store.move(trx, item, 'cancelled');
      await this.deps.audit.record(itemAudit(actor, 'cancel', item), trx);
      return store.viewOf(trx, moved);
    });
  }

  /** The chain adapter and definition of a coin a project of `kind` can use; 422 `coin_not_enabled` otherwise. */
  private coinOf(coinId: string, kind: ProjectKind, index?: number) {
    const definition = this.deps.chains.knownCoin(coinId);
    const enabled = definition === undefined ? undefined : this.deps.chains.coin(coinId);
    if (!enabled || (enabled.coin.contracts && tokenContractFor(enabled.adapter.definition, enabled.coin, kind) === undefined)) {
      throw payoutsErrors.coin_not_enabled({ details: { coin: coinId, ...(index === undefined ? {} : { index }) } });
    }
    return enabled;
  }

  private async rateOrNull(coin: string): Promise<string | null> {
    try {
      return (await this.deps.ratesService.quote(coin)).rate;
    } catch (error) {
      if (isRateUnavailable(error)) return null;
      throw error;
    }
  }

  private async receivedUnits(projectId: string, invoice: Awaited<ReturnType<InvoiceService['get']>>): Promise<bigint> {
    let transactions = invoice.transactions;
    if (invoice.transactions_total > transactions.length) {
      const all = [];
      let cursor: string | undefined;
      do {
        const page = await this.deps.invoicesService.transactions(projectId, invoice.id, { limit: 200, ...(cursor ? { cursor } : {}) });
        all.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor);
      transactions = all;
    }
    // Counted: confirmed payments only (a pending one may still be replaced or dropped).
    return transactions.filter((tx) => tx.status === 'confirmed').reduce((sum, tx) => sum + BigInt(tx.amount_units), 0n);
  }

  private async refundedUnits(trx: Knex.Transaction, invoiceId: string): Promise<bigint> {
    const row = (await trx('payouts_items')
      .where({ invoice_id: invoiceId, kind: 'refund' })
      .whereIn('status', COMMITTED_STATUSES)
      .sum({ total: 'amount_units' })
      .first()) as { total: string | null } | undefined;
    return BigInt(row?.total ?? '0');
  }

  private async replayedRefund(projectId: string, key: string, requestDigest: string, db: Knex = this.deps.db): Promise<ItemView | undefined> {
    const item = await Item.query(db).findOne({ project_id: projectId, kind: 'refund', idempotency_key: key });
    if (!item) return undefined;
    if (item.request_digest !== requestDigest) throw payoutsErrors.idempotency_key_reused();
    return this.deps.payoutsStore.viewOf(db, item);
  }

  private async replayedPayouts(projectId: string, key: string, requestDigest: string, db: Knex = this.deps.db): Promise<ItemView[] | undefined> {
    const items = await Item.query(db).where({ project_id: projectId, kind: 'payout', idempotency_key: key }).orderBy('id');
    if (items.length === 0) return undefined;
    if (items.some((item) => item.request_digest !== requestDigest)) throw payoutsErrors.idempotency_key_reused();
    return this.deps.payoutsStore.views(db, items);
  }

  /** References already used: the same recipients answer the first payouts; anything else is `payout_reference_conflict`. */
  private async referenceReplay(
    trx: Knex.Transaction,
    existing: readonly Item[],
    planned: readonly { recipient: PayoutRecipientInput; address: string; units: bigint }[],
  ): Promise<ItemView[]> {
    const byReference = new Map(existing.map((item) => [item.reference, item]));
    const same = planned.map((p) => {
      const item = byReference.get(p.recipient.reference);
      return item && item.address === p.address && item.coin === p.recipient.coin && item.amount_units === p.units ? item : undefined;
    });
    // First a reference used for another recipient, else a new reference beside used ones.
    const differs = planned.findIndex((p, index) => same[index] === undefined && byReference.has(p.recipient.reference));
    const conflict = differs >= 0 ? differs : planned.findIndex((_, index) => same[index] === undefined);
    if (conflict >= 0) {
      const reference = planned[conflict]!.recipient.reference;
      const used = planned.filter((p) => byReference.has(p.recipient.reference)).map((p) => p.recipient.reference);
      throw differs >= 0
        ? payoutsErrors.payout_reference_conflict({
            message: `The reference ${JSON.stringify(reference)} was used for a payout to another address, coin or amount.`,
            details: { index: conflict, reference, reason: 'different_recipient', payout_id: byReference.get(reference)!.id },
          })
        : payoutsErrors.payout_reference_conflict({
            message: `The reference ${JSON.stringify(reference)} is new but the request also has references already used (${used.join(', ')}): a replay must repeat the first request, new recipients go in a request of their own.`,
            details: { index: conflict, reference, reason: 'mixed_with_existing', existing_references: used },
          });
    }
    return this.deps.payoutsStore.views(trx, same as Item[]);
  }
}
