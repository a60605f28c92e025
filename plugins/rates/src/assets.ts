import type { CoinId } from '@gw/kernel';

/** The assets the gateway prices in USD: one per distinct coin, whatever chain carries it. */
export const ASSETS = ['BTC', 'ETH', 'USDT', 'USDC', 'TRX', 'ADA', 'POL', 'BNB', 'TON'] as const;

/** An asset symbol (`BTC`, `USDT`): the base of a `<asset>/USD` pair. */
export type Asset = (typeof ASSETS)[number];

/**
 * Which asset each of the fifteen coins is. A token has one USD price however many chains carry it
 * (USDT on Ethereum, TRON, Polygon, BSC and TON), so the cache is keyed by asset, not by coin.
 */
export const COIN_ASSET: Readonly<Record<CoinId, Asset>> = {
  btc: 'BTC',
  eth: 'ETH',
  usdt_erc20: 'USDT',
  usdc_erc20: 'USDC',
  trx: 'TRX',
  usdt_trc20: 'USDT',
  ada: 'ADA',
  pol: 'POL',
  usdt_polygon: 'USDT',
  usdc_polygon: 'USDC',
  bnb: 'BNB',
  usdt_bep20: 'USDT',
  usdc_bep20: 'USDC',
  ton: 'TON',
  usdt_ton: 'USDT',
};

/** The asset of a coin, or undefined for a string that is not one of the fifteen coin ids. */
export function assetOf(coin: string): Asset | undefined {
  return Object.hasOwn(COIN_ASSET, coin) ? COIN_ASSET[coin as CoinId] : undefined;
}

/** Whether a string is one of the nine asset symbols. */
export function isAsset(value: string): value is Asset {
  return (ASSETS as readonly string[]).includes(value);
}
