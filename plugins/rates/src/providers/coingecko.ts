import { parsePositiveDecimal as parseRate } from '@gw/kernel';
import type { Asset } from '../assets.js';
import { endpoint, getJson, isRecord, JsonNumber, ProviderError, type ProviderRate, type RateProvider } from './provider.js';

/** CoinGecko coin ids of the assets (`/api/v3/coins/list`). POL is the post-MATIC token. */
export const COINGECKO_IDS: Readonly<Record<Asset, string>> = {
  BTC: 'bitcoin',
  ETH: 'ethereum',
  USDT: 'tether',
  USDC: 'usd-coin',
  TRX: 'tron',
  ADA: 'cardano',
  POL: 'polygon-ecosystem-token',
  BNB: 'binancecoin',
  TON: 'the-open-network',
};

export interface CoinGeckoOptions {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly apiKey?: string | undefined;
  readonly apiKeyType: 'demo' | 'pro';
}

/**
 * CoinGecko simple price: `GET /api/v3/simple/price?ids=bitcoin,...&vs_currencies=usd
 * &include_last_updated_at=true&precision=full`, answered as
 * `{ "bitcoin": { "usd": 97123.45, "last_updated_at": 1736937000 }, ... }`. Prices are JSON
 * numbers, kept as their literal text; `last_updated_at` (Unix seconds) is the quote's time.
 */
export class CoinGeckoProvider implements RateProvider {
  readonly id = 'coingecko';

  constructor(
    private readonly options: CoinGeckoOptions,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async fetch(assets: readonly Asset[]): Promise<Map<Asset, ProviderRate>> {
    const rates = new Map<Asset, ProviderRate>();
    if (assets.length === 0) return rates;
    const url = endpoint(this.options.baseUrl, '/api/v3/simple/price', {
      ids: assets.map((asset) => COINGECKO_IDS[asset]).join(','),
      vs_currencies: 'usd',
      include_last_updated_at: 'true',
      precision: 'full',
    });
    const headers: Record<string, string> = {};
    if (this.options.apiKey) headers[this.options.apiKeyType === 'pro' ? 'x-cg-pro-api-key' : 'x-cg-demo-api-key'] = this.options.apiKey;
    const body = await getJson(this.id, url, { timeoutMs: this.options.timeoutMs, headers, exactNumbers: true });
    if (!isRecord(body)) throw new ProviderError(this.id, 'answer is not a JSON object');
    const now = this.now();
    for (const asset of assets) {
      const entry = body[COINGECKO_IDS[asset]];
      if (!isRecord(entry)) continue;
      const price = entry['usd'];
      const rate = price instanceof JsonNumber ? parseRate(price.text) : undefined;
      if (rate === undefined) continue;
      rates.set(asset, { rate, at: quoteTime(entry['last_updated_at'], now) });
    }
    if (rates.size === 0) throw new ProviderError(this.id, `answer holds no USD price for ${assets.join(', ')}`);
    return rates;
  }
}

/** The provider's timestamp, but never later than now (a skewed clock must not make a quote look fresher). */
function quoteTime(value: unknown, now: Date): Date {
  if (!(value instanceof JsonNumber)) return now;
  const seconds = Number(value.text);
  if (!Number.isFinite(seconds) || seconds <= 0) return now;
  return new Date(Math.min(seconds * 1000, now.getTime()));
}
