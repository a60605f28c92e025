import test from 'ava';
import type { AppError } from '@gw/kernel';
import { startTestKernel } from '@gw/kernel/testing';
import { FIAT_CURRENCIES, fiatDecimals, isFiatCurrency, isRateUnavailable, ratesPlugin } from '@gw/plugin-rates';
import { CHAINS, rateServiceFixture } from './helpers.js';

// Fiat quotes through the same cache, providers and fallback as the coins' (role gateway: no
// scheduled refresh behind the tests' back). SEK is an extra currency from config.
const f = rateServiceFixture(test, { 'plugins.rates.fiat.currencies': ['SEK'] });

test('the contract: the ten currencies, extra ones by config, and the decimals of each', (t) => {
  t.deepEqual([...FIAT_CURRENCIES], ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD', 'BRL', 'INR', 'TRY']);
  t.true(isFiatCurrency('EUR'));
  t.false(isFiatCurrency('eur'), 'codes are upper case');
  t.false(isFiatCurrency('SEK'));
  t.true(isFiatCurrency('SEK', ['SEK']));
  t.false(isFiatCurrency('BTC'));
  t.is(fiatDecimals('JPY'), 0);
  t.is(fiatDecimals('EUR'), 2);
  t.is(fiatDecimals('USD'), 2);
  t.is(fiatDecimals('KWD'), 3);
  t.deepEqual(f.rates().fiatCurrencies, [...FIAT_CURRENCIES, 'SEK']);
});

test.serial('USD is rate 1 from source identity, without a request', async (t) => {
  const before = f.server.requests.length;
  const quote = await f.rates().fiatQuote('USD');
  t.like(quote, { source: 'identity', base: 'USD', quote: 'USD', pair: 'USD/USD', rate: '1' });
  t.true(quote.fetchedAt instanceof Date);
  t.is(f.server.requests.length, before);
});

test.serial('cold cache: CoinGecko answers every currency in one request; later quotes come from the cache', async (t) => {
  const before = { fiat: f.server.count('coingecko', 'fiat'), prices: f.server.count('coingecko', 'prices') };
  t.like(await f.rates().fiatQuote('EUR'), { source: 'coingecko', base: 'EUR', quote: 'USD', pair: 'EUR/USD', rate: '1.08150000058' });
  t.like(await f.rates().fiatQuote('JPY'), { source: 'coingecko', pair: 'JPY/USD', rate: '0.00639304436773' });
  t.like(await f.rates().fiatQuote('SEK'), { source: 'coingecko', pair: 'SEK/USD', rate: '0.0947099999635' });
  t.like(await f.rates().fiatQuote('TRY'), { source: 'coingecko', rate: '0.0290299999995' });
  t.is(f.server.count('coingecko', 'fiat'), before.fiat + 1);
  t.is(f.server.count('coingecko', 'prices'), before.prices, 'fiat rates do not fetch coin prices');
  const stored = (await f.db('rates_quotes').where({ source: 'coingecko' }).orderBy('asset').pluck('asset')) as string[];
  t.deepEqual(stored, ['AUD', 'BRL', 'CAD', 'CHF', 'EUR', 'GBP', 'INR', 'JPY', 'SEK', 'TRY']);
});

test.serial('falls back to Kraken (pairs inverted where needed), then to fixedFiat; a currency nobody prices is unavailable', async (t) => {
  f.server.setFiat('error500', 'ok');
  t.like(await f.rates().fiatQuote('EUR'), { source: 'kraken', pair: 'EUR/USD', rate: '1.0815' });
  t.like(await f.rates().fiatQuote('CHF'), { source: 'kraken', rate: '1.10963160231' });
  // Coin prices still come from CoinGecko: the fiat request failed, not the provider.
  t.like(await f.rates().quote('btc'), { source: 'coingecko' });
  const brl = (await t.throwsAsync(f.rates().fiatQuote('BRL'))) as AppError;
  t.true(isRateUnavailable(brl), 'Kraken has no BRL pair');
  t.deepEqual(brl.details, { reason: 'rate_unavailable', asset: 'BRL' });
  t.is(brl.message, 'No USD rate for BRL: no provider reachable and no cached quote newer than 600 s.');

  await f.db('rates_quotes').del();
  f.server.set('hang', 'malformed');
  const offline = f.serviceWith({ fixedFiat: { BRL: '0.18', EUR: '1.08' } });
  t.deepEqual(
    offline.providers.map((p) => p.id),
    ['coingecko', 'kraken', 'fixed'],
  );
  t.like(await offline.fiatQuote('BRL'), { source: 'fixed', base: 'BRL', rate: '0.18' });
  t.like(await offline.fiatQuote('EUR'), { source: 'fixed', rate: '1.08' });
});

test.serial('the cache follows the provider order for fiat rates too', async (t) => {
  await f.db('rates_quotes').insert([
    { asset: 'GBP', source: 'coingecko', rate: '1.25', fetched_at: new Date(Date.now() - 400_000) },
    { asset: 'GBP', source: 'kraken', rate: '1.26', fetched_at: new Date(Date.now() - 5_000) },
  ]);
  const before = f.server.requests.length;
  t.like(await f.rates().fiatQuote('GBP'), { source: 'coingecko', rate: '1.25' });
  t.like(await f.serviceWith({ providers: ['kraken', 'coingecko'] }).fiatQuote('GBP'), { source: 'kraken', rate: '1.26' });
  t.is(f.server.requests.length, before);
  t.deepEqual(
    (await f.rates().cached('GBP')).map((q) => [q.pair, q.source, q.selected]),
    [
      ['GBP/USD', 'coingecko', true],
      ['GBP/USD', 'kraken', false],
    ],
  );
});

test.serial('an unknown currency is 400 validation_error naming the field and the currencies priced', async (t) => {
  for (const code of ['XYZ', 'eur', 'BTC', '']) {
    const error = (await t.throwsAsync(f.rates().fiatQuote(code))) as AppError;
    t.is(error.code, 'validation_error', code);
    t.is(error.status, 400);
    t.deepEqual(error.details, { field: 'price_currency', currencies: [...FIAT_CURRENCIES, 'SEK'] });
  }
  const named = (await t.throwsAsync(f.rates().fiatQuote('XYZ', { field: 'body.currency' }))) as AppError;
  t.is(named.message, 'body.currency: "XYZ" is not a currency the gateway prices (USD, EUR, GBP, JPY, CHF, CAD, AUD, BRL, INR, TRY, SEK).');
  const res = await fetch(`${f.gw.url}/probe/fiat/XYZ`);
  t.is(res.status, 400);
  t.like(await res.json(), { error_code: 'validation_error', details: { field: 'price_currency' } });
});

test.serial('over HTTP a fiat quote is served like a coin quote', async (t) => {
  const res = await fetch(`${f.gw.url}/probe/fiat/AUD`);
  t.is(res.status, 200);
  t.like(await res.json(), { source: 'coingecko', base: 'AUD', pair: 'AUD/USD', rate: '0.66209999779' });
});

test('start-up refuses fiat config that cannot be priced', async (t) => {
  for (const [config, message] of [
    [{ 'plugins.rates.fixedFiat': { SEK: '0.09' } }, /plugins\.rates\.fixedFiat\.SEK: SEK is not a priced currency/],
    [{ 'plugins.rates.fixedFiat': { USD: '1' } }, /plugins\.rates\.fixedFiat\.USD: USD is always 1/],
    [{ 'plugins.rates.fiat.currencies': ['TRX'] }, /plugins\.rates\.fiat\.currencies: TRX is the asset symbol of a coin/],
  ] as const) {
    await t.throwsAsync(startTestKernel({ plugins: [ratesPlugin], chains: CHAINS, role: 'gateway', config }), { message });
  }
});
