import type { ChainRegistry, CoinId } from '@gw/kernel';
import type { CoinNames } from '../invoices/create-request.js';
import type { CoinCodes } from '../invoices/invoice-data.js';

/** Stand-in for the credentials area's payment method ids until it lands (replaced on merge). */
export function provisionalNaming(chains: ChainRegistry): CoinNames & CoinCodes {
  const idOf = (coin: string) => `${coin.toUpperCase()}-CHAIN`;
  return {
    paymentMethodIdOf: (coin) => idOf(coin),
    currencyOf: (coin) => chains.storedCoin(coin).symbol,
    coinOfPaymentMethod: (id) => chains.coinIds().find((coin) => idOf(coin) === id.toUpperCase()) as CoinId | undefined,
    coinOfCurrency: (code) => chains.coinIds().find((coin) => chains.storedCoin(coin).symbol === code) as CoinId | undefined,
  };
}
