import type { CoinId } from '@gw/kernel';

/**
 * The one rule naming a coin as a BTCPay payment method (BTCPay 2's `<CRYPTO>-<TYPE>` ids): every
 * coin of this gateway is paid on its chain, so its id is the coin id upper-cased with `-CHAIN`:
 * `btc` → `BTC-CHAIN` and `ltc` → `LTC-CHAIN` as in BTCPay, `eth` → `ETH-CHAIN`, `usdt_trc20` →
 * `USDT_TRC20-CHAIN`. BTCPay's PHP client reads the part before the first `-` as the crypto code
 * (`USDT_TRC20`), and the WooCommerce plugin makes a gateway of each id.
 */
export function paymentMethodIdOf(coin: CoinId | string): string {
  return `${coin.toUpperCase()}-CHAIN`;
}

/** The on-chain payment type's names BTCPay still reads in legacy ids (`BTC-OnChain`, `BTC_BTCLike`). */
const ON_CHAIN_TYPES = ['CHAIN', 'ONCHAIN', 'ON-CHAIN', 'BITCOINLIKE', 'BTCLIKE'];

/**
 * The coin a payment method id names, read as BTCPay reads ids: case-insensitively, `<COIN>-CHAIN`
 * or a legacy on-chain form (`BTC-OnChain`, `BTC_OnChain`), or a bare crypto code (`BTC`).
 * Undefined when the id names no coin `isCoin` knows, or another payment type (`BTC-LN`: this
 * gateway has no Lightning).
 */
export function coinOfPaymentMethodId(id: string, isCoin: (coin: string) => boolean): CoinId | undefined {
  const upper = id.trim().toUpperCase();
  for (const type of ON_CHAIN_TYPES) {
    for (const separator of ['-', '_']) {
      const suffix = `${separator}${type}`;
      if (upper.length > suffix.length && upper.endsWith(suffix)) {
        const coin = upper.slice(0, -suffix.length).toLowerCase();
        if (isCoin(coin)) return coin as CoinId;
      }
    }
  }
  const bare = upper.toLowerCase();
  return isCoin(bare) ? (bare as CoinId) : undefined;
}
