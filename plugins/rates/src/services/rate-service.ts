import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { coreErrors, createCoalescer, createFailureLog, type Actor, type AuditLog, type CoinId, type FailureLog } from '@gw/kernel';
import type { Asset, PriceCatalogue } from '../assets.js';
import type { RatesConfig } from '../config.js';
import { rateUnavailable, ratesErrors } from '../errors.js';
import { FIAT_CURRENCIES, USD } from '../fiat.js';
import { changePercent } from '../jump-check.js';
import type { RatesFetchCounter, RatesHeldCounter } from '../metrics.js';
import { CoinGeckoProvider } from '../providers/coingecko.js';
import { FixedProvider } from '../providers/fixed.js';
import { KrakenProvider } from '../providers/kraken.js';
import type { ProviderRate, RateProvider } from '../providers/provider.js';
import { RateStore, type ConfirmedRate, type HeldRate, type RecordOutcome, type StoredQuote } from './rate-store.js';

/** The audit actor of held rates the jump check accepted (`rate.confirm`). */
const JUMP_CHECK_ACTOR: Actor = { actor: 'rates-jump-check', channel: 'system' };

/**
 * A USD exchange rate for one asset, as snapshotted on an invoice (`rate_snapshot`), or for one
 * fiat currency (`fiatQuote`, the invoice's `price_rate`).
 */
export interface RateQuote {
  /** Provider id that produced the price: `coingecko`, `kraken`, `fixed`; `identity` for USD itself. */
  readonly source: string;
  /** Asset symbol, e.g. `BTC`, `USDT` (every USDT coin has the same base), or a currency code (`EUR`). */
  readonly base: string;
  /** Always `USD`. */
  readonly quote: 'USD';
  /** `<base>/USD`, e.g. `BTC/USD`, `EUR/USD`. */
  readonly pair: string;
  /**
   * USD per 1 whole unit of the asset (or currency) as a plain decimal string without exponent,
   * e.g. `"97123.45"`, `"0.99973"`, `"1.0815"`. Exact as the provider sent it (trailing zeros
   * dropped), or computed exactly from its numbers to 12 significant digits where it quotes
   * another way (a yen rate from USD/JPY); never do arithmetic on it as a JavaScript number.
   */
  readonly rate: string;
  /** When the provider produced the price (its own timestamp when it gives one, else fetch time). */
  readonly fetchedAt: Date;
}

/** What a rate prices: a coin's asset (`crypto`) or a fiat currency (`fiat`); each is its own request to a provider. */
export type RateKind = 'crypto' | 'fiat';

/** Outcome of one provider's request of one kind in a refresh. */
export interface ProviderRefresh {
  readonly provider: string;
  readonly kind: RateKind;
  readonly ok: boolean;
  /** Assets (currencies for `fiat`) the provider priced and that were stored as accepted. */
  readonly assets: readonly Asset[];
  /** Those it priced that the jump check held back. */
  readonly held: readonly Asset[];
  readonly error?: string;
}

/** A held-back rate as operators see it (`rates show`, the dashboard). */
export interface HeldRateView {
  readonly asset: Asset;
  readonly pair: string;
  /** Provider that fetched the held rate. */
  readonly source: string;
  readonly rate: string;
  readonly fetched_at: string;
  /** When a rate of the asset was first held back. */
  readonly held_at: string;
  /** The last accepted rate it was compared with, and its provider. */
  readonly accepted_rate: string;
  readonly accepted_source: string;
  /** The move from the accepted rate in percent, signed (`"+12.50"`). */
  readonly change_percent: string;
  /** The share it moved beyond (`jump.share` or `jump.fiatShare`). */
  readonly share: string;
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
  readonly heldCounter?: RatesHeldCounter;
  /** Records operator releases of held rates. */
  readonly audit?: AuditLog;
  /** Replaces the providers built from config (tests). */
  readonly providers?: readonly RateProvider[];
  readonly now?: () => Date;
}

/**
 * USD quotes for the enabled coins (by their price asset) and for the fiat currencies.
 *
 * `quote(coin)` answers from, in order: a memo of a few seconds in this process; the shared cache
 * in PostgreSQL (`rates_quotes`), taking the first provider in preference order whose quote is at
 * most `maxAgeSeconds` old; a synchronous fetch from the providers in the same order, first fresh
 * answer wins (every asset of the answer is stored). Concurrent callers share one fetch per asset
 * and one request per provider. When all of that fails it throws the rate-unavailable error (500
 * `internal_error`, see `isRateUnavailable`). The `rates.refresh` job calls `refresh()` every minute
 * so requests normally hit the cache.
 *
 * Every fetched rate goes through the jump check before it is stored (see `RateStore.record`): one
 * that moved more than `jump.share` (`jump.fiatShare` for fiat) from the last accepted rate of its
 * asset is held back in `rates_held`, not used, until another provider agrees with it, its own
 * provider has kept giving it for `jump.confirmSeconds`, or an operator releases it (`release`);
 * meanwhile the last accepted quote serves, while it is fresh.
 */
export class RateService {
  /** Providers in order of preference. */
  readonly providers: readonly RateProvider[];
  /** The fiat currencies priced: the built-in ones, then `fiat.currencies`. USD is one (rate 1). */
  readonly fiatCurrencies: readonly string[];
  private readonly store: RateStore;
  private readonly logger: Logger;
  private readonly config: RatesConfig;
  private readonly now: () => Date;
  private readonly memo = new Map<Asset, { quote: RateQuote; until: number }>();
  /** Completed fetches of the preferred provider, counted; and the latest answer per asset with its count. */
  private fetches = 0;
  private readonly justFetched = new Map<Asset, { quote: RateQuote; fetch: number }>();
  private readonly pendingQuotes = createCoalescer<RateQuote>();
  private readonly pendingFetches = createCoalescer<FetchOutcome>();
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
    this.fiatCurrencies = [...new Set<string>([...FIAT_CURRENCIES, ...deps.config.fiat.currencies])];
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

  /**
   * USD per 1 unit of a fiat currency (`base` the code, `pair` `EUR/USD`), found like a coin's
   * quote: memo, shared cache, then the providers in order (CoinGecko's exchange rates, Kraken's
   * forex pairs, `fixedFiat`). USD itself is rate `"1"` from source `identity`, without a fetch.
   *
   * @param field The request field that named the currency, for the error (default `price_currency`).
   * @throws AppError 400 `validation_error` (`details.field`, `details.currencies`: those priced)
   *   for a code that is not one of {@link fiatCurrencies} (codes are upper case: `EUR`).
   * @throws AppError 500 `internal_error`, `details.reason` `rate_unavailable`, as {@link quote}.
   */
  async fiatQuote(currency: string, options: { readonly field?: string } = {}): Promise<RateQuote> {
    if (currency === USD) return quoteOf('identity', USD, '1', this.now());
    if (!this.fiatCurrencies.includes(currency)) {
      const field = options.field ?? 'price_currency';
      throw coreErrors.validation_error({
        message: `${field}: "${currency.slice(0, 16)}" is not a currency the gateway prices (${this.fiatCurrencies.join(', ')}).`,
        details: { field, currencies: [...this.fiatCurrencies] },
      });
    }
    return this.quoteAsset(currency);
  }

  /** The USD rate of an asset or a fiat currency; see {@link quote}. */
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
   * Fetches every asset and every fiat currency from every provider now (concurrently, one request
   * per provider and kind) and stores the answers through the jump check; failures are reported,
   * not thrown. Used by the `rates.refresh` job and `rates refresh`. The report lists the coin
   * requests in provider order, then the fiat ones.
   */
  async refresh(): Promise<{ providers: ProviderRefresh[] }> {
    const requests = (['crypto', 'fiat'] as const).flatMap((kind) => this.providers.map((provider) => ({ provider, kind })));
    const settled = await Promise.allSettled(requests.map(({ provider, kind }) => this.fetchProvider(provider, kind)));
    this.memo.clear();
    return {
      providers: requests.map(({ provider, kind }, i): ProviderRefresh => {
        const outcome = settled[i]!;
        return outcome.status === 'fulfilled'
          ? { provider: provider.id, kind, ok: true, assets: [...outcome.value.accepted.keys()], held: outcome.value.held }
          : { provider: provider.id, kind, ok: false, assets: [], held: [], error: (outcome.reason as Error).message };
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
      if (quote.selected && quote.usable && this.deps.catalogue.isAsset(quote.asset)) known.set(quote.asset, { rate: quote.rate, source: quote.source });
    }
    for (const [asset, rate] of Object.entries(this.config.fixed)) {
      if (this.deps.catalogue.isAsset(asset) && !known.has(asset)) known.set(asset, { rate, source: 'fixed' });
    }
    return known;
  }

  /**
   * The cached quotes (of one asset or currency, or all) with their age, for operators; read
   * through `db` when given (a caller's transaction: no second connection while it holds one).
   */
  async cached(asset?: Asset, db?: Knex | Knex.Transaction): Promise<CachedQuoteView[]> {
    const rows = await this.store.read(asset, db);
    const now = this.now().getTime();
    const selected = new Set<StoredQuote>();
    for (const a of [...this.deps.catalogue.assets.map((priced) => priced.symbol), ...this.fiatCurrencies]) {
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

  /** The rates held back now (of one asset or all), for operators. */
  async held(asset?: Asset): Promise<HeldRateView[]> {
    return (await this.store.held(asset === undefined ? undefined : [asset])).map((h) => this.heldView(h));
  }

  /**
   * Accepts the held rate of `asset` (a coin's asset symbol or a fiat currency code) at once, as
   * if another provider had confirmed it: stored as its provider's quote, audited (`rate.release`),
   * no longer held.
   *
   * @throws AppError 400 `validation_error` for a string that is neither an asset of the enabled
   *   coins nor a priced fiat currency; 404 `held_rate_not_found` when none of its rates is held.
   */
  async release(asset: string, actor: Actor): Promise<HeldRateView> {
    if (!this.deps.catalogue.isAsset(asset) && (asset === USD || !this.fiatCurrencies.includes(asset))) {
      throw coreErrors.validation_error({
        message: `asset: "${asset.slice(0, 16)}" is neither an asset of the enabled coins (${this.deps.catalogue.assets.map((a) => a.symbol).join(', ')}) nor a priced fiat currency.`,
        details: { field: 'asset' },
      });
    }
    const released = await this.store.release(asset, async (trx, held) => {
      await this.deps.audit?.record(
        {
          actor: actor.actor,
          channel: actor.channel,
          action: 'rate.release',
          target: `rate:${asset}`,
          details: { source: held.source, rate: held.rate, accepted_rate: held.acceptedRate, accepted_source: held.acceptedSource },
          ...(actor.requestId ? { requestId: actor.requestId } : {}),
        },
        trx,
      );
    });
    if (!released) throw ratesErrors.held_rate_not_found({ message: `No ${asset} rate is held back.` });
    this.memo.delete(asset);
    this.logger.info({ asset, source: released.source, rate: released.rate, actor: actor.actor }, 'held rate released by an operator');
    return this.heldView(released);
  }

  private heldView(held: HeldRate): HeldRateView {
    return {
      asset: held.asset,
      pair: `${held.asset}/USD`,
      source: held.source,
      rate: held.rate,
      fetched_at: held.fetchedAt.toISOString(),
      held_at: held.heldAt.toISOString(),
      accepted_rate: held.acceptedRate,
      accepted_source: held.acceptedSource,
      change_percent: changePercent(held.acceptedRate, held.rate),
      share: this.shareOf(this.kindOf(held.asset)),
    };
  }

  private kindOf(asset: Asset): RateKind {
    return this.fiatCurrencies.includes(asset) ? 'fiat' : 'crypto';
  }

  private shareOf(kind: RateKind): string {
    return kind === 'fiat' ? this.config.jump.fiatShare : this.config.jump.share;
  }

  private async fetchQuote(asset: Asset): Promise<RateQuote> {
    const failures: string[] = [];
    const kind = this.kindOf(asset);
    for (const provider of this.providers) {
      const until = this.cooldownUntil.get(requestKey(provider, kind));
      if (until !== undefined && until > this.now().getTime()) {
        failures.push(`${provider.id}: skipped, failed less than ${this.config.failureCooldownSeconds} s ago`);
        continue;
      }
      let fetched: FetchOutcome;
      try {
        fetched = await this.fetchProvider(provider, kind);
      } catch (error) {
        failures.push((error as Error).message);
        continue;
      }
      const rate = fetched.accepted.get(asset);
      if (rate && this.isFresh(rate.at)) return quoteOf(provider.id, asset, rate.rate, rate.at);
      failures.push(
        fetched.held.includes(asset)
          ? `${provider.id}: its ${asset} rate is held back (moved more than ${this.shareOf(kind)} from the last accepted one)`
          : rate
            ? `${provider.id}: its ${asset} price is older than ${this.config.maxAgeSeconds} s`
            : `${provider.id}: no ${asset} price`,
      );
    }
    // Another instance may have stored a fresh quote while these fetches ran.
    const late = this.select(await this.store.read(asset));
    if (late) return late;
    this.logger.error({ asset, failures }, 'no USD rate available');
    throw rateUnavailable(asset, this.config.maxAgeSeconds);
  }

  /** One request per provider and kind at a time in this process, whoever asks (quotes or refresh). */
  private fetchProvider(provider: RateProvider, kind: RateKind): Promise<FetchOutcome> {
    return this.pendingFetches(requestKey(provider, kind), () => this.fetchAndStore(provider, kind));
  }

  private async fetchAndStore(provider: RateProvider, kind: RateKind): Promise<FetchOutcome> {
    const key = requestKey(provider, kind);
    let rates: Map<Asset, ProviderRate>;
    try {
      rates =
        kind === 'crypto'
          ? await provider.fetch(this.deps.catalogue.assets)
          : await provider.fetchFiat(this.fiatCurrencies.filter((currency) => currency !== USD));
    } catch (error) {
      this.deps.fetchCounter?.inc({ provider: provider.id, outcome: 'error' });
      if (this.config.failureCooldownSeconds > 0) this.cooldownUntil.set(key, this.now().getTime() + this.config.failureCooldownSeconds * 1000);
      this.providerFailures.failed(key, error, { provider: provider.id, kind });
      throw error;
    }
    this.deps.fetchCounter?.inc({ provider: provider.id, outcome: 'ok' });
    this.providerFailures.succeeded(key, { provider: provider.id, kind });
    this.cooldownUntil.delete(key);
    // The operator's fixed rates and prices too old to be used are stored unchecked.
    const share = this.shareOf(kind);
    let outcome: RecordOutcome;
    try {
      outcome = await this.store.record(provider.id, rates, (_asset, rate) => (provider.id === 'fixed' || !this.isFresh(rate.at) ? undefined : share), {
        now: this.now(),
        confirmSeconds: this.config.jump.confirmSeconds,
        onConfirmed: (trx, confirmed) => this.auditConfirmations(trx, confirmed),
      });
    } catch (error) {
      // Unchecked rates are never used: without the store the answer is no quote.
      this.logger.error({ provider: provider.id, kind, err: error }, 'could not store rates');
      throw new Error(`${provider.id}: could not store its rates: ${(error as Error).message}`, { cause: error });
    }
    this.reportChecks(provider, kind, outcome);
    // The preferred provider's accepted answer is what any quote would select: kept for every
    // asset, so callers whose cache read raced this fetch (and missed its write) need no second request.
    if (provider === this.providers[0]) {
      this.fetches += 1;
      for (const [asset, rate] of outcome.accepted) {
        if (!this.isFresh(rate.at)) continue;
        const quote = quoteOf(provider.id, asset, rate.rate, rate.at);
        this.justFetched.set(asset, { quote, fetch: this.fetches });
        this.remember(quote);
      }
    }
    return { accepted: outcome.accepted, held: outcome.held.map((h) => h.asset) };
  }

  /** Records what accepted each confirmed held rate (`rate.confirm`), as a release is (`rate.release`). */
  private async auditConfirmations(trx: Knex.Transaction, confirmed: readonly ConfirmedRate[]): Promise<void> {
    await this.deps.audit?.recordMany(
      confirmed.map((held) => ({
        actor: JUMP_CHECK_ACTOR.actor,
        channel: JUMP_CHECK_ACTOR.channel,
        action: 'rate.confirm',
        target: `rate:${held.asset}`,
        details: {
          source: held.source,
          rate: held.rate,
          accepted_rate: held.acceptedRate,
          accepted_source: held.acceptedSource,
          confirmed_by: held.confirmedBy,
          how: held.how,
          repeated_since: held.repeatedSince.toISOString(),
        },
      })),
      trx,
    );
  }

  /** Counts and logs what the jump check did with one answer. */
  private reportChecks(provider: RateProvider, kind: RateKind, outcome: RecordOutcome): void {
    for (const held of outcome.held) {
      this.deps.heldCounter?.inc({ asset: held.asset });
      this.logger.warn(
        {
          asset: held.asset,
          provider: provider.id,
          kind,
          rate: held.rate,
          accepted_rate: held.acceptedRate,
          accepted_source: held.acceptedSource,
          change_percent: changePercent(held.acceptedRate, held.rate),
          share: this.shareOf(kind),
          repeated_since: held.repeatedSince.toISOString(),
        },
        'rate held back: it moved more than the jump share from the last accepted one',
      );
    }
    for (const held of outcome.confirmed) {
      this.memo.delete(held.asset);
      this.logger.info(
        { asset: held.asset, provider: provider.id, held_source: held.source, rate: held.rate, how: held.how },
        held.how === 'provider' ? 'held rate confirmed by another provider' : 'held rate accepted: its provider kept giving it for jump.confirmSeconds',
      );
    }
    for (const held of outcome.withdrawn) {
      this.logger.info({ asset: held.asset, provider: provider.id, rate: held.rate }, 'held rate withdrawn: its provider agrees with the accepted rate again');
    }
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
  const fixed = new FixedProvider(config.fixed, now, config.fixedFiat);
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

/** What one provider request left usable: the accepted rates, and the assets it had held back. */
interface FetchOutcome {
  readonly accepted: ReadonlyMap<Asset, ProviderRate>;
  readonly held: readonly Asset[];
}

/** The coalescing, cooldown and failure-log key of one provider's request of one kind. */
function requestKey(provider: RateProvider, kind: RateKind): string {
  return kind === 'crypto' ? provider.id : `${provider.id}:${kind}`;
}

function quoteOf(source: string, asset: Asset, rate: string, fetchedAt: Date): RateQuote {
  return Object.freeze({ source, base: asset, quote: 'USD', pair: `${asset}/USD`, rate, fetchedAt });
}
