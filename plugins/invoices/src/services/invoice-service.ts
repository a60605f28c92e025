import { createHash } from 'node:crypto';
import {
  coreErrors,
  parseInstant,
  isAppError,
  isUniqueViolation,
  newId,
  randomHex,
  networkFor,
  networkKindOf,
  toBaseUnits,
  fromBaseUnits,
  UnitsError,
  createBatcher,
  sql,
  sqlTransaction,
  type AuditEntry,
  type ProjectKind,
  type SqlRunner,
  type VerificationStandard,
  type AuditLog,
  type ChainAdapter,
  type ChainId,
  type ChainRegistry,
  type Settled,
  type CoinId,
  type ProjectPrincipal,
  type RateLimiter,
} from '@gw/kernel';
import { addressPoolErrors, type AddressPoolService, type Allocation, type FreshPickGroup, type PickedGroup } from '@gw/plugin-address-pool';
import type { RateQuote, RateService } from '@gw/plugin-rates';
import { validateWebhookUrl, type Actor } from '@gw/plugin-tenancy';
import type { WalletService } from '@gw/plugin-wallets';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { InvoicesConfig, MatchingMode } from '../config.js';
import { invoicesErrors } from '../errors.js';
import { WAITING_STATUSES, CANCELLABLE_STATUSES, type InvoiceStatus } from '../invoice-status.js';
import { InvoiceTransaction, transactionsByInvoice } from '../models/invoice-transaction.js';
import { Invoice, type StoredRateSnapshot } from '../models/invoice.js';
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
      minBatchWhileBusy: deps.invoicesConfig.createBatchMinWhileBusy,
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
   * Concurrent creates of this process are batched (`createBatch`): one rate-limit statement and
   * one transaction of two statements for the whole batch, each caller still gets its own outcome.
   */
  async create(project: ProjectPrincipal, input: CreateInvoiceInput, actor: Actor): Promise<CreateResult> {
    const request = this.normalise(project, input);
    return this.batcher.submit({ project, input, actor, request });
  }

  /**
   * A batch of concurrent creates (ADR 0002, ADR 0003). Statements: one rate-limit upsert for every
   * project of the batch (its own transaction, so hits count whatever happens next), sent beside
   * the batch's transaction of two statements: (1) the (project, external_id) advisory locks in one
   * global order, the stored invoices under those keys, the projects' policies, and every
   * (project, chain) pool's wallet binding and fresh rows (`AddressPoolService.freshPicks`); (2),
   * once the rate limits are known and only for the requests within them, the invoices inserted
   * with `on conflict do nothing`, exactly the pool rows they use taken, and their audit rows.
   * Everything else (rates, amounts, payment URIs, views) is decided in the process between the
   * statements. Replays, repeats within the batch and creates the fast path cannot serve (short
   * pool: overlay and exhaustion rules) are answered after the commit.
   */
  private async createBatch(items: CreateRequest[]): Promise<Settled<CreateResult>[]> {
    const outcomes: (Settled<CreateResult> | undefined)[] = new Array(items.length);
    const limit = this.deps.invoicesConfig.createRateLimitPerMinute;
    const byProject = [...groupBy(items.keys(), (i) => items[i]!.project.id)];
    // Requests over their project's limit are refused whatever else holds (429 before replays).
    const limited: Promise<Map<number, unknown>> = this.deps.rateLimiter
      .hitEach(byProject.map(([projectId, indexes]) => ({ rule: { key: `invoices.create:project:${projectId}`, limit, windowSeconds: 60 }, hits: indexes.length })))
      .then((hits) => {
        const refused = new Map<number, unknown>();
        byProject.forEach(([, indexes], p) =>
          indexes.forEach((i, n) => {
            const hit = hits[p]![n]!;
            if (!hit.allowed) refused.set(i, coreErrors.rate_limit_exceeded({ retryAfter: hit.retryAfter, details: { limit, window_seconds: 60 } }));
          }),
        );
        return refused;
      });
    limited.catch(() => undefined);
    // Rates are fetched before the transaction (a cold provider must not hold locks); one quote per coin.
    const quotes = new Map<CoinId, Promise<RateQuote>>();
    const prepared = new Map<number, Prepared>();
    await Promise.all(
      [...items.keys()].map(async (i) => prepared.set(i, await this.prepare(items[i]!, quotes).catch((failure: unknown): Prepared => ({ chainEnabled: false, failure })))),
    );
    // A second create of one (project, external_id) in the same batch waits until the batch has
    // committed; then it is a replay (or a conflict) of whatever the first one created.
    const keys = new Set<string>();
    const repeats: number[] = [];
    const first = [...items.keys()].filter((i) => {
      const key = externalIdLockKey(items[i]!.project.id, items[i]!.input.external_id);
      if (keys.has(key)) {
        repeats.push(i);
        return false;
      }
      keys.add(key);
      return true;
    });
    let batch: BatchResult | undefined;
    let batchError: unknown;
    if (first.length > 0) {
      try {
        batch = await sqlTransaction(this.deps.db, (tx) => this.createFirst(tx, items, first, prepared, limited));
      } catch (error) {
        batchError = error;
      }
    }
    // A failed rate-limit statement fails the whole batch (the transaction waited for it and rolled back).
    const refused = await limited;
    for (const [i, error] of refused) outcomes[i] = { ok: false, error };
    const within = (i: number) => !refused.has(i);
    if (batchError !== undefined) {
      // Something failed the batch as a whole: each request runs on its own, so one bad request
      // cannot fail its neighbours.
      this.deps.logger.warn({ err: batchError, size: first.length }, 'invoice create batch failed; creating one by one');
      await Promise.all(first.filter(within).map(async (i) => (outcomes[i] = await settle(this.createAlone(items[i]!, prepared.get(i)!)))));
    }
    if (batch) {
      for (const [i, outcome] of batch.outcomes) outcomes[i] = outcome;
      const later: Promise<unknown>[] = [this.deps.addressPoolService.afterFreshAllocation(batch.pools, batch.taken).catch((error: unknown) => this.deps.logger.warn({ err: error }, 'address pool follow-up failed'))];
      // Stored before the batch, or created concurrently under the same key: answered as a replay.
      later.push(this.replayMany(items, batch.replays, prepared, outcomes));
      // The pool had too few fresh rows: the full allocation rules, one by one.
      for (const { i, plan } of batch.slow) later.push(settle(this.createOne(items[i]!, plan)).then((outcome) => (outcomes[i] = outcome)));
      await Promise.all(later);
    }
    const again = repeats.filter(within);
    // After the first committed, each repeat alone finds it under the lock: a replay or a conflict.
    await Promise.all(again.map(async (i) => (outcomes[i] = await settle(this.createAlone(items[i]!, prepared.get(i)!)))));
    return outcomes.map((outcome) => outcome ?? { ok: false, error: new Error('invoice create produced no outcome') });
  }

  /** The transaction of a batch's first creates of each key: two statements (see `createBatch`). */
  private async createFirst(
    tx: SqlRunner,
    items: readonly CreateRequest[],
    first: readonly number[],
    prepared: ReadonlyMap<number, Prepared>,
    limited: Promise<ReadonlyMap<number, unknown>>,
  ): Promise<BatchResult> {
    const groupOf = new Map<number, number>();
    const groups: FreshPickGroup[] = [];
    const groupIndex = new Map<string, number>();
    for (const i of first) {
      const prep = prepared.get(i)!;
      const chain = prep.chain;
      if (!chain) continue;
      const key = `${items[i]!.project.id}:${chain}`;
      let g = groupIndex.get(key);
      if (g === undefined) {
        g = groups.length;
        groupIndex.set(key, g);
        groups.push({ projectId: items[i]!.project.id, chain, wanted: 0 });
      }
      // A request whose preparation already failed never takes an address (a replay needs none):
      // locking a free row for it would only push concurrent creates onto the saturated path. Its
      // group is still read, for the wallet error that takes precedence over its own.
      if (prep.chainEnabled && prep.problem === undefined && prep.quoteError === undefined) groups[g] = { ...groups[g]!, wanted: groups[g]!.wanted + 1 };
      groupOf.set(i, g);
    }
    const projectIds = [...new Set(first.map((i) => items[i]!.project.id))];
    const picks = this.deps.addressPoolService.freshPicks(groups, { after: sql`(select count(*) from locks) >= 0` });
    const [read] = await tx.query<{ locked: number; stored: [string, string][]; policies: unknown; pools: unknown }>(
      sql`with locks as materialized (
            select pg_advisory_xact_lock(h) from (select hashtextextended(k, 0) as h from unnest(${first.map((i) => externalIdLockKey(items[i]!.project.id, items[i]!.input.external_id))}::text[]) as k order by h offset 0) ordered
          ),
          ${picks.ctes}
          select (select count(*) from locks)::int as locked,
                 (select coalesce(json_agg(json_build_array(i.project_id, i.external_id)), '[]') from invoices_invoices i
                   where (i.project_id, i.external_id) in (select * from unnest(${first.map((i) => items[i]!.project.id)}::text[], ${first.map((i) => items[i]!.input.external_id)}::text[]))) as stored,
                 ${this.deps.invoicesPolicies.manySql(projectIds)} as policies,
                 ${picks.result} as pools`,
    );
    // The lookup's snapshot may predate a lock this statement waited for; an invoice committed in
    // between is caught by the insert's `on conflict` below and answered as a replay all the same.
    const stored = new Set(read!.stored.map(([projectId, externalId]) => externalIdLockKey(projectId, externalId)));
    const policies = this.deps.invoicesPolicies.readMany(read!.policies, projectIds);
    const pools = picks.read(read!.pools);
    // Nothing is written for a request over its limit (its locks and picks end with the transaction).
    const refused = await limited;
    const used = pools.map(() => 0);
    const outcomes = new Map<number, Settled<CreateResult>>();
    const replays: number[] = [];
    const slow: { i: number; plan: CreatePlan }[] = [];
    const creating: { i: number; plan: CreatePlan; allocation: Allocation }[] = [];
    for (const i of first) {
      if (refused.has(i)) continue;
      const item = items[i]!;
      if (stored.has(externalIdLockKey(item.project.id, item.input.external_id))) {
        replays.push(i);
        continue;
      }
      const g = groupOf.get(i);
      const pool = g === undefined ? undefined : pools[g]!;
      try {
        const plan = this.decide(item, prepared.get(i)!, policies.get(item.project.id)!, pool?.walletError);
        if (pool!.walletError) throw pool!.walletError;
        const pick = pool!.picks[used[g!]!];
        if (!pick) {
          slow.push({ i, plan });
          continue;
        }
        used[g!]! += 1;
        creating.push({ i, plan, allocation: { ...pick, projectId: item.project.id, chain: pool!.chain, walletId: pool!.walletId!, isOverlay: false } });
      } catch (error) {
        outcomes.set(i, { ok: false, error });
      }
    }
    const taken = pools.map(() => 0);
    if (creating.length > 0) {
      const rows = creating.map(({ i, plan, allocation }) => this.invoiceRow(items[i]!, plan, allocation));
      const column = <K extends keyof InvoiceRow>(key: K) => rows.map((row) => row[key]);
      const [written] = await tx.query<{ inserted: [string, Record<string, unknown> | null][]; taken: number }>(
        sql`with ins as (
              insert into invoices_invoices (id, project_id, project_kind, external_id, request_fingerprint, coin, chain, address, pool_address_id,
                address_shared, address_released_at, derivation_path, verification_standard, amount_units, amount_crypto, amount_usd, rate_snapshot,
                payment_token, payment_uri, callback_url, metadata, matching_mode, confirmation_threshold, status, expires_at, created_at, updated_at)
              select r.id, r.project_id, r.project_kind, r.external_id, r.request_fingerprint, r.coin, r.chain, r.address, r.pool_address_id,
                     false, null, r.derivation_path, r.verification_standard, r.amount_units::numeric, r.amount_crypto, r.amount_usd::numeric, r.rate_snapshot::jsonb,
                     r.payment_token, r.payment_uri, r.callback_url, r.metadata::jsonb, r.matching_mode, r.confirmation_threshold, 'pending', r.expires_at, r.created_at, r.created_at
                from unnest(${column('id')}::text[], ${column('project_id')}::text[], ${column('project_kind')}::text[], ${column('external_id')}::text[],
                            ${column('request_fingerprint')}::text[], ${column('coin')}::text[], ${column('chain')}::text[], ${column('address')}::text[],
                            ${column('pool_address_id')}::text[], ${column('derivation_path')}::text[], ${column('verification_standard')}::text[],
                            ${column('amount_units')}::text[], ${column('amount_crypto')}::text[], ${column('amount_usd')}::text[],
                            ${rows.map((row) => (row.rate_snapshot ? JSON.stringify(row.rate_snapshot) : null))}::text[], ${column('payment_token')}::text[],
                            ${column('payment_uri')}::text[], ${column('callback_url')}::text[], ${rows.map((row) => (row.metadata === null ? null : JSON.stringify(row.metadata)))}::text[],
                            ${column('matching_mode')}::text[], ${column('confirmation_threshold')}::int[], ${rows.map((row) => row.expires_at.toISOString())}::timestamptz[],
                            ${rows.map((row) => row.created_at.toISOString())}::timestamptz[])
                     as r(id, project_id, project_kind, external_id, request_fingerprint, coin, chain, address, pool_address_id, derivation_path,
                          verification_standard, amount_units, amount_crypto, amount_usd, rate_snapshot, payment_token, payment_uri, callback_url, metadata,
                          matching_mode, confirmation_threshold, expires_at, created_at)
              on conflict (project_id, external_id) do nothing
              returning id, pool_address_id, metadata
            ),
            taken as (${this.deps.addressPoolService.takeSql(sql`select pool_address_id, id from ins`)}),
            audited as (${this.deps.audit.recordManySql(
              creating.map(({ i, allocation }, n) => this.createAudit(items[i]!, rows[n]!, allocation)),
              { onlyTargetsIn: sql`select 'invoice:' || id from ins` },
            )})
            select (select coalesce(json_agg(json_build_array(id, metadata)), '[]') from ins) as inserted, (select count(*) from taken)::int as taken`,
      );
      if (written!.taken !== written!.inserted.length) throw new Error(`invoice batch took ${written!.taken} pool rows for ${written!.inserted.length} invoices`);
      const inserted = new Map(written!.inserted);
      creating.forEach(({ i }, n) => {
        const row = rows[n]!;
        if (!inserted.has(row.id)) {
          // Created under this key by a transaction that held the lock while this one waited.
          replays.push(i);
          return;
        }
        taken[groupOf.get(i)!]! += 1;
        const invoice = { ...row, metadata: inserted.get(row.id) ?? null } as unknown as Invoice;
        outcomes.set(i, attempt(() => ({ invoice: invoiceView(invoice, [], this.deps.chains), created: true })));
      });
    }
    return { outcomes, replays, slow, pools, taken };
  }

  /** Answers creates whose key already holds an invoice: the stored invoice (200) or 409; a create anew if it is gone. */
  private async replayMany(items: readonly CreateRequest[], indexes: readonly number[], prepared: ReadonlyMap<number, Prepared>, outcomes: (Settled<CreateResult> | undefined)[]): Promise<void> {
    if (indexes.length === 0) return;
    let stored: Map<string, Invoice>;
    let transactions: Map<string, InvoiceTransaction[]>;
    try {
      stored = await this.findByExternalIds(this.deps.db, indexes.map((i) => items[i]!));
      transactions = await this.transactionsOf([...stored.values()].map((row) => row.id));
    } catch (error) {
      for (const i of indexes) outcomes[i] = { ok: false, error };
      return;
    }
    await Promise.all(
      indexes.map(async (i) => {
        const item = items[i]!;
        const row = stored.get(externalIdLockKey(item.project.id, item.input.external_id));
        outcomes[i] = row
          ? attempt(() => ({ invoice: this.replayView(row, item.request.fingerprint, transactions.get(row.id) ?? []), created: false }))
          : await settle(this.createAlone(item, prepared.get(i)!));
      }),
    );
  }

  /** Stored invoices of the requests' (project, external_id) pairs, keyed by `externalIdLockKey`. */
  private async findByExternalIds(db: Knex | Knex.Transaction, requests: readonly CreateRequest[]): Promise<Map<string, Invoice>> {
    if (requests.length === 0) return new Map();
    const rows = await Invoice.query(db)
      .whereIn('project_id', [...new Set(requests.map((r) => r.project.id))])
      .whereIn('external_id', [...new Set(requests.map((r) => r.input.external_id))]);
    return new Map(rows.map((row) => [externalIdLockKey(row.project_id, row.external_id), row]));
  }

  /** What a create can settle without the database: the coin's chain and network, the rate, the amount. Errors of the checks are kept for `decide`. */
  private async prepare(item: CreateRequest, quotes: Map<CoinId, Promise<RateQuote>>): Promise<Prepared> {
    const { project, input, request } = item;
    if (!request.chainEnabled) return { chainEnabled: false };
    const { adapter, coin } = this.deps.chains.coin(input.coin);
    const network = networkFor(adapter.definition, project.kind);
    const base = { chainEnabled: true as const, adapter, chain: adapter.definition.id, decimals: coin.decimals };
    if (coin.contracts && !coin.contracts[network.id]) {
      return {
        ...base,
        problem: invoicesErrors.coin_not_enabled({ message: `${coin.symbol} (${coin.id}) has no token contract on ${network.name}, so it cannot be invoiced there.`, details: { coin: coin.id, network: network.id } }),
      };
    }
    if (request.usd === null) return { ...base, units: request.units };
    try {
      const quote = await memo(quotes, input.coin, () => this.deps.ratesService.quote(input.coin));
      return { ...base, quote, units: usdToUnits(request.usd, quote.rate, coin.decimals) };
    } catch (error) {
      return { ...base, quoteError: error };
    }
  }

  /**
   * The rest of the checks, with the project's policy: coin enabled, token contract, rate (a
   * project without a usable wallet hears about the wallet first, `walletError`), amount range;
   * the invoice's parameters from the policy.
   */
  private decide(item: CreateRequest, prepared: Prepared, policy: ResolvedPolicy, walletError: unknown): CreatePlan {
    const { input } = item;
    if (!prepared.chainEnabled && prepared.failure !== undefined) throw prepared.failure;
    if (!prepared.chainEnabled || !policy.enabled_coins.includes(input.coin)) {
      throw invoicesErrors.coin_not_enabled({ message: `Coin ${input.coin} is not enabled for this project.`, details: { coin: input.coin, enabled_coins: policy.enabled_coins } });
    }
    if (prepared.problem) throw prepared.problem;
    if (prepared.quoteError !== undefined) throw walletError ?? prepared.quoteError;
    const units = prepared.units ?? null;
    if (units === null || units <= 0n) throw invoicesErrors.amount_out_of_range({ message: 'The amount is zero in base units.', details: { amount_crypto_units: String(units ?? 0n) } });
    if (units > MAX_AMOUNT_UNITS) throw invoicesErrors.amount_out_of_range({ message: 'The amount exceeds what any chain can transfer (2^256 - 1 base units).', details: { amount_crypto_units: units.toString() } });
    const { adapter } = prepared;
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    return {
      id: newId(),
      adapter,
      decimals: prepared.decimals,
      units,
      quote: prepared.quote,
      matchingMode: input.matching_mode ?? policy.default_matching_mode,
      confirmations: policy.confirmations[adapter.definition.id] ?? adapter.definition.defaultConfirmations,
      createdAt: now,
      expiresAt: new Date(now.getTime() + policy.expiry_seconds * 1000),
    };
  }

  /**
   * One create entirely on its own (the fallback when a batch fails as a whole, and repeats of a
   * key within a batch): replay lookup, policy, checks, then `createOne`. Already rate-limited.
   */
  private async createAlone(item: CreateRequest, prepared: Prepared): Promise<CreateResult> {
    const { project, input, request } = item;
    const stored = (await this.findByExternalIds(this.deps.db, [item])).get(externalIdLockKey(project.id, input.external_id));
    if (stored) return { invoice: await this.replay(stored, request.fingerprint), created: false };
    const policy = await this.deps.invoicesPolicies.get(project.id);
    let walletError: unknown;
    if (prepared.chainEnabled && prepared.quoteError !== undefined) {
      walletError = await this.deps.walletsWallets.requireVerifiedWallet(project.id, prepared.chain).then(
        () => undefined,
        (error: unknown) => {
          if (isAppError(error)) return error;
          throw error;
        },
      );
    }
    return this.createOne(item, this.decide(item, prepared, policy, walletError));
  }

  /**
   * One create in a transaction of its own, with the pool's full allocation rules (overlay,
   * exhaustion): under the (project, external_id) lock, a replay if the key is taken, else an
   * address, the invoice and its audit row. Already rate-limited and decided.
   */
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
      if (isUniqueViolation(error, 'external_id')) {
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

  private invoiceRow(item: CreateRequest, plan: CreatePlan, allocation: Allocation): InvoiceRow {
    const { project, input, request } = item;
    const paymentToken = randomHex(8);
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

  private createAudit(item: CreateRequest, invoice: Pick<Invoice, 'id' | 'external_id' | 'coin' | 'amount_units' | 'address'>, allocation: Allocation): AuditEntry {
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

/** What `prepare` settled of a create before any database work (errors kept for `decide`'s order). */
type Prepared =
  | { readonly chainEnabled: false; readonly chain?: undefined; /** An unexpected error of `prepare`, this request's alone. */ readonly failure?: unknown }
  | {
      readonly chainEnabled: true;
      readonly adapter: ChainAdapter;
      readonly chain: ChainId;
      readonly decimals: number;
      /** The coin has no token contract on the project's network. */
      readonly problem?: unknown;
      readonly quote?: RateQuote;
      readonly quoteError?: unknown;
      readonly units?: bigint | null;
    };

/** What the transaction of a batch settled; the rest is answered after its commit. */
interface BatchResult {
  readonly outcomes: Map<number, Settled<CreateResult>>;
  /** Keys that already hold an invoice. */
  readonly replays: number[];
  /** Creates the pool's fresh rows did not cover. */
  readonly slow: { readonly i: number; readonly plan: CreatePlan }[];
  readonly pools: PickedGroup[];
  /** Fresh rows taken per pool, in the order of `pools`. */
  readonly taken: number[];
}

/** An invoice row as written at creation. */
interface InvoiceRow {
  readonly id: string;
  readonly project_id: string;
  readonly project_kind: ProjectKind;
  readonly external_id: string;
  readonly request_fingerprint: string;
  readonly coin: CoinId;
  readonly chain: ChainId;
  readonly address: string;
  readonly pool_address_id: string;
  readonly address_shared: boolean;
  readonly address_released_at: null;
  readonly derivation_path: string;
  readonly verification_standard: VerificationStandard;
  readonly amount_units: string;
  readonly amount_crypto: string;
  readonly amount_usd: string | null;
  readonly rate_snapshot: StoredRateSnapshot | null;
  readonly payment_token: string;
  readonly payment_uri: string;
  readonly callback_url: string | null;
  readonly metadata: Record<string, unknown> | null;
  readonly matching_mode: MatchingMode;
  readonly confirmation_threshold: number;
  readonly status: 'pending';
  readonly expires_at: Date;
  readonly created_at: Date;
  readonly updated_at: Date;
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
