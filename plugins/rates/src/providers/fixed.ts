import { parsePositiveDecimal as parseRate, type PriceAsset } from '@gw/kernel';
import type { Asset } from '../assets.js';
import type { ProviderRate, RateProvider } from './provider.js';

/**
 * Operator-set rates from config (`plugins.rates.fixed` for the coins' assets,
 * `plugins.rates.fixedFiat` for fiat currencies), stamped with the time they are asked for, so
 * they never go stale. For offline development, or as an explicit last resort. They are the
 * operator's own numbers, so the held-back jump check does not apply to them.
 */
export class FixedProvider implements RateProvider {
  readonly id = 'fixed';
  private readonly rates: Map<Asset, string>;
  private readonly fiatRates: Map<string, string>;

  constructor(
    rates: Readonly<Record<Asset, string | undefined>>,
    private readonly now: () => Date = () => new Date(),
    fiatRates: Readonly<Record<string, string | undefined>> = {},
  ) {
    this.rates = parsed(rates);
    this.fiatRates = parsed(fiatRates);
  }

  /** Whether any rate is configured, of an asset or a fiat currency. */
  get configured(): boolean {
    return this.rates.size > 0 || this.fiatRates.size > 0;
  }

  async fetch(assets: readonly PriceAsset[]): Promise<Map<Asset, ProviderRate>> {
    return this.pick(
      this.rates,
      assets.map((asset) => asset.symbol),
    );
  }

  async fetchFiat(currencies: readonly string[]): Promise<Map<string, ProviderRate>> {
    return this.pick(this.fiatRates, currencies);
  }

  private pick(rates: ReadonlyMap<string, string>, wanted: readonly string[]): Map<string, ProviderRate> {
    const at = this.now();
    const out = new Map<string, ProviderRate>();
    for (const symbol of wanted) {
      const rate = rates.get(symbol);
      if (rate !== undefined) out.set(symbol, { rate, at });
    }
    return out;
  }
}

function parsed(rates: Readonly<Record<string, string | undefined>>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [symbol, text] of Object.entries(rates)) {
    const rate = text === undefined ? undefined : parseRate(text);
    if (rate !== undefined) out.set(symbol, rate);
  }
  return out;
}
