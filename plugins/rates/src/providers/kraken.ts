import { parsePositiveDecimal as parseRate, type PriceAsset } from '@gw/kernel';
import { providerKeysOf, type Asset } from '../assets.js';
import { endpoint, getJson, isRecord, ProviderError, type ProviderRate, type RateProvider } from './provider.js';

/** The pair to request and the keys Kraken may answer it under. */
export interface KrakenPair {
  readonly pair: string;
  readonly keys: readonly string[];
}

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
    const url = endpoint(this.options.baseUrl, '/0/public/Ticker', { pair: [...new Set(wanted.map((asset) => asset.pair))].join(',') });
    const body = await getJson(this.id, url, { timeoutMs: this.options.timeoutMs });
    if (!isRecord(body) || !Array.isArray(body['error'])) throw new ProviderError(this.id, 'answer is not a Kraken API envelope');
    const result = body['result'];
    if (!isRecord(result)) {
      const errors = body['error'].map(String).join('; ');
      throw new ProviderError(this.id, errors ? `API error: ${errors}` : 'answer has no result');
    }
    const now = this.now();
    for (const asset of wanted) {
      const key = asset.keys.find((k) => isRecord(result[k]));
      const ticker = key === undefined ? undefined : (result[key] as Record<string, unknown>);
      const last = ticker?.['c'];
      const rate = Array.isArray(last) && typeof last[0] === 'string' ? parseRate(last[0]) : undefined;
      if (rate !== undefined) rates.set(asset.symbol, { rate, at: now });
    }
    if (rates.size === 0) throw new ProviderError(this.id, `answer holds no last-trade price for ${wanted.map((asset) => asset.symbol).join(', ')}`);
    return rates;
  }
}
