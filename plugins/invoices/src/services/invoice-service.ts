import { createHash, randomBytes } from 'node:crypto';
import {
  coreErrors,
  isAppError,
  networkFor,
  networkKindOf,
  toBaseUnits,
  fromBaseUnits,
  UnitsError,
  type AuditLog,
  type ChainRegistry,
  type CoinId,
  type ProjectPrincipal,
  type RateLimiter,
} from '@gw/kernel';
import { addressPoolErrors, type AddressPoolService } from '@gw/plugin-address-pool';
import type { RateQuote, RateService } from '@gw/plugin-rates';
import { validateWebhookUrl, type Actor } from '@gw/plugin-tenancy';
import type { WalletService } from '@gw/plugin-wallets';
import type { Knex } from 'knex';
import { monotonicFactory } from 'ulid';
import type { InvoicesConfig, MatchingMode } from '../config.js';
import { invoicesErrors } from '../errors.js';
import { CANCELLABLE_STATUSES, type InvoiceStatus } from '../invoice-status.js';
import { InvoiceTransaction } from '../models/invoice-transaction.js';
import { Invoice } from '../models/invoice.js';
import { usdDecimal, usdToUnits } from './amounts.js';
import { invoiceView, type InvoiceView } from './invoice-view.js';
import type { PolicyService } from './policy-service.js';

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

export interface InvoicePage {
  readonly items: InvoiceView[];
  readonly next_cursor?: string;
}

const METADATA_MAX_BYTES = 16_384;
const nextId = monotonicFactory();

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
      invoicesConfig: InvoicesConfig;
      invoicesPolicies: PolicyService;
      addressPoolService: AddressPoolService;
      walletsWallets: WalletService;
      ratesService: RateService;
    },
  ) {}

  /**
   * Creates an invoice, or returns the existing one for a replay of the same request
   * (`created: false`). Exactly one of `amount_usd` and `amount_crypto` must be given (else 400
   * `validation_error`). A different request under a used `external_id` is 409
   * `external_id_conflict`. Concurrent identical creates serialise on an advisory lock of
   * (project, external_id), so exactly one of them creates.
   */
  async create(project: ProjectPrincipal, input: CreateInvoiceInput, actor: Actor): Promise<{ invoice: InvoiceView; created: boolean }> {
    await this.deps.rateLimiter.consume({ key: `invoices.create:project:${project.id}`, limit: this.deps.invoicesConfig.createRateLimitPerMinute, windowSeconds: 60 });
    const { chains } = this.deps;
    const request = this.normalise(project, input);
    const existing = await Invoice.query(this.deps.db).findOne({ project_id: project.id, external_id: input.external_id });
    if (existing) return { invoice: await this.replay(existing, request.fingerprint), created: false };

    const policy = await this.deps.invoicesPolicies.get(project.id);
    if (!policy.enabled_coins.includes(input.coin) || !request.chainEnabled) {
      throw invoicesErrors.coin_not_enabled({ message: `Coin ${input.coin} is not enabled for this project.`, details: { coin: input.coin, enabled_coins: policy.enabled_coins } });
    }
    const { adapter, coin } = chains.coin(input.coin);
    const chain = adapter.definition.id;
    const network = networkFor(adapter.definition, project.kind);
    if (coin.contracts && !coin.contracts[network.id]) {
      throw invoicesErrors.coin_not_enabled({ message: `${coin.symbol} (${coin.id}) has no token contract on ${network.name}, so it cannot be invoiced there.`, details: { coin: coin.id, network: network.id } });
    }
    const matchingMode = input.matching_mode ?? policy.default_matching_mode;

    let units: bigint;
    let quote: RateQuote | undefined;
    if (request.usd !== null) {
      // No rate is fetched for a project that could not take the invoice anyway.
      await this.deps.walletsWallets.requireVerifiedWallet(project.id, chain);
      quote = await this.deps.ratesService.quote(input.coin);
      units = usdToUnits(request.usd, quote.rate, coin.decimals);
    } else {
      units = request.units!;
    }
    if (units <= 0n) throw invoicesErrors.amount_out_of_range({ message: 'The amount is zero in base units.', details: { amount_crypto_units: units.toString() } });

    const id = nextId();
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const expiresAt = new Date(now.getTime() + policy.expiry_seconds * 1000);
    try {
      return await this.deps.db.transaction(async (trx) => {
        await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`invoices:${project.id}:${input.external_id}`]);
        const raced = await Invoice.query(trx).findOne({ project_id: project.id, external_id: input.external_id });
        if (raced) return { invoice: await this.replay(raced, request.fingerprint, trx), created: false };

        const allocation = await this.deps.addressPoolService.allocate(trx, { projectId: project.id, chain, invoiceRef: id });
        if (allocation.isOverlay && matchingMode !== 'exact') {
          throw addressPoolErrors.overlay_matching_mode_required_exact({ details: { chain, matching_mode: matchingMode } });
        }
        const paymentToken = randomBytes(8).toString('hex');
        const paymentUri = adapter.paymentUri({
          coin: input.coin,
          network: networkKindOf(project.kind),
          address: allocation.address,
          amountUnits: units,
          ...(adapter.definition.capabilities.supportsMemo ? { memo: paymentToken } : {}),
        });
        const invoice = await Invoice.query(trx).insertAndFetch({
          id,
          project_id: project.id,
          project_kind: project.kind,
          external_id: input.external_id,
          request_fingerprint: request.fingerprint,
          coin: input.coin,
          chain,
          address: allocation.address,
          pool_address_id: allocation.addressId,
          address_shared: allocation.isOverlay,
          address_released_at: null,
          derivation_path: allocation.derivationPath,
          verification_standard: adapter.definition.verificationStandard,
          amount_units: units.toString(),
          amount_crypto: fromBaseUnits(units, coin.decimals),
          amount_usd: request.usd,
          rate_snapshot: quote ? { source: quote.source, pair: quote.pair, rate: quote.rate, fetched_at_iso: quote.fetchedAt.toISOString() } : null,
          payment_token: paymentToken,
          payment_uri: paymentUri,
          callback_url: request.callbackUrl,
          metadata: (input.metadata as Record<string, unknown> | null | undefined) ?? null,
          matching_mode: matchingMode,
          confirmation_threshold: policy.confirmations[chain] ?? adapter.definition.defaultConfirmations,
          status: 'pending',
          expires_at: expiresAt,
          created_at: now,
          updated_at: now,
        });
        await this.deps.audit.record(
          {
            ...actor,
            action: 'invoice.create',
            projectId: project.id,
            target: `invoice:${id}`,
            details: { external_id: input.external_id, coin: input.coin, amount_units: invoice.amount_units, address: invoice.address, overlay: allocation.isOverlay },
          },
          trx,
        );
        return { invoice: invoiceView(invoice, [], chains), created: true };
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

  /** One invoice of the project, with its transactions; 404 `invoice_not_found` otherwise. */
  async get(projectId: string, invoiceId: string): Promise<InvoiceView> {
    const invoice = await Invoice.query(this.deps.db).findOne({ id: invoiceId, project_id: projectId });
    if (!invoice) throw invoicesErrors.invoice_not_found();
    return invoiceView(invoice, await this.transactionsOf([invoice.id]).then((m) => m.get(invoice.id) ?? []), this.deps.chains);
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

  private async replay(existing: Invoice, fingerprint: string, trx?: Knex.Transaction): Promise<InvoiceView> {
    if (existing.request_fingerprint !== fingerprint) {
      throw invoicesErrors.external_id_conflict({
        message: `external_id "${existing.external_id}" is already used by invoice ${existing.id}, created with different parameters.`,
        details: { invoice_id: existing.id },
      });
    }
    const transactions = (await this.transactionsOf([existing.id], trx)).get(existing.id) ?? [];
    return invoiceView(existing, transactions, this.deps.chains);
  }

  private async transactionsOf(invoiceIds: readonly string[], trx?: Knex.Transaction): Promise<Map<string, InvoiceTransaction[]>> {
    const byInvoice = new Map<string, InvoiceTransaction[]>();
    if (invoiceIds.length === 0) return byInvoice;
    const rows = await InvoiceTransaction.query(trx ?? this.deps.db).whereIn('invoice_id', invoiceIds).orderBy(['detected_at', 'id']);
    for (const row of rows) byInvoice.set(row.invoice_id, [...(byInvoice.get(row.invoice_id) ?? []), row]);
    return byInvoice;
  }

  /** Checks what a schema cannot express and fingerprints the request for replay detection. */
  private normalise(project: ProjectPrincipal, input: CreateInvoiceInput) {
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
    if (input.metadata && Buffer.byteLength(JSON.stringify(input.metadata)) > METADATA_MAX_BYTES) {
      throw coreErrors.validation_error({ message: `metadata is larger than ${METADATA_MAX_BYTES} bytes as JSON`, details: { field: 'metadata' } });
    }
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

/** An ISO 8601 date or date-time as an instant; a bare date is the start (or end) of that UTC day. */
function parseInstant(value: string, field: string, edge: 'start' | 'end'): Date {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  // Without an offset the time is UTC, never the server's local zone.
  const text = dateOnly ? `${value}T00:00:00.000Z` : /(Z|[+-]\d{2}:?\d{2})$/.test(value) ? value : `${value}Z`;
  const parsed = new Date(text);
  // Date rolls 2026-02-31 over to March; a real calendar date reads back the same.
  if (Number.isNaN(parsed.getTime()) || (dateOnly && parsed.toISOString().slice(0, 10) !== value)) throw coreErrors.validation_error({ message: `query.${field} is not a valid ISO 8601 date or date-time`, details: { field: `query.${field}` } });
  if (dateOnly && edge === 'end') return new Date(parsed.getTime() + 86_400_000 - 1);
  return parsed;
}
