import test from 'ava';
import { coinOfPaymentMethodId, paymentMethodIdOf } from './payment-method-ids.js';

const COINS: ReadonlySet<string> = new Set(['btc', 'ltc', 'eth', 'usdt_trc20', 'usdc_erc20']);
const isCoin = (coin: string) => COINS.has(coin);

test('a coin is named <COIN>-CHAIN, upper case, as BTCPay names on-chain methods', (t) => {
  t.deepEqual(['btc', 'ltc', 'eth', 'usdt_trc20'].map(paymentMethodIdOf), ['BTC-CHAIN', 'LTC-CHAIN', 'ETH-CHAIN', 'USDT_TRC20-CHAIN']);
});

test('ids are read as BTCPay reads them: any case, the legacy on-chain forms and bare codes; other payment types and unknown coins name nothing', (t) => {
  for (const [id, coin] of [
    ['BTC-CHAIN', 'btc'],
    ['btc-chain', 'btc'],
    ['BTC', 'btc'],
    ['BTC-OnChain', 'btc'],
    ['BTC_OnChain', 'btc'],
    ['LTC_BTCLike', 'ltc'],
    ['USDT_TRC20-CHAIN', 'usdt_trc20'],
    ['usdc_erc20', 'usdc_erc20'],
  ] as const) {
    t.is(coinOfPaymentMethodId(id, isCoin), coin, id);
  }
  for (const id of ['BTC-LN', 'BTC-LNURL', 'BTC-LightningNetwork', 'DOGE-CHAIN', 'OnChain', '-CHAIN', ''])
    t.is(coinOfPaymentMethodId(id, isCoin), undefined, id);
});
