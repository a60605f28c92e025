import { parsePositiveDecimal as parseRate, type PriceAsset } from '@gw/kernel';
import { providerKeysOf, type Asset } from '../assets.js';
import { derivedRate, endpoint, getJson, isRecord, ProviderError, type ProviderRate, type RateProvider } from './provider.js';

/** The pair to request and the keys Kraken may answer it under. */
export interface KrakenPair {
  readonly pair: string;
  readonly keys: readonly string[];
}

/**
 * A Kraken forex pair of a fiat currency: the pair to request, the keys its ticker comes back
 * under (the legacy `Z`-prefixed one first), and whether it quotes the currency per dollar
 * (`USDJPY`: yen per dollar, so USD per yen is its inverse).
 */
export interface KrakenFiatPair extends KrakenPair {
  readonly inverted: boolean;
}

/** Kraken's forex pairs against the dollar (its `AssetPairs`), by currency. */
export const KRAKEN_FIAT_PAIRS: Readonly<Record<string, KrakenFiatPair>> = {
  EUR: { pair: 'EURUSD', keys: ['ZEURZUSD', 'EURUSD'], inverted: false },
  GBP: { pair: 'GBPUSD', keys: ['ZGBPZUSD', 'GBPUSD'], inverted: false },
  JPY: { pair: 'USDJPY', keys: ['ZUSDZJPY', 'USDJPY'], inverted: true },
  CHF: { pair: 'USDCHF', keys: ['USDCHF'], inverted: true },
  CAD: { pair: 'USDCAD', keys: ['ZUSDZCAD', 'USDCAD'], inverted: true },
  AUD: { pair: 'AUDUSD', keys: ['AUDUSD'], inverted: false },
};

export interface KrakenOptions {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  /** Pair names by asset symbol that add to or replace the coin definitions' `price.providers.kraken`. */
  readonly pairs?: Readonly<Record<Asset, string | undefined>>;
}

/**
 * Kraken public ticker: `GET /0/public/Ticker?pair=XBTUSD,ETHUSD,...`, answered as
 * `{ "error": [], "result": { "XXBTZUSD": { "c": ["97110.10000", "0.00150000"], ... } } }`. The
 * price is `c[0]`, the last trade; the ticker has no timestamp, so the quote's time is the fetch.
 * Pairs come from the coin definitions' `price.providers.kraken` (the pair, then the legacy keys
 * Kraken answers older listings under: `XBTUSD` comes back as `XXBTZUSD`), or from config
 * `kraken.pairs`. An asset without either is not asked for: an unknown pair makes Kraken refuse
 * the whole request.
 *
 * Fiat: the same ticker, in a request of its own, for the currencies of {@link KRAKEN_FIAT_PAIRS}
 * (`pair=EURUSD,GBPUSD,USDJPY,...`, answered under `ZEURZUSD`, `ZGBPZUSD`, `ZUSDZJPY`, `USDCHF`,
 * `ZUSDZCAD`, `AUDUSD`); a pair quoted per dollar is inverted. Other currencies are not asked for.
 */
export class KrakenProvider implements RateProvider {
  readonly id = 'kraken';

  constructor(
    private readonly options: KrakenOptions,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The pair of an asset: the configured one, else the definition's. */
  pairOf(asset: PriceAsset): KrakenPair | undefined {
    const configured = this.options.pairs?.[asset.symbol];
    const [pair, ...others] = providerKeysOf(asset, this.id);
    if (configured) return configured === pair ? { pair, keys: [pair, ...others] } : { pair: configured, keys: [configured] };
    return pair === undefined ? undefined : { pair, keys: [pair, ...others] };
  }

  async fetch(assets: readonly PriceAsset[]): Promise<Map<Asset, ProviderRate>> {
    const rates = new Map<Asset, ProviderRate>();
    const wanted = assets.flatMap((asset) => {
      const pair = this.pairOf(asset);
      return pair ? [{ symbol: asset.symbol, ...pair }] : [];
    });
    if (wanted.length === 0) return rates;
    const result = await this.ticker(wanted.map((asset) => asset.pair));
    const now = this.now();
    for (const asset of wanted) {
      const rate = lastTrade(result, asset.keys);
      if (rate !== undefined) rates.set(asset.symbol, { rate, at: now });
    }
    if (rates.size === 0) throw new ProviderError(this.id, `answer holds no last-trade price for ${wanted.map((asset) => asset.symbol).join(', ')}`);
    return rates;
  }

  async fetchFiat(currencies: readonly string[]): Promise<Map<string, ProviderRate>> {
    const rates = new Map<string, ProviderRate>();
    const wanted = currencies.flatMap((currency) => {
      const pair = KRAKEN_FIAT_PAIRS[currency];
      return pair ? [{ currency, ...pair }] : [];
    });
    if (wanted.length === 0) return rates;
    const result = await this.ticker(wanted.map((fiat) => fiat.pair));
    const now = this.now();
    for (const fiat of wanted) {
      const last = lastTrade(result, fiat.keys);
      const rate = last === undefined || !fiat.inverted ? last : derivedRate('1', last);
      if (rate !== undefined) rates.set(fiat.currency, { rate, at: now });
    }
    if (rates.size === 0) throw new ProviderError(this.id, `answer holds no last-trade price for ${wanted.map((fiat) => fiat.pair).join(', ')}`);
    return rates;
  }

  /** The `result` of a Ticker request for `pairs`; a missing result or an error envelope throws. */
  private async ticker(pairs: readonly string[]): Promise<Record<string, unknown>> {
    const url = endpoint(this.options.baseUrl, '/0/public/Ticker', { pair: [...new Set(pairs)].join(',') });
    const body = await getJson(this.id, url, { timeoutMs: this.options.timeoutMs });
    if (!isRecord(body) || !Array.isArray(body['error'])) throw new ProviderError(this.id, 'answer is not a Kraken API envelope');
    const result = body['result'];
    if (!isRecord(result)) {
      const errors = body['error'].map(String).join('; ');
      throw new ProviderError(this.id, errors ? `API error: ${errors}` : 'answer has no result');
    }
    return result;
  }
}

/** The last trade price (`c[0]`) of the first of `keys` the ticker result has, if a positive decimal. */
function lastTrade(result: Record<string, unknown>, keys: readonly string[]): string | undefined {
  const key = keys.find((k) => isRecord(result[k]));
  const ticker = key === undefined ? undefined : (result[key] as Record<string, unknown>);
  const last = ticker?.['c'];
  return Array.isArray(last) && typeof last[0] === 'string' ? parseRate(last[0]) : undefined;
}
