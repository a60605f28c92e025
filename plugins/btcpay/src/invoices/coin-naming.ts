import type { ChainRegistry, CoinId } from '@gw/kernel';
import { coinOfPaymentMethodId, paymentMethodIdOf } from '../credentials/payment-method-ids.js';
import type { CoinNaming } from './btcpay-invoices.js';

/**
 * The coins of the running gateway in BTCPay's words, both ways: the payment method ids of the
 * credentials area (`BTC-CHAIN`), and a coin's currency code, its id in capitals (`BTC`,
 * `USDT_TRC20`: what BTCPay's client reads before the `-` of a payment method id).
 */
export function coinNaming(chains: ChainRegistry): CoinNaming {
  const isCoin = (code: string) => chains.coinIds().includes(code as CoinId);
  return {
    paymentMethodIdOf: (coin) => paymentMethodIdOf(coin),
    currencyOf: (coin) => coin.toUpperCase(),
    coinOfPaymentMethod: (id) => coinOfPaymentMethodId(id, isCoin),
    coinOfCurrency: (code) => (isCoin(code.toLowerCase()) ? (code.toLowerCase() as CoinId) : undefined),
  };
}
