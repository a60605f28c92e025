import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { coreErrors, createCoalescer, createFailureLog, type CoinId, type FailureLog } from '@gw/kernel';
import type { Asset, PriceCatalogue } from '../assets.js';
import type { RatesConfig } from '../config.js';
import { rateUnavailable } from '../errors.js';
import type { RatesFetchCounter } from '../metrics.js';
import { CoinGeckoProvider } from '../providers/coingecko.js';
import { FixedProvider } from '../providers/fixed.js';
import { KrakenProvider } from '../providers/kraken.js';
import type { ProviderRate, RateProvider } from '../providers/provider.js';
import { RateStore, type StoredQuote } from './rate-store.js';

/**
 * A USD exchange rate for one asset, as snapshotted on an invoice (`rate_snapshot`).
 */
export interface RateQuote {
  /** Provider id that produced the price: `coingecko`, `kraken`, `fixed`. */
  readonly source: string;
  /** Asset symbol, e.g. `BTC`, `USDT` (every USDT coin has the same base). */
  readonly base: string;
  /** Always `USD`. */
  readonly quote: 'USD';
  /** `<base>/USD`, e.g. `BTC/USD`. */
  readonly pair: string;
  /**
   * USD per 1 whole unit of the asset as a plain decimal string without exponent, e.g.
   * `"97123.45"`, `"0.99973"`. Exact as the provider sent it (trailing zeros dropped); never do
   * arithmetic on it as a JavaScript number.
   */
  readonly rate: string;
  /** When the provider produced the price (its own timestamp when it gives one, else fetch time). */
  readonly fetchedAt: Date;
}

/** Outcome of one provider in a refresh. */
export interface ProviderRefresh {
  readonly provider: string;
  readonly ok: boolean;
  /** Assets the provider priced and that were stored. */
  readonly assets: readonly Asset[];
  readonly error?: string;
}

/** One cached row as the CLI shows it. */
export interface CachedQuoteView {
  readonly asset: Asset;
  readonly pair: string;
  readonly source: string;
  readonly rate: string;
  readonly fetched_at: string;
  readonly age_seconds: number;
  /** Within `maxAgeSeconds` and from a provider of the current order. */
  readonly usable: boolean;
  /** The quote `quote()` would return now for this asset. */
  readonly selected: boolean;
}

export interface RateServiceDeps {
  readonly db: Knex;
  readonly logger: Logger;
  readonly config: RatesConfig;
  /** The assets of the enabled coins, with their rate provider ids. */
  readonly catalogue: PriceCatalogue;
  readonly fetchCounter?: RatesFetchCounter;
  /** Replaces the providers built from config (tests). */
  readonly providers?: readonly RateProvider[];
  readonly now?: () => Date;
}

/**
 * USD quotes for the enabled coins (by their price asset).
 *
 * `quote(coin)` answers from, in order: a memo of a few seconds in this process; the shared cache
 * in PostgreSQL (`rates_quotes`), taking the first provider in preference order whose quote is at
 * most `maxAgeSeconds` old; a synchronous fetch from the providers in the same order, first fresh
 * answer wins (every asset of the answer is stored). Concurrent callers share one fetch per asset
 * and one request per provider. When all of that fails it throws the rate-unavailable error (500
 * `internal_error`, see `isRateUnavailable`). The `rates.refresh` job calls `refresh()` every minute
 * so requests normally hit the cache.
 */
export class RateService {
  /** Providers in order of preference. */
  readonly providers: readonly RateProvider[];
  private readonly store: RateStore;
  private readonly logger: Logger;
  private readonly config: RatesConfig;
  private readonly now: () => Date;
  private readonly memo = new Map<Asset, { quote: RateQuote; until: number }>();
  /** Completed fetches of the preferred provider, counted; and the latest answer per asset with its count. */
  private fetches = 0;
  private readonly justFetched = new Map<Asset, { quote: RateQuote; fetch: number }>();
  private readonly pendingQuotes = createCoalescer<RateQuote>();
  private readonly pendingFetches = createCoalescer<ReadonlyMap<Asset, ProviderRate>>();
  private readonly cooldownUntil = new Map<string, number>();
  /** A provider that keeps failing is logged once, then counted, then its recovery (not a stack a minute). */
  private readonly providerFailures: FailureLog;

  constructor(private readonly deps: RateServiceDeps) {
    this.config = deps.config;
    this.logger = deps.logger;
    this.now = deps.now ?? (() => new Date());
    this.providerFailures = createFailureLog(
      deps.logger,
      { failed: 'rate provider failed', stillFailing: 'rate provider still failing', recovered: 'rate provider recovered' },
      this.now,
    );
    this.store = new RateStore(deps.db);
    this.providers = deps.providers ?? providersFromConfig(deps.config, this.now);
  }

  /**
   * The USD rate of `coin`'s asset (USDT for `usdt_trc20`, and so on).
   *
   * @throws AppError 400 `invalid_coin` for a string that is not an enabled coin id.
   * @throws AppError 500 `internal_error` with `details: { reason: 'rate_unavailable', asset }` and
   *   `retryAfter` when no provider gave a fresh price and no cached quote is fresh enough.
   */
  async quote(coin: CoinId): Promise<RateQuote> {
    const asset = this.deps.catalogue.assetOf(coin);
    if (!asset) throw coreErrors.invalid_coin({ message: `Unknown coin "${coin}".` });
    return this.quoteAsset(asset);
  }

  /** The USD rate of an asset; see {@link quote}. */
  async quoteAsset(asset: Asset): Promise<RateQuote> {
    const memo = this.fromMemo(asset);
    if (memo) return memo;
    const fetchesBeforeRead = this.fetches;
    const cached = this.select(await this.store.read(asset));
    if (cached) return this.remember(cached);
    // A fetch that ended while the cache was read (so the read may have missed its write) left
    // its answer here: use it instead of asking the provider again, however long the read took on
    // a loaded machine, and whether or not the memo is enabled.
    const justFetched = this.justFetched.get(asset);
    if (justFetched && justFetched.fetch > fetchesBeforeRead && this.isFresh(justFetched.quote.fetchedAt)) return this.remember(justFetched.quote);
    return this.remember(await this.pendingQuotes(asset, () => this.fetchQuote(asset)));
  }

  private fromMemo(asset: Asset): RateQuote | undefined {
    const memo = this.memo.get(asset);
    return memo && memo.until > this.now().getTime() && this.isFresh(memo.quote.fetchedAt) ? memo.quote : undefined;
  }

  /**
   * Fetches every asset from every provider now (concurrently) and stores the answers; failures
   * are reported, not thrown. Used by the `rates.refresh` job and `rates refresh`.
   */
  async refresh(): Promise<{ providers: ProviderRefresh[] }> {
    const settled = await Promise.allSettled(this.providers.map((provider) => this.fetchProvider(provider)));
    this.memo.clear();
    return {
      providers: this.providers.map((provider, i): ProviderRefresh => {
        const outcome = settled[i]!;
        return outcome.status === 'fulfilled'
          ? { provider: provider.id, ok: true, assets: [...outcome.value.keys()] }
          : { provider: provider.id, ok: false, assets: [], error: (outcome.reason as Error).message };
      }),
    };
  }

  /**
   * The rate of each asset as known without calling any provider (for a record inside a caller's
   * transaction, e.g. USD at payment): the cached quote `quote()` would select, else the configured
   * fixed rate. Assets with neither are absent.
   */
  async knownRates(db?: Knex | Knex.Transaction): Promise<Map<Asset, { rate: string; source: string }>> {
    const known = new Map<Asset, { rate: string; source: string }>();
    for (const quote of await this.cached(undefined, db)) {
      if (quote.selected && quote.usable) known.set(quote.asset, { rate: quote.rate, source: quote.source });
    }
    for (const [asset, rate] of Object.entries(this.config.fixed)) {
      if (this.deps.catalogue.isAsset(asset) && !known.has(asset)) known.set(asset, { rate, source: 'fixed' });
    }
    return known;
  }

  /**
   * The cached quotes (of one asset or all) with their age, for operators; read through `db` when
   * given (a caller's transaction: no second connection while it holds one).
   */
  async cached(asset?: Asset, db?: Knex | Knex.Transaction): Promise<CachedQuoteView[]> {
    const rows = await this.store.read(asset, db);
    const now = this.now().getTime();
    const selected = new Set<StoredQuote>();
    for (const { symbol: a } of this.deps.catalogue.assets) {
      const row = this.selectRow(rows.filter((r) => r.asset === a));
      if (row) selected.add(row);
    }
    return rows.map((row) => ({
      asset: row.asset,
      pair: `${row.asset}/USD`,
      source: row.source,
      rate: row.rate,
      fetched_at: row.fetchedAt.toISOString(),
      age_seconds: Math.max(0, Math.floor((now - row.fetchedAt.getTime()) / 1000)),
      usable: this.isFresh(row.fetchedAt) && this.providers.some((p) => p.id === row.source),
      selected: selected.has(row),
    }));
  }

  private async fetchQuote(asset: Asset): Promise<RateQuote> {
    const failures: string[] = [];
    for (const provider of this.providers) {
      const until = this.cooldownUntil.get(provider.id);
      if (until !== undefined && until > this.now().getTime()) {
        failures.push(`${provider.id}: skipped, failed less than ${this.config.failureCooldownSeconds} s ago`);
        continue;
      }
      let rates: ReadonlyMap<Asset, ProviderRate>;
      try {
        rates = await this.fetchProvider(provider);
      } catch (error) {
        failures.push((error as Error).message);
        continue;
      }
      const rate = rates.get(asset);
      if (rate && this.isFresh(rate.at)) return quoteOf(provider.id, asset, rate.rate, rate.at);
      failures.push(rate ? `${provider.id}: its ${asset} price is older than ${this.config.maxAgeSeconds} s` : `${provider.id}: no ${asset} price`);
    }
    // Another instance may have stored a fresh quote while these fetches ran.
    const late = this.select(await this.store.read(asset));
    if (late) return late;
    this.logger.error({ asset, failures }, 'no USD rate available');
    throw rateUnavailable(asset, this.config.maxAgeSeconds);
  }

  /** One request per provider at a time in this process, whoever asks (quotes or refresh). */
  private fetchProvider(provider: RateProvider): Promise<ReadonlyMap<Asset, ProviderRate>> {
    return this.pendingFetches(provider.id, () => this.fetchAndStore(provider));
  }

  private async fetchAndStore(provider: RateProvider): Promise<ReadonlyMap<Asset, ProviderRate>> {
    let rates: Map<Asset, ProviderRate>;
    try {
      rates = await provider.fetch(this.deps.catalogue.assets);
    } catch (error) {
      this.deps.fetchCounter?.inc({ provider: provider.id, outcome: 'error' });
      if (this.config.failureCooldownSeconds > 0) this.cooldownUntil.set(provider.id, this.now().getTime() + this.config.failureCooldownSeconds * 1000);
      this.providerFailures.failed(provider.id, error, { provider: provider.id });
      throw error;
    }
    this.deps.fetchCounter?.inc({ provider: provider.id, outcome: 'ok' });
    this.providerFailures.succeeded(provider.id, { provider: provider.id });
    this.cooldownUntil.delete(provider.id);
    // The preferred provider's answer is what any quote would select: kept for every asset, so
    // callers whose cache read raced this fetch (and missed its write) need no second request.
    if (provider === this.providers[0]) {
      this.fetches += 1;
      for (const [asset, rate] of rates) {
        if (!this.isFresh(rate.at)) continue;
        const quote = quoteOf(provider.id, asset, rate.rate, rate.at);
        this.justFetched.set(asset, { quote, fetch: this.fetches });
        this.remember(quote);
      }
    }
    try {
      await this.store.write(provider.id, rates);
    } catch (error) {
      // The caller can still use the answer; the next refresh stores it again.
      this.logger.error({ provider: provider.id, err: error }, 'could not store rates');
    }
    return rates;
  }

  private select(rows: readonly StoredQuote[]): RateQuote | undefined {
    const row = this.selectRow(rows);
    return row && quoteOf(row.source, row.asset, row.rate, row.fetchedAt);
  }

  /** The first provider in preference order with a fresh row (rows of one asset). */
  private selectRow(rows: readonly StoredQuote[]): StoredQuote | undefined {
    for (const provider of this.providers) {
      const row = rows.find((r) => r.source === provider.id);
      if (row && this.isFresh(row.fetchedAt)) return row;
    }
    return undefined;
  }

  private isFresh(at: Date): boolean {
    return this.now().getTime() - at.getTime() <= this.config.maxAgeSeconds * 1000;
  }

  private remember(quote: RateQuote): RateQuote {
    if (this.config.memoSeconds > 0) this.memo.set(quote.base as Asset, { quote, until: this.now().getTime() + this.config.memoSeconds * 1000 });
    return quote;
  }
}

/**
 * The providers of a config in preference order: `providers` as listed, then `fixed` when it has
 * rates and is not listed (a last resort that keeps amount_usd invoices working offline).
 */
export function providersFromConfig(config: RatesConfig, now: () => Date = () => new Date()): RateProvider[] {
  const fixed = new FixedProvider(config.fixed, now);
  const order = [...config.providers];
  if (fixed.configured && !order.includes('fixed')) order.push('fixed');
  return order.map((id) => {
    switch (id) {
      case 'coingecko':
        return new CoinGeckoProvider(config.coingecko, now);
      case 'kraken':
        return new KrakenProvider(config.kraken, now);
      case 'fixed':
        return fixed;
    }
  });
}

function quoteOf(source: string, asset: Asset, rate: string, fetchedAt: Date): RateQuote {
  return Object.freeze({ source, base: asset, quote: 'USD', pair: `${asset}/USD`, rate, fetchedAt });
}
