import { createHash, randomBytes } from 'node:crypto';
import {
  coreErrors,
  parseInstant,
  isAppError,
  newId,
  networkFor,
  networkKindOf,
  toBaseUnits,
  fromBaseUnits,
  UnitsError,
  createBatcher,
  type AuditEntry,
  type AuditLog,
  type ChainAdapter,
  type ChainId,
  type ChainRegistry,
  type Settled,
  type CoinId,
  type ProjectPrincipal,
  type RateLimiter,
} from '@gw/kernel';
import { addressPoolErrors, type AddressPoolService, type Allocation } from '@gw/plugin-address-pool';
import type { RateQuote, RateService } from '@gw/plugin-rates';
import { validateWebhookUrl, type Actor } from '@gw/plugin-tenancy';
import type { WalletService } from '@gw/plugin-wallets';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { InvoicesConfig, MatchingMode } from '../config.js';
import { invoicesErrors } from '../errors.js';
import { WAITING_STATUSES, CANCELLABLE_STATUSES, type InvoiceStatus } from '../invoice-status.js';
import { InvoiceTransaction, transactionsByInvoice } from '../models/invoice-transaction.js';
import { Invoice } from '../models/invoice.js';
import { MAX_AMOUNT_UNITS, usdDecimal, usdToUnits } from './amounts.js';
import { invoiceView, type InvoiceView } from './invoice-view.js';
import { checkMetadataSize, externalIdLockKey, lockExternalId, storedRateSnapshot } from './invoice-rules.js';
import type { PolicyService, ResolvedPolicy } from './policy-service.js';

/** Create request (the body of POST /invoices, spec 4.2). */
export interface CreateInvoiceInput {
  readonly external_id: string;
  readonly amount_usd?: number | null | undefined;
  readonly amount_crypto?: string | null | undefined;
  readonly coin: CoinId;
  readonly callback_url?: string | null | undefined;
  readonly metadata?: object | null | undefined;
  readonly matching_mode?: MatchingMode | null | undefined;
}

/** Filters of GET /invoices (spec 4.2). */
export interface InvoiceListFilter {
  readonly external_id?: string | undefined;
  readonly address?: string | undefined;
  readonly tx_hash?: string | undefined;
  readonly amount?: string | undefined;
  readonly status?: InvoiceStatus | undefined;
  readonly date_from?: string | undefined;
  readonly date_to?: string | undefined;
  readonly cursor?: string | undefined;
  readonly limit: number;
}

/** The outcome of a create: the invoice, and whether this call created it (201) or replayed it (200). */
export interface CreateResult {
  readonly invoice: InvoiceView;
  readonly created: boolean;
}

export interface InvoicePage {
  readonly items: InvoiceView[];
  readonly next_cursor?: string;
}

/** What a receipt at an address concerns: the project that owns the address, the address and the coin received. */
export interface PaymentCandidateKey {
  readonly projectId: string;
  readonly address: string;
  readonly coin: CoinId;
}

/** The map key of `paymentCandidatesMany`. */
export function paymentCandidateKey(key: PaymentCandidateKey): string {
  return `${key.projectId}|${key.address}|${key.coin}`;
}

/**
 * Invoices: creation (idempotent on project + external_id, address and invoice in one
 * transaction), retrieval, search and cancellation. Every write is audited with its actor and
 * channel; every read and write is scoped to the caller's project.
 */
export class InvoiceService {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      chains: ChainRegistry;
      rateLimiter: RateLimiter;
      logger: Logger;
      invoicesConfig: InvoicesConfig;
      invoicesPolicies: PolicyService;
      addressPoolService: AddressPoolService;
      walletsWallets: WalletService;
      ratesService: RateService;
    },
  ) {
    this.batcher = createBatcher<CreateRequest, CreateResult>({
      maxBatch: deps.invoicesConfig.createBatchSize,
      concurrency: deps.invoicesConfig.createBatchConcurrency,
      run: (items) => this.createBatch(items),
    });
  }

  private readonly batcher: { submit(item: CreateRequest): Promise<CreateResult> };

  /**
   * Creates an invoice, or returns the existing one for a replay of the same request
   * (`created: false`). Exactly one of `amount_usd` and `amount_crypto` must be given (else 400
   * `validation_error`). A different request under a used `external_id` is 409
   * `external_id_conflict`. Concurrent identical creates serialise on an advisory lock of
   * (project, external_id), so exactly one of them creates.
   *
   * Concurrent creates of this process are batched (`createBatch`): one transaction, one
   * statement per step for the whole batch, each caller still gets its own outcome.
   */
  async create(project: ProjectPrincipal, input: CreateInvoiceInput, actor: Actor): Promise<CreateResult> {
    const request = this.normalise(project, input);
    return this.batcher.submit({ project, input, actor, request });
  }

  private async createBatch(items: CreateRequest[]): Promise<Settled<CreateResult>[]> {
    const outcomes: (Settled<CreateResult> | undefined)[] = new Array(items.length);
    const fail = (i: number, error: unknown) => (outcomes[i] = { ok: false, error });
    const limit = this.deps.invoicesConfig.createRateLimitPerMinute;
    for (const [projectId, indexes] of groupBy(items.keys(), (i) => items[i]!.project.id)) {
      const hits = await this.deps.rateLimiter.hitMany({ key: `invoices.create:project:${projectId}`, limit, windowSeconds: 60 }, indexes.length);
      indexes.forEach((i, n) => {
        if (!hits[n]!.allowed) fail(i, coreErrors.rate_limit_exceeded({ retryAfter: hits[n]!.retryAfter, details: { limit, window_seconds: 60 } }));
      });
    }
    // Replays first: a stored invoice is returned as it is, whatever the policy or the rates say now.
    const open = [...items.keys()].filter((i) => !outcomes[i]);
    const stored = await this.findByExternalIds(this.deps.db, open.map((i) => items[i]!));
    const replayed = open.filter((i) => stored.has(externalIdLockKey(items[i]!.project.id, items[i]!.input.external_id)));
    if (replayed.length > 0) {
      const transactions = await this.transactionsOf(replayed.map((i) => stored.get(externalIdLockKey(items[i]!.project.id, items[i]!.input.external_id))!.id));
      for (const i of replayed) {
        const row = stored.get(externalIdLockKey(items[i]!.project.id, items[i]!.input.external_id))!;
        outcomes[i] = attempt(() => ({ invoice: this.replayView(row, items[i]!.request.fingerprint, transactions.get(row.id) ?? []), created: false }));
      }
    }
    const policies = await this.deps.invoicesPolicies.getMany(items.map((item) => item.project.id));
    const quotes = new Map<CoinId, Promise<RateQuote>>();
    const plans = new Map<number, CreatePlan>();
    await Promise.all(
      [...items.keys()].map(async (i) => {
        if (outcomes[i]) return;
        const item = items[i]!;
        try {
          const quote = item.request.usd === null ? undefined : memo(quotes, item.input.coin, () => this.deps.ratesService.quote(item.input.coin));
          plans.set(i, await this.plan(item, policies.get(item.project.id)!, quote));
        } catch (error) {
          fail(i, error);
        }
      }),
    );
    const planned = [...plans.keys()].sort((a, b) => a - b);
    // A second create of one (project, external_id) in the same batch waits until the batch has
    // committed; then it is a replay (or a conflict) of whatever the first one created.
    const keys = new Set<string>();
    const again: number[] = [];
    const first = planned.filter((i) => {
      const key = externalIdLockKey(items[i]!.project.id, items[i]!.input.external_id);
      if (keys.has(key)) {
        again.push(i);
        return false;
      }
      keys.add(key);
      return true;
    });
    if (first.length > 0) {
      try {
        const settled = await this.deps.db.transaction((trx) => this.createPlanned(trx, first.map((i) => ({ item: items[i]!, plan: plans.get(i)! }))));
        first.forEach((i, n) => (outcomes[i] = settled[n]));
      } catch (error) {
        // Something failed the batch as a whole: each request runs on its own, so one bad request
        // cannot fail its neighbours.
        this.deps.logger.warn({ err: error, size: first.length }, 'invoice create batch failed; creating one by one');
        await Promise.all(first.map(async (i) => (outcomes[i] = await settle(this.createOne(items[i]!, plans.get(i)!)))));
      }
    }
    // After the first committed, each repeat alone finds it under the lock: a replay or a conflict.
    await Promise.all(again.map(async (i) => (outcomes[i] = await settle(this.createOne(items[i]!, plans.get(i)!)))));
    return outcomes.map((outcome) => outcome ?? { ok: false, error: new Error('invoice create produced no outcome') });
  }

  /** Stored invoices of the requests' (project, external_id) pairs, keyed by `externalIdLockKey`. */
  private async findByExternalIds(db: Knex | Knex.Transaction, requests: readonly CreateRequest[]): Promise<Map<string, Invoice>> {
    if (requests.length === 0) return new Map();
    const rows = await Invoice.query(db)
      .whereIn('project_id', [...new Set(requests.map((r) => r.project.id))])
      .whereIn('external_id', [...new Set(requests.map((r) => r.input.external_id))]);
    return new Map(rows.map((row) => [externalIdLockKey(row.project_id, row.external_id), row]));
  }

  /** Checks that need the policy and the rate; everything a create decides before the transaction. */
  private async plan(item: CreateRequest, policy: ResolvedPolicy, quote: Promise<RateQuote> | undefined): Promise<CreatePlan> {
    const { project, input, request } = item;
    if (!policy.enabled_coins.includes(input.coin) || !request.chainEnabled) {
      throw invoicesErrors.coin_not_enabled({ message: `Coin ${input.coin} is not enabled for this project.`, details: { coin: input.coin, enabled_coins: policy.enabled_coins } });
    }
    const { adapter, coin } = this.deps.chains.coin(input.coin);
    const chain = adapter.definition.id;
    const network = networkFor(adapter.definition, project.kind);
    if (coin.contracts && !coin.contracts[network.id]) {
      throw invoicesErrors.coin_not_enabled({ message: `${coin.symbol} (${coin.id}) has no token contract on ${network.name}, so it cannot be invoiced there.`, details: { coin: coin.id, network: network.id } });
    }
    let units = request.units;
    let rate: RateQuote | undefined;
    if (quote) {
      try {
        rate = await quote;
      } catch (error) {
        // A project that could not take the invoice anyway hears that first, not about rates.
        await this.deps.walletsWallets.requireVerifiedWallet(project.id, chain);
        throw error;
      }
      units = usdToUnits(request.usd!, rate.rate, coin.decimals);
    }
    if (units === null || units <= 0n) throw invoicesErrors.amount_out_of_range({ message: 'The amount is zero in base units.', details: { amount_crypto_units: String(units ?? 0n) } });
    if (units > MAX_AMOUNT_UNITS) throw invoicesErrors.amount_out_of_range({ message: 'The amount exceeds what any chain can transfer (2^256 - 1 base units).', details: { amount_crypto_units: units.toString() } });
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    return {
      id: newId(),
      adapter,
      decimals: coin.decimals,
      units,
      quote: rate,
      matchingMode: input.matching_mode ?? policy.default_matching_mode,
      confirmations: policy.confirmations[chain] ?? adapter.definition.defaultConfirmations,
      createdAt: now,
      expiresAt: new Date(now.getTime() + policy.expiry_seconds * 1000),
    };
  }

  /**
   * The transaction of a batch: advisory locks in one global order (so concurrent batches never
   * deadlock), replays found in one query, fresh addresses per (project, chain) in one pass, the
   * rest one by one in savepoints (overlay, exhaustion), one insert, one audit insert.
   */
  private async createPlanned(trx: Knex.Transaction, batch: { item: CreateRequest; plan: CreatePlan }[]): Promise<Settled<CreateResult>[]> {
    const outcomes: (Settled<CreateResult> | undefined)[] = new Array(batch.length);
    await trx.raw(
      `select pg_advisory_xact_lock(h) from (select hashtextextended(k, 0) as h from unnest(?::text[]) as k order by h offset 0) ordered`,
      [batch.map(({ item }) => externalIdLockKey(item.project.id, item.input.external_id))],
    );
    const byKey = await this.findByExternalIds(trx, batch.map(({ item }) => item));
    const toCreate: number[] = [];
    const replays: number[] = [];
    batch.forEach(({ item }, n) => (byKey.has(externalIdLockKey(item.project.id, item.input.external_id)) ? replays : toCreate).push(n));

    const allocations = new Map<number, Allocation>();
    for (const [group, indexes] of groupBy(toCreate, (n) => `${batch[n]!.item.project.id}:${batch[n]!.plan.adapter.definition.id}`)) {
      const [projectId, chain] = group.split(':') as [string, ChainId];
      let fresh: Allocation[] = [];
      try {
        fresh = await this.deps.addressPoolService.allocateMany(trx, { projectId, chain, invoiceRefs: indexes.map((n) => batch[n]!.plan.id) });
      } catch (error) {
        for (const n of indexes) outcomes[n] = { ok: false, error };
        continue;
      }
      fresh.forEach((allocation, k) => allocations.set(indexes[k]!, allocation));
      for (const n of indexes.slice(fresh.length)) {
        const { plan } = batch[n]!;
        try {
          allocations.set(n, await trx.transaction((savepoint) => this.allocateOne(savepoint, projectId, chain, plan)));
        } catch (error) {
          outcomes[n] = { ok: false, error };
        }
      }
    }
    const creating = toCreate.filter((n) => allocations.has(n));
    if (creating.length > 0) {
      const rows = creating.map((n) => this.invoiceRow(batch[n]!.item, batch[n]!.plan, allocations.get(n)!));
      const inserted = await Invoice.query(trx).insert(rows).returning('*');
      const insertedById = new Map((inserted as unknown as Invoice[]).map((row) => [row.id, row]));
      await this.deps.audit.recordMany(creating.map((n) => this.createAudit(batch[n]!.item, insertedById.get(batch[n]!.plan.id)!, allocations.get(n)!)), trx);
      for (const n of creating) outcomes[n] = { ok: true, value: { invoice: invoiceView(insertedById.get(batch[n]!.plan.id)!, [], this.deps.chains), created: true } };
    }
    if (replays.length > 0) {
      const transactions = await this.transactionsOf(replays.map((n) => byKey.get(externalIdLockKey(batch[n]!.item.project.id, batch[n]!.item.input.external_id))!.id), trx);
      for (const n of replays) {
        const row = byKey.get(externalIdLockKey(batch[n]!.item.project.id, batch[n]!.item.input.external_id))!;
        outcomes[n] = attempt(() => ({ invoice: this.replayView(row, batch[n]!.item.request.fingerprint, transactions.get(row.id) ?? []), created: false }));
      }
    }
    return outcomes.map((outcome) => outcome ?? { ok: false, error: new Error('invoice create produced no outcome') });
  }

  /** One create on its own (the fallback when a batch fails as a whole). Already rate-limited. */
  private async createOne(item: CreateRequest, plan: CreatePlan): Promise<CreateResult> {
    const { project, input, request } = item;
    try {
      return await this.deps.db.transaction(async (trx) => {
        await lockExternalId(trx, project.id, input.external_id);
        const raced = await Invoice.query(trx).findOne({ project_id: project.id, external_id: input.external_id });
        if (raced) return { invoice: await this.replay(raced, request.fingerprint, trx), created: false };
        const allocation = await this.allocateOne(trx, project.id, plan.adapter.definition.id, plan);
        const invoice = await Invoice.query(trx).insertAndFetch(this.invoiceRow(item, plan, allocation));
        await this.deps.audit.record(this.createAudit(item, invoice, allocation), trx);
        return { invoice: invoiceView(invoice, [], this.deps.chains), created: true };
      });
    } catch (error) {
      // The unique index is the last line of defence behind the advisory lock.
      if (!isAppError(error) && (error as { code?: string }).code === '23505' && String((error as { constraint?: string }).constraint).includes('external_id')) {
        const winner = await Invoice.query(this.deps.db).findOne({ project_id: project.id, external_id: input.external_id });
        if (winner) return { invoice: await this.replay(winner, request.fingerprint), created: false };
      }
      throw error;
    }
  }

  /** One address through the pool's full rules; a shared address needs `exact` matching. */
  private async allocateOne(trx: Knex.Transaction, projectId: string, chain: ChainId, plan: CreatePlan): Promise<Allocation> {
    const allocation = await this.deps.addressPoolService.allocate(trx, { projectId, chain, invoiceRef: plan.id });
    if (allocation.isOverlay && plan.matchingMode !== 'exact') {
      throw addressPoolErrors.overlay_matching_mode_required_exact({ details: { chain, matching_mode: plan.matchingMode } });
    }
    return allocation;
  }

  private invoiceRow(item: CreateRequest, plan: CreatePlan, allocation: Allocation) {
    const { project, input, request } = item;
    const paymentToken = randomBytes(8).toString('hex');
    const { adapter } = plan;
    return {
      id: plan.id,
      project_id: project.id,
      project_kind: project.kind,
      external_id: input.external_id,
      request_fingerprint: request.fingerprint,
      coin: input.coin,
      chain: adapter.definition.id,
      address: allocation.address,
      pool_address_id: allocation.addressId,
      address_shared: allocation.isOverlay,
      address_released_at: null,
      derivation_path: allocation.derivationPath,
      verification_standard: adapter.definition.verificationStandard,
      amount_units: plan.units.toString(),
      amount_crypto: fromBaseUnits(plan.units, plan.decimals),
      amount_usd: request.usd,
      rate_snapshot: plan.quote ? storedRateSnapshot(plan.quote) : null,
      payment_token: paymentToken,
      payment_uri: adapter.paymentUri({
        coin: input.coin,
        network: networkKindOf(project.kind),
        address: allocation.address,
        amountUnits: plan.units,
        ...(adapter.definition.capabilities.supportsMemo ? { memo: paymentToken } : {}),
      }),
      callback_url: request.callbackUrl,
      metadata: (input.metadata as Record<string, unknown> | null | undefined) ?? null,
      matching_mode: plan.matchingMode,
      confirmation_threshold: plan.confirmations,
      status: 'pending' as const,
      expires_at: plan.expiresAt,
      created_at: plan.createdAt,
      updated_at: plan.createdAt,
    };
  }

  private createAudit(item: CreateRequest, invoice: Invoice, allocation: Allocation): AuditEntry {
    return {
      ...item.actor,
      action: 'invoice.create',
      projectId: item.project.id,
      target: `invoice:${invoice.id}`,
      details: { external_id: invoice.external_id, coin: invoice.coin, amount_units: invoice.amount_units, address: invoice.address, overlay: allocation.isOverlay },
    };
  }

  /** One invoice of the project, with its transactions (read in `db`); 404 `invoice_not_found` otherwise. */
  async get(projectId: string, invoiceId: string, db: Knex | Knex.Transaction = this.deps.db): Promise<InvoiceView> {
    const invoice = await Invoice.query(db).findOne({ id: invoiceId, project_id: projectId });
    if (!invoice) throw invoicesErrors.invoice_not_found();
    return invoiceView(invoice, await this.transactionsOf([invoice.id], db).then((m) => m.get(invoice.id) ?? []), this.deps.chains);
  }

  /**
   * Newest first, `limit` per page; `next_cursor` is the last id of a full page. Pages are keyed
   * by id (`id < cursor`), so rows created while a client pages never shift or repeat entries.
   */
  async list(projectId: string, filter: InvoiceListFilter): Promise<InvoicePage> {
    const query = Invoice.query(this.deps.db).where('project_id', projectId).orderBy('id', 'desc').limit(filter.limit + 1);
    if (filter.cursor) query.where('id', '<', filter.cursor);
    if (filter.external_id !== undefined) query.where('external_id', filter.external_id);
    if (filter.address !== undefined) query.where('address', filter.address.trim());
    if (filter.status !== undefined) query.where('status', filter.status);
    if (filter.amount !== undefined) query.whereRaw('amount_crypto::numeric = ?::numeric', [filter.amount]);
    if (filter.tx_hash !== undefined) {
      const txHash = filter.tx_hash.trim();
      query.whereExists(
        InvoiceTransaction.query(this.deps.db)
          .whereColumn(`${InvoiceTransaction.tableName}.invoice_id`, `${Invoice.tableName}.id`)
          .where(`${InvoiceTransaction.tableName}.project_id`, projectId)
          .where((q) => q.where('tx_hash', txHash).orWhere('tx_hash', txHash.toLowerCase())),
      );
    }
    const from = filter.date_from !== undefined ? parseInstant(filter.date_from, 'date_from', 'start') : undefined;
    const to = filter.date_to !== undefined ? parseInstant(filter.date_to, 'date_to', 'end') : undefined;
    if (from && to && from > to) throw coreErrors.validation_error({ message: 'query.date_from is after query.date_to', details: { field: 'query.date_from' } });
    if (from) query.where('created_at', '>=', from);
    if (to) query.where('created_at', '<=', to);
    const rows = await query;
    const page = rows.slice(0, filter.limit);
    const transactions = await this.transactionsOf(page.map((row) => row.id));
    const items = page.map((row) => invoiceView(row, transactions.get(row.id) ?? [], this.deps.chains));
    return rows.length > filter.limit ? { items, next_cursor: page[page.length - 1]!.id } : { items };
  }

  /**
   * Cancels a `pending` or `detected` invoice and releases its deposit address into cooldown, in
   * one transaction. Any other status is 409 `invoice_not_cancellable`.
   */
  async cancel(projectId: string, invoiceId: string, actor: Actor): Promise<InvoiceView> {
    return this.deps.db.transaction(async (trx) => {
      const invoice = await Invoice.query(trx).findOne({ id: invoiceId, project_id: projectId }).forUpdate();
      if (!invoice) throw invoicesErrors.invoice_not_found();
      if (!CANCELLABLE_STATUSES.includes(invoice.status)) {
        throw invoicesErrors.invoice_not_cancellable({ message: `The invoice is ${invoice.status}; only pending or detected invoices can be cancelled.`, details: { status: invoice.status } });
      }
      await this.deps.addressPoolService.release(trx, invoice.pool_address_id);
      const now = new Date();
      const cancelled = await Invoice.query(trx).patchAndFetchById(invoice.id, { status: 'cancelled', address_released_at: now, updated_at: now });
      await this.deps.audit.record({ ...actor, action: 'invoice.cancel', projectId, target: `invoice:${invoice.id}`, details: { from: invoice.status } }, trx);
      const transactions = (await this.transactionsOf([invoice.id], trx)).get(invoice.id) ?? [];
      return invoiceView(cancelled, transactions, this.deps.chains);
    });
  }

  /** How many of the project's invoices still wait for money (pending, detected, partial, ambiguous). */
  async countActive(projectId: string): Promise<number> {
    const row = await Invoice.query(this.deps.db).where('project_id', projectId).whereIn('status', WAITING_STATUSES).count('* as n').first();
    return Number((row as unknown as { n: string | number } | undefined)?.n ?? 0);
  }

  /** Whether the project has an invoice under `externalId` (a create with it would be a replay). */
  async hasExternalId(projectId: string, externalId: string): Promise<boolean> {
    return (await Invoice.query(this.deps.db).findOne({ project_id: projectId, external_id: externalId }).select('id')) !== undefined;
  }

  /** The project's invoices in `status` on `chain`, oldest first, with their transactions. */
  async listByStatus(projectId: string, chain: ChainId, status: InvoiceStatus): Promise<InvoiceView[]> {
    const rows = await Invoice.query(this.deps.db).where({ project_id: projectId, chain, status }).orderBy('id');
    const transactions = await this.transactionsOf(rows.map((row) => row.id));
    return rows.map((row) => invoiceView(row, transactions.get(row.id) ?? [], this.deps.chains));
  }

  /** Invoices by id with their transactions (read in `db`); ids not found are absent. */
  async getMany(invoiceIds: readonly string[], db: Knex | Knex.Transaction = this.deps.db): Promise<Map<string, InvoiceView>> {
    if (invoiceIds.length === 0) return new Map();
    const rows = await Invoice.query(db).whereRaw('id = any(?)', [[...new Set(invoiceIds)]]);
    const transactions = await this.transactionsOf(rows.map((row) => row.id), db);
    return new Map(rows.map((row) => [row.id, invoiceView(row, transactions.get(row.id) ?? [], this.deps.chains)]));
  }

  /**
   * The project's invoices at `address` on `chain` for `coin` that a receipt there may concern:
   * those still waiting (pending, detected, partial, ambiguous), reverted ones (a re-confirmation)
   * and expired ones (a late payment), newest first, at most 50, with their transactions.
   */
  async paymentCandidates(db: Knex | Knex.Transaction, input: PaymentCandidateKey & { chain: ChainId }): Promise<InvoiceView[]> {
    return (await this.paymentCandidatesMany(db, input.chain, [input])).get(paymentCandidateKey(input)) ?? [];
  }

  /** `paymentCandidates` of several (project, address, coin) keys of one chain in two statements, keyed by `paymentCandidateKey`. */
  async paymentCandidatesMany(db: Knex | Knex.Transaction, chain: ChainId, keys: readonly PaymentCandidateKey[]): Promise<Map<string, InvoiceView[]>> {
    if (keys.length === 0) return new Map();
    const unique = [...new Map(keys.map((k) => [paymentCandidateKey(k), k])).values()];
    // Arrays, not one bind parameter per value: a block may hold tens of thousands of receipts.
    const rows = await Invoice.query(db)
      .where('chain', chain)
      .whereRaw('(project_id, address, coin) in (select * from unnest(?::text[], ?::text[], ?::text[]))', [
        unique.map((k) => k.projectId),
        unique.map((k) => k.address),
        unique.map((k) => k.coin),
      ] as unknown as readonly Knex.RawBinding[])
      .whereIn('status', [...WAITING_STATUSES, 'reverted', 'expired'])
      .orderBy('id', 'desc');
    const byKey = new Map<string, Invoice[]>();
    for (const row of rows) {
      const key = paymentCandidateKey({ projectId: row.project_id, address: row.address, coin: row.coin });
      const list = byKey.get(key) ?? [];
      if (list.length < 50) list.push(row);
      byKey.set(key, list);
    }
    const transactions = await this.transactionsOf([...byKey.values()].flat().map((row) => row.id), db);
    return new Map([...byKey].map(([key, list]) => [key, list.map((row) => invoiceView(row, transactions.get(row.id) ?? [], this.deps.chains))]));
  }

  /**
   * Deletes every invoice of the project and its transactions (the sandbox reset), in `trx`.
   * Returns how many invoices went. Policies stay. Pool addresses are the pool's to purge.
   */
  async purgeProject(trx: Knex.Transaction, projectId: string): Promise<number> {
    return Invoice.query(trx).where('project_id', projectId).delete();
  }

  private async replay(existing: Invoice, fingerprint: string, trx?: Knex.Transaction): Promise<InvoiceView> {
    const transactions = (await this.transactionsOf([existing.id], trx)).get(existing.id) ?? [];
    return this.replayView(existing, fingerprint, transactions);
  }

  /** The stored invoice for a replay of the same request; 409 for a different one. */
  private replayView(existing: Invoice, fingerprint: string, transactions: InvoiceTransaction[]): InvoiceView {
    if (existing.request_fingerprint !== fingerprint) {
      throw invoicesErrors.external_id_conflict({
        message: `external_id "${existing.external_id}" is already used by invoice ${existing.id}, created with different parameters.`,
        details: { invoice_id: existing.id },
      });
    }
    return invoiceView(existing, transactions, this.deps.chains);
  }

  private transactionsOf(invoiceIds: readonly string[], trx?: Knex | Knex.Transaction): Promise<Map<string, InvoiceTransaction[]>> {
    return transactionsByInvoice(trx ?? this.deps.db, invoiceIds);
  }

  /** Checks what a schema cannot express and fingerprints the request for replay detection. */
  private normalise(project: ProjectPrincipal, input: CreateInvoiceInput): NormalisedCreate {
    const hasUsd = input.amount_usd !== undefined && input.amount_usd !== null;
    const hasCrypto = input.amount_crypto !== undefined && input.amount_crypto !== null;
    if (hasUsd === hasCrypto) {
      throw coreErrors.validation_error({
        message: hasUsd ? 'Give either amount_usd or amount_crypto, not both.' : 'One of amount_usd or amount_crypto is required.',
        details: { field: hasUsd ? 'amount_crypto' : 'amount_usd' },
      });
    }
    const chainEnabled = this.isCoinAvailable(input.coin);
    let units: bigint | null = null;
    if (hasCrypto && chainEnabled) {
      try {
        units = toBaseUnits(input.amount_crypto!, this.deps.chains.coin(input.coin).coin.decimals);
      } catch (error) {
        if (error instanceof UnitsError) throw coreErrors.validation_error({ message: `amount_crypto: ${error.message} for ${input.coin}`, details: { field: 'amount_crypto' } });
        throw error;
      }
    }
    const usd = hasUsd ? usdDecimal(input.amount_usd!) : null;
    checkMetadataSize(input.metadata);
    const callbackUrl = input.callback_url ? validateWebhookUrl(input.callback_url, project.kind) : null;
    const fingerprint = createHash('sha256')
      .update(
        canonicalJson({
          coin: input.coin,
          amount_usd: usd,
          amount_crypto: hasCrypto ? (units?.toString() ?? input.amount_crypto) : null,
          callback_url: callbackUrl,
          metadata: input.metadata ?? null,
          matching_mode: input.matching_mode ?? null,
        }),
      )
      .digest('hex');
    return { usd, units, callbackUrl, fingerprint, chainEnabled };
  }

  private isCoinAvailable(coin: CoinId): boolean {
    try {
      this.deps.chains.coin(coin);
      return true;
    } catch {
      return false;
    }
  }
}

/** JSON with object keys sorted at every depth, so equal requests hash equally. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A create waiting for its batch. */
interface CreateRequest {
  readonly project: ProjectPrincipal;
  readonly input: CreateInvoiceInput;
  readonly actor: Actor;
  readonly request: NormalisedCreate;
}

interface NormalisedCreate {
  readonly usd: string | null;
  readonly units: bigint | null;
  readonly callbackUrl: string | null;
  readonly fingerprint: string;
  readonly chainEnabled: boolean;
}

/** What a create decided before its transaction. */
interface CreatePlan {
  readonly id: string;
  readonly adapter: ChainAdapter;
  readonly decimals: number;
  readonly units: bigint;
  readonly quote: RateQuote | undefined;
  readonly matchingMode: MatchingMode;
  readonly confirmations: number;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** The advisory-lock key of (project, external_id), the same in every code path. */

function groupBy<T>(values: Iterable<T>, key: (value: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const value of values) {
    const k = key(value);
    const group = groups.get(k);
    if (group) group.push(value);
    else groups.set(k, [value]);
  }
  return groups;
}

function memo<K, V>(cache: Map<K, V>, key: K, make: () => V): V {
  if (!cache.has(key)) cache.set(key, make());
  return cache.get(key)!;
}

function attempt<T>(fn: () => T): Settled<T> {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

async function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}
