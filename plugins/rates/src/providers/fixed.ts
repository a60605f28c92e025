import { parsePositiveDecimal as parseRate, type PriceAsset } from '@gw/kernel';
import type { Asset } from '../assets.js';
import type { ProviderRate, RateProvider } from './provider.js';

/**
 * Operator-set rates from config (`plugins.rates.fixed`), stamped with the time they are asked
 * for, so they never go stale. For offline development, or as an explicit last resort.
 */
export class FixedProvider implements RateProvider {
  readonly id = 'fixed';
  private readonly rates = new Map<Asset, string>();

  constructor(
    rates: Readonly<Record<Asset, string | undefined>>,
    private readonly now: () => Date = () => new Date(),
  ) {
    for (const [asset, text] of Object.entries(rates) as [Asset, string | undefined][]) {
      const rate = text === undefined ? undefined : parseRate(text);
      if (rate !== undefined) this.rates.set(asset, rate);
    }
  }

  /** Whether any rate is configured. */
  get configured(): boolean {
    return this.rates.size > 0;
  }

  async fetch(assets: readonly PriceAsset[]): Promise<Map<Asset, ProviderRate>> {
    const at = this.now();
    const out = new Map<Asset, ProviderRate>();
    for (const { symbol } of assets) {
      const rate = this.rates.get(symbol);
      if (rate !== undefined) out.set(symbol, { rate, at });
    }
    return out;
  }
}
