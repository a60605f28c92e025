import type { CheckoutLinks } from './checkout-links.js';
import {
  type Actor,
  type AuditLog,
  type ChainId,
  type ChainRegistry,
  type CoinId,
  coreErrors,
  createBatcher,
  groupBy,
  isAppError,
  isUniqueViolation,
  type ProjectPrincipal,
  type RateLimiter,
  type Settled,
  sql,
  type SqlTransactionRunner,
  sqlTransaction,
} from '@gw/kernel';
import { addressPoolErrors, type AddressPoolService, type Allocation, type FreshPickGroup } from '@gw/plugin-address-pool/contract';
import type { RateQuote, RateService } from '@gw/plugin-rates/contract';
import type { WalletService } from '@gw/plugin-wallets/contract';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { InvoicesConfig } from '../config.js';
import { Invoice } from '../models/invoice.js';
import { transactionsByInvoice, type InvoiceTransaction } from '../models/invoice-transaction.js';
import {
  attempt,
  createAudit,
  decideCreate,
  invoiceRow,
  memo,
  normaliseCreate,
  prepareCreate,
  settle,
  type BatchResult,
  type CreateInvoiceInput,
  type CreatePlan,
  type CreateRequest,
  type CreateResult,
  type Prepared,
} from './create-plan.js';
import { batchReadSql, batchWriteSql, insertInvoices } from './create-statements.js';
import { countWhenCommitted, type TransitionCounter } from '../metrics.js';

/** The `from` of a creation in `gateway_invoice_transitions_total`. */
const NEW_STATUS = 'new';
import { invoicesErrors } from '../errors.js';
import { externalIdLockKey, lockExternalId } from './invoice-rules.js';
import { invoiceView, type InvoiceView } from './invoice-view.js';
import type { PolicyService } from './policy-service.js';

/**
 * Invoice creation: idempotent on (project, external_id), an address and the invoice in one
 * transaction. Concurrent creates of a process are batched (ADR 0002, ADR 0003): the decisions are
 * create-plan.ts's, the statements create-statements.ts's; this class runs batches, answers
 * replays and falls back to one create at a time where a batch cannot serve a request.
 */
export class InvoiceCreator {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      chains: ChainRegistry;
      invoicesCheckoutLinks: CheckoutLinks;
      rateLimiter: RateLimiter;
      logger: Logger;
      invoicesConfig: InvoicesConfig;
      invoicesPolicies: PolicyService;
      addressPoolService: AddressPoolService;
      walletsWallets: WalletService;
      ratesService: RateService;
      invoicesTransitions: TransitionCounter;
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
    const request = normaliseCreate(this.deps.chains, project, input);
    const result = await this.batcher.submit({ project, input, actor, request });
    // Settled: the batch's transaction has committed.
    if (result.created) countWhenCommitted(this.deps.invoicesTransitions, undefined, [{ from: NEW_STATUS, to: result.invoice.status }]);
    return result;
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
      .hitEach(
        byProject.map(([projectId, indexes]) => ({ rule: { key: `invoices.create:project:${projectId}`, limit, windowSeconds: 60 }, hits: indexes.length })),
      )
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
    const fiatQuotes = new Map<string, Promise<RateQuote>>();
    const prepared = new Map<number, Prepared>();
    await Promise.all(
      [...items.keys()].map(async (i) =>
        prepared.set(
          i,
          await prepareCreate(
            this.deps.chains,
            items[i]!,
            (coin) => memo(quotes, coin, () => this.deps.ratesService.quote(coin)),
            (currency) => memo(fiatQuotes, currency, () => this.deps.ratesService.fiatQuote(currency)),
          ).catch((failure: unknown): Prepared => ({ chainEnabled: false, failure })),
        ),
      ),
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
      const later: Promise<unknown>[] = [
        this.deps.addressPoolService
          .afterFreshAllocation(batch.pools, batch.taken)
          .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'address pool follow-up failed')),
      ];
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
    tx: SqlTransactionRunner,
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
      batchReadSql({
        lockKeys: first.map((i) => externalIdLockKey(items[i]!.project.id, items[i]!.input.external_id)),
        keys: first.map((i) => ({ projectId: items[i]!.project.id, externalId: items[i]!.input.external_id })),
        policies: this.deps.invoicesPolicies.manySql(projectIds),
        picks,
      }),
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
        const plan = decideCreate(item, prepared.get(i)!, policies.get(item.project.id)!, pool?.walletError);
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
      const rows = creating.map(({ i, plan, allocation }) => invoiceRow(items[i]!, plan, allocation));
      // The transaction's last statement: sent with its commit.
      const [written] = await tx.queryAndCommit<{ inserted: [string, Record<string, unknown> | null][]; taken: number }>(
        batchWriteSql(
          rows,
          (from) => this.deps.addressPoolService.takeSql(from),
          this.deps.audit,
          creating.map(({ i, allocation }, n) => createAudit(items[i]!, rows[n]!, allocation)),
        ),
      );
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
        outcomes.set(
          i,
          attempt(() => ({ invoice: invoiceView(invoice, [], this.deps.chains, this.deps.invoicesCheckoutLinks), created: true })),
        );
      });
    }
    return { outcomes, replays, slow, pools, taken };
  }

  /** Answers creates whose key already holds an invoice: the stored invoice (200) or 409; a create anew if it is gone. */
  private async replayMany(
    items: readonly CreateRequest[],
    indexes: readonly number[],
    prepared: ReadonlyMap<number, Prepared>,
    outcomes: (Settled<CreateResult> | undefined)[],
  ): Promise<void> {
    if (indexes.length === 0) return;
    let stored: Map<string, Invoice>;
    let transactions: Map<string, InvoiceTransaction[]>;
    try {
      stored = await this.findByExternalIds(
        this.deps.db,
        indexes.map((i) => items[i]!),
      );
      transactions = await transactionsByInvoice(
        this.deps.db,
        [...stored.values()].map((row) => row.id),
      );
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
    return this.createOne(item, decideCreate(item, prepared, policy, walletError));
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
        const row = invoiceRow(item, plan, allocation);
        const inserted = await insertInvoices(trx, this.deps.audit, [row], [createAudit(item, row, allocation)]);
        // Under the key's lock nothing else can have inserted it.
        if (!inserted.has(row.id)) throw new Error(`invoice ${row.id} was not inserted under its key's lock`);
        return {
          invoice: invoiceView({ ...row, metadata: inserted.get(row.id) ?? null } as unknown as Invoice, [], this.deps.chains, this.deps.invoicesCheckoutLinks),
          created: true,
        };
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

  private async replay(existing: Invoice, fingerprint: string, trx?: Knex.Transaction): Promise<InvoiceView> {
    const transactions = (await transactionsByInvoice(trx ?? this.deps.db, [existing.id])).get(existing.id) ?? [];
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
    return invoiceView(existing, transactions, this.deps.chains, this.deps.invoicesCheckoutLinks);
  }
}
