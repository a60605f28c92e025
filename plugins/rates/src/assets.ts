import type { ChainRegistry, CoinId, PriceAsset } from '@gw/kernel';

/** An asset symbol (`BTC`, `USDT`): the base of a `<asset>/USD` pair. */
export type Asset = string;

/**
 * The assets the gateway prices in USD, from the enabled chains' coin definitions: one per distinct
 * `price.symbol`, whatever chain carries it. A token has one USD price however many chains carry it
 * (USDT on Ethereum, TRON, Polygon, BSC and TON), so the cache is keyed by asset, not by coin.
 */
export class PriceCatalogue {
  /** Every asset with its rate provider ids, in order of first appearance. */
  readonly assets: readonly PriceAsset[];
  private readonly coins: ReadonlyMap<CoinId, Asset>;

  constructor(assets: Iterable<PriceAsset>, coins: Iterable<readonly [CoinId, Asset]>) {
    this.assets = [...assets];
    this.coins = new Map(coins);
  }

  /** The catalogue of the chains a registry enables. */
  static of(chains: ChainRegistry): PriceCatalogue {
    return new PriceCatalogue(
      chains.priceAssets().values(),
      chains.list().flatMap((adapter) => adapter.definition.coins.map((coin) => [coin.id, coin.price.symbol] as const)),
    );
  }

  /** The asset of a coin, or undefined for a string that is not an enabled coin id. */
  assetOf(coin: string): Asset | undefined {
    return this.coins.get(coin);
  }

  /** Whether a string is the symbol of one of the assets. */
  isAsset(value: string): boolean {
    return this.assets.some((asset) => asset.symbol === value);
  }
}

/** The id of `asset` at `provider`: the one to request (the first, when several are given). */
export function providerIdOf(asset: PriceAsset, provider: string): string | undefined {
  const id = asset.providers[provider];
  return typeof id === 'string' ? id : id?.[0];
}

/** Every key `provider` may answer `asset` under: the requested id and its alternatives. */
export function providerKeysOf(asset: PriceAsset, provider: string): readonly string[] {
  const id = asset.providers[provider];
  return id === undefined ? [] : typeof id === 'string' ? [id] : id;
}
