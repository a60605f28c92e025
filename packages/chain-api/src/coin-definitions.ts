import type { ChainCapabilities, CoinDefinition, PriceAsset } from './chain.js';

/**
 * The price assets that coins on several chains are priced as. The registry refuses two coins that
 * name one asset with different provider ids, so every chain takes them from here.
 */
export const PRICE_ASSETS = {
  ETH: { symbol: 'ETH', providers: { coingecko: 'ethereum', kraken: ['ETHUSD', 'XETHZUSD'] } },
  USDT: { symbol: 'USDT', providers: { coingecko: 'tether', kraken: ['USDTUSD', 'USDTZUSD'] } },
  USDC: { symbol: 'USDC', providers: { coingecko: 'usd-coin', kraken: ['USDCUSD'] } },
} as const satisfies Record<string, PriceAsset>;

/**
 * The capabilities of a chain with nothing out of the ordinary: no activation, no memo, reuse after
 * a cooldown, gap limits apply, sandbox keys generated. A chain that differs spreads it and overrides.
 */
export const ORDINARY_CAPABILITIES: ChainCapabilities = {
  requiresActivation: false,
  supportsMemo: false,
  addressReuseAfterCooldown: true,
  gapLimitApplies: true,
  sandboxKeyGeneration: true,
};

/** What {@link coin} needs: a coin definition whose ticker and payment digits follow from its price and decimals. */
export type CoinSpec = Omit<CoinDefinition, 'symbol' | 'paymentDecimals'> & Partial<Pick<CoinDefinition, 'symbol' | 'paymentDecimals'>>;

/**
 * A coin definition with the usual defaults: the ticker is the price asset's symbol, and a payer is
 * asked for at most 8 fractional digits (all of them for coins of 8 or fewer, 8 for the 18-decimal
 * ones). Either may be given to differ.
 */
export function coin(spec: CoinSpec): CoinDefinition {
  return { symbol: spec.price.symbol, paymentDecimals: Math.min(spec.decimals, 8), ...spec };
}
