import { parsePositiveDecimal as parseRate } from '@gw/kernel';
import type { Asset } from '../assets.js';
import { endpoint, getJson, isRecord, ProviderError, type ProviderRate, type RateProvider } from './provider.js';

/** The pair to request and the keys Kraken may answer it under. */
export interface KrakenPair {
  readonly pair: string;
  readonly keys: readonly string[];
}

/**
 * Kraken USD pairs. Older listings answer under Kraken's legacy asset codes (`XBTUSD` comes back
 * as `XXBTZUSD`, `ETHUSD` as `XETHZUSD`, `USDTUSD` as `USDTZUSD`); newer ones under their own name.
 * BNB has no USD pair in the listings checked, so Kraken does not price it unless configured: an
 * unknown pair makes Kraken refuse the whole request.
 */
export const KRAKEN_PAIRS: Readonly<Partial<Record<Asset, KrakenPair>>> = {
  BTC: { pair: 'XBTUSD', keys: ['XXBTZUSD', 'XBTUSD'] },
  ETH: { pair: 'ETHUSD', keys: ['XETHZUSD', 'ETHUSD'] },
  USDT: { pair: 'USDTUSD', keys: ['USDTZUSD', 'USDTUSD'] },
  USDC: { pair: 'USDCUSD', keys: ['USDCUSD'] },
  TRX: { pair: 'TRXUSD', keys: ['TRXUSD'] },
  ADA: { pair: 'ADAUSD', keys: ['ADAUSD'] },
  POL: { pair: 'POLUSD', keys: ['POLUSD'] },
  TON: { pair: 'TONUSD', keys: ['TONUSD'] },
};

export interface KrakenOptions {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  /** Pair names by asset that add to or replace {@link KRAKEN_PAIRS}. */
  readonly pairs?: Readonly<Partial<Record<Asset, string>>>;
}

/**
 * Kraken public ticker: `GET /0/public/Ticker?pair=XBTUSD,ETHUSD,...`, answered as
 * `{ "error": [], "result": { "XXBTZUSD": { "c": ["97110.10000", "0.00150000"], ... } } }`. The
 * price is `c[0]`, the last trade; the ticker has no timestamp, so the quote's time is the fetch.
 */
export class KrakenProvider implements RateProvider {
  readonly id = 'kraken';
  private readonly pairs: Partial<Record<Asset, KrakenPair>>;

  constructor(
    private readonly options: KrakenOptions,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.pairs = { ...KRAKEN_PAIRS };
    for (const [asset, pair] of Object.entries(options.pairs ?? {}) as [Asset, string | undefined][]) {
      if (!pair) continue;
      const builtIn = KRAKEN_PAIRS[asset];
      this.pairs[asset] = builtIn?.pair === pair ? builtIn : { pair, keys: [pair] };
    }
  }

  async fetch(assets: readonly Asset[]): Promise<Map<Asset, ProviderRate>> {
    const rates = new Map<Asset, ProviderRate>();
    const wanted = assets.filter((asset) => this.pairs[asset] !== undefined);
    if (wanted.length === 0) return rates;
    const url = endpoint(this.options.baseUrl, '/0/public/Ticker', { pair: wanted.map((asset) => this.pairs[asset]!.pair).join(',') });
    const body = await getJson(this.id, url, { timeoutMs: this.options.timeoutMs });
    if (!isRecord(body) || !Array.isArray(body['error'])) throw new ProviderError(this.id, 'answer is not a Kraken API envelope');
    const result = body['result'];
    if (!isRecord(result)) {
      const errors = body['error'].map(String).join('; ');
      throw new ProviderError(this.id, errors ? `API error: ${errors}` : 'answer has no result');
    }
    const now = this.now();
    for (const asset of wanted) {
      const key = this.pairs[asset]!.keys.find((k) => isRecord(result[k]));
      const ticker = key === undefined ? undefined : (result[key] as Record<string, unknown>);
      const last = ticker?.['c'];
      const rate = Array.isArray(last) && typeof last[0] === 'string' ? parseRate(last[0]) : undefined;
      if (rate !== undefined) rates.set(asset, { rate, at: now });
    }
    if (rates.size === 0) throw new ProviderError(this.id, `answer holds no last-trade price for ${wanted.join(', ')}`);
    return rates;
  }
}
