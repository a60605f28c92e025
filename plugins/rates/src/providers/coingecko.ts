import { parsePositiveDecimal as parseRate, type PriceAsset } from '@gw/kernel';
import { providerIdOf, type Asset } from '../assets.js';
import { DERIVED_RATE_DIGITS, derivedRate, endpoint, getJson, isRecord, JsonNumber, ProviderError, type ProviderRate, type RateProvider } from './provider.js';

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
 * numbers, kept as their literal text; `last_updated_at` (Unix seconds) is the quote's time. The
 * ids are the coin definitions' `price.providers.coingecko` (CoinGecko's `/api/v3/coins/list`).
 *
 * Fiat: `GET /api/v3/exchange_rates`, answered as `{ "rates": { "btc": { "name": "Bitcoin",
 * "unit": "BTC", "value": 1, "type": "crypto" }, "usd": { "value": 97123.45, "type": "fiat", ... },
 * "eur": { "value": 89802.1, ... }, ... } }`: how many units of each currency one bitcoin buys,
 * keyed by the lower-case code. USD per euro is `usd.value / eur.value`, rounded to
 * {@link DERIVED_RATE_DIGITS} significant digits. The endpoint has no timestamp: fetch time.
 */
export class CoinGeckoProvider implements RateProvider {
  readonly id = 'coingecko';

  constructor(
    private readonly options: CoinGeckoOptions,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private headers(): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.options.apiKey) headers[this.options.apiKeyType === 'pro' ? 'x-cg-pro-api-key' : 'x-cg-demo-api-key'] = this.options.apiKey;
    return headers;
  }

  async fetch(assets: readonly PriceAsset[]): Promise<Map<Asset, ProviderRate>> {
    const rates = new Map<Asset, ProviderRate>();
    const wanted = assets.flatMap((asset) => {
      const id = providerIdOf(asset, this.id);
      return id === undefined ? [] : [{ symbol: asset.symbol, id }];
    });
    if (wanted.length === 0) return rates;
    const url = endpoint(this.options.baseUrl, '/api/v3/simple/price', {
      ids: [...new Set(wanted.map((asset) => asset.id))].join(','),
      vs_currencies: 'usd',
      include_last_updated_at: 'true',
      precision: 'full',
    });
    const body = await getJson(this.id, url, { timeoutMs: this.options.timeoutMs, headers: this.headers(), exactNumbers: true });
    if (!isRecord(body)) throw new ProviderError(this.id, 'answer is not a JSON object');
    const now = this.now();
    for (const asset of wanted) {
      const entry = body[asset.id];
      if (!isRecord(entry)) continue;
      const price = entry['usd'];
      const rate = price instanceof JsonNumber ? parseRate(price.text) : undefined;
      if (rate === undefined) continue;
      rates.set(asset.symbol, { rate, at: quoteTime(entry['last_updated_at'], now) });
    }
    if (rates.size === 0) throw new ProviderError(this.id, `answer holds no USD price for ${wanted.map((asset) => asset.symbol).join(', ')}`);
    return rates;
  }

  async fetchFiat(currencies: readonly string[]): Promise<Map<string, ProviderRate>> {
    const rates = new Map<string, ProviderRate>();
    if (currencies.length === 0) return rates;
    const url = endpoint(this.options.baseUrl, '/api/v3/exchange_rates', {});
    const body = await getJson(this.id, url, { timeoutMs: this.options.timeoutMs, headers: this.headers(), exactNumbers: true });
    const table = isRecord(body) ? body['rates'] : undefined;
    if (!isRecord(table)) throw new ProviderError(this.id, 'answer has no "rates" object');
    const usd = perBitcoin(table, 'USD');
    if (usd === undefined) throw new ProviderError(this.id, 'answer has no usable "usd" rate');
    const at = this.now();
    for (const currency of currencies) {
      const value = perBitcoin(table, currency);
      const rate = value === undefined ? undefined : derivedRate(usd, value);
      if (rate !== undefined) rates.set(currency, { rate, at });
    }
    if (rates.size === 0) throw new ProviderError(this.id, `answer holds no rate for ${currencies.join(', ')}`);
    return rates;
  }
}

/** Units of `currency` per bitcoin in an exchange_rates table, if a positive number. */
function perBitcoin(table: Record<string, unknown>, currency: string): string | undefined {
  const entry = table[currency.toLowerCase()];
  const value = isRecord(entry) ? entry['value'] : undefined;
  return value instanceof JsonNumber ? parseRate(value.text) : undefined;
}

/** The provider's timestamp, but never later than now (a skewed clock must not make a quote look fresher). */
function quoteTime(value: unknown, now: Date): Date {
  if (!(value instanceof JsonNumber)) return now;
  const seconds = Number(value.text);
  if (!Number.isFinite(seconds) || seconds <= 0) return now;
  return new Date(Math.min(seconds * 1000, now.getTime()));
}
