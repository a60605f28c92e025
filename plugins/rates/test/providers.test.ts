import test from 'ava';
import { Value } from 'typebox/value';
import { CoinGeckoProvider, FixedProvider, KrakenProvider, ProviderError, providersFromConfig, RatesConfigSchema, type RatesConfig } from '@gw/plugin-rates';
import { fixture, freshTimestamps, ProviderServer } from './provider-server.js';
import { ASSETS, assets } from './helpers.js';

// Pure provider tests: each provider against the local stand-in, no database.
let server: ProviderServer;
test.before(async () => {
  server = await ProviderServer.start();
});
test.after.always(async () => {
  await server?.close();
});
test.beforeEach(() => {
  server.set('ok', 'ok');
});

const NOW = new Date('2025-01-15T10:31:00.000Z'); // just after the recorded CoinGecko timestamps
const clock = () => NOW;
const coingecko = (extra: Partial<ConstructorParameters<typeof CoinGeckoProvider>[0]> = {}) =>
  new CoinGeckoProvider({ baseUrl: server.coingeckoUrl, timeoutMs: 1_000, apiKeyType: 'demo', ...extra }, clock);
const kraken = (extra: Partial<ConstructorParameters<typeof KrakenProvider>[0]> = {}) =>
  new KrakenProvider({ baseUrl: server.krakenUrl, timeoutMs: 1_000, ...extra }, clock);

test.serial('CoinGecko: every asset parsed to an exact decimal string with the provider time', async (t) => {
  server.set('recorded-timestamps', 'ok');
  const rates = await coingecko().fetch(ASSETS);
  t.deepEqual(Object.fromEntries([...rates].map(([asset, r]) => [asset, r.rate])), {
    BTC: '97123.45',
    ETH: '3245.6789',
    USDT: '0.999738',
    USDC: '1',
    TRX: '0.2468',
    ADA: '0.9876543210123',
    POL: '0.4567891234',
    BNB: '712.3456789012',
    TON: '5.4321',
  });
  t.is(rates.get('BTC')!.at.toISOString(), new Date(1736937012 * 1000).toISOString());
  const request = server.requests.at(-1)!;
  t.is(request.query.get('ids'), 'bitcoin,ethereum,tether,usd-coin,tron,cardano,polygon-ecosystem-token,binancecoin,the-open-network');
  t.is(request.query.get('vs_currencies'), 'usd');
  t.is(request.query.get('include_last_updated_at'), 'true');
  t.is(request.headers['x-cg-demo-api-key'], undefined);
});

test.serial('CoinGecko: a timestamp ahead of our clock is clamped to now', async (t) => {
  server.set('ok', 'ok'); // rewritten to the real current time, far ahead of the injected 2025 clock
  const rates = await coingecko().fetch(assets('BTC'));
  t.is(rates.get('BTC')!.at.getTime(), NOW.getTime());
});

test.serial('CoinGecko: exponent literals are expanded without rounding', async (t) => {
  server.set({ status: 200, body: fixture('coingecko-exponent.json') }, 'ok');
  const rates = await coingecko().fetch(assets('BTC', 'TRX', 'USDT', 'TON'));
  t.is(rates.get('BTC')!.rate, '97123.45');
  t.is(rates.get('TRX')!.rate, '0.2468');
  t.is(rates.get('USDT')!.rate, '0.999738');
  t.false(rates.has('TON'));
});

test.serial('CoinGecko: the API key goes in the demo or pro header', async (t) => {
  await coingecko({ apiKey: 'CG-demo-key' }).fetch(assets('BTC'));
  t.is(server.requests.at(-1)!.headers['x-cg-demo-api-key'], 'CG-demo-key');
  await coingecko({ apiKey: 'CG-pro-key', apiKeyType: 'pro' }).fetch(assets('BTC'));
  t.is(server.requests.at(-1)!.headers['x-cg-pro-api-key'], 'CG-pro-key');
  t.is(server.requests.at(-1)!.headers['x-cg-demo-api-key'], undefined);
});

test.serial('CoinGecko: rate limiting, an empty answer and unusable prices are provider failures', async (t) => {
  server.set({ status: 429, body: fixture('coingecko-rate-limited.json') }, 'ok');
  const limited = await t.throwsAsync(coingecko().fetch(ASSETS), { instanceOf: ProviderError });
  t.regex(limited.message, /^coingecko: HTTP 429/);
  server.set({ status: 200, body: '{}' }, 'ok');
  await t.throwsAsync(coingecko().fetch(ASSETS), { instanceOf: ProviderError, message: /no USD price/ });
  server.set(
    { status: 200, body: freshTimestamps('{"bitcoin":{"usd":"97000","last_updated_at":1},"tron":{"usd":0,"last_updated_at":1},"tether":{"usd":-1}}') },
    'ok',
  );
  await t.throwsAsync(coingecko().fetch(assets('BTC', 'TRX', 'USDT')), { instanceOf: ProviderError, message: /no USD price/ });
  server.set({ status: 200, body: '[1,2,3]' }, 'ok');
  await t.throwsAsync(coingecko().fetch(assets('BTC')), { instanceOf: ProviderError, message: /not a JSON object/ });
});

test.serial('Kraken: legacy and plain pair keys, last trade price, fetch time', async (t) => {
  const rates = await kraken().fetch(ASSETS);
  t.deepEqual(Object.fromEntries([...rates].map(([asset, r]) => [asset, r.rate])), {
    BTC: '97110.1',
    ETH: '3245.8',
    USDT: '0.99975',
    USDC: '0.99995',
    TRX: '0.24675',
    ADA: '0.988',
    POL: '0.4568',
    TON: '5.432',
  });
  t.false(rates.has('BNB'), 'Kraken has no BNB/USD pair by default');
  t.is(rates.get('ETH')!.at, NOW);
  t.is(server.requests.at(-1)!.query.get('pair'), 'XBTUSD,ETHUSD,USDTUSD,USDCUSD,TRXUSD,ADAUSD,POLUSD,TONUSD');
});

test.serial('Kraken: a configured pair is requested and read under its own key', async (t) => {
  const body = JSON.parse(fixture('kraken-ticker.json'));
  body.result.BNBUSD = { a: ['712.50', '1', '1.000'], b: ['712.40', '1', '1.000'], c: ['712.45000', '0.1'], o: '700.00' };
  server.set('ok', { status: 200, body: JSON.stringify(body) });
  const rates = await kraken({ pairs: { BNB: 'BNBUSD' } }).fetch(assets('BTC', 'BNB'));
  t.is(server.requests.at(-1)!.query.get('pair'), 'XBTUSD,BNBUSD');
  t.is(rates.get('BNB')!.rate, '712.45');
  t.is(rates.get('BTC')!.rate, '97110.1');
  const none = new Map();
  t.deepEqual(await kraken().fetch(assets('BNB')), none, 'no request for assets without a pair');
});

test.serial('Kraken: an error envelope or a malformed ticker is a provider failure', async (t) => {
  server.set('ok', { status: 200, body: fixture('kraken-unknown-pair.json') });
  await t.throwsAsync(kraken().fetch(ASSETS), { instanceOf: ProviderError, message: 'kraken: API error: EQuery:Unknown asset pair' });
  server.set('ok', { status: 200, body: '{"error":[],"result":{"XXBTZUSD":{"c":[97110.1,"1"]}}}' });
  await t.throwsAsync(kraken().fetch(assets('BTC')), { instanceOf: ProviderError, message: /no last-trade price/ });
  server.set('ok', { status: 200, body: '{"result":{}}' });
  await t.throwsAsync(kraken().fetch(assets('BTC')), { instanceOf: ProviderError, message: /not a Kraken API envelope/ });
});

test.serial('HTTP 500, a non-JSON body and a silent server are provider failures', async (t) => {
  server.set('error500', 'malformed');
  await t.throwsAsync(coingecko().fetch(assets('BTC')), { instanceOf: ProviderError, message: /^coingecko: HTTP 500/ });
  await t.throwsAsync(kraken().fetch(assets('BTC')), { instanceOf: ProviderError, message: /^kraken: malformed JSON/ });
  server.set('hang', 'hang');
  await t.throwsAsync(coingecko({ timeoutMs: 300 }).fetch(assets('BTC')), { instanceOf: ProviderError, message: /no answer from .* within 300 ms/ });
  await t.throwsAsync(kraken({ timeoutMs: 300 }).fetch(assets('BTC')), { instanceOf: ProviderError, message: /no answer from .* within 300 ms/ });
});

test.serial('an unreachable provider is a provider failure', async (t) => {
  const closed = await ProviderServer.start();
  const url = closed.coingeckoUrl;
  await closed.close();
  await t.throwsAsync(new CoinGeckoProvider({ baseUrl: url, timeoutMs: 1_000, apiKeyType: 'demo' }).fetch(assets('BTC')), {
    instanceOf: ProviderError,
    message: /request to .* failed: ECONNREFUSED/,
  });
});

test.serial('CoinGecko fiat: USD per unit from the BTC-relative exchange rates, 12 significant digits, fetch time', async (t) => {
  const rates = await coingecko({ apiKey: 'CG-demo-key' }).fetchFiat(['EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD', 'BRL', 'INR', 'TRY', 'SEK', 'XAU', 'NOK']);
  const request = server.requests.at(-1)!;
  t.like(request, { provider: 'coingecko', endpoint: 'fiat' });
  t.is(request.headers['x-cg-demo-api-key'], 'CG-demo-key');
  // usd.value / <code>.value: 97123.45 / 89804.392 and so on, exactly, rounded once.
  t.deepEqual(Object.fromEntries([...rates].map(([code, r]) => [code, r.rate])), {
    EUR: '1.08150000058',
    GBP: '1.27340000816',
    JPY: '0.00639304436773',
    CHF: '1.10963160408',
    CAD: '0.732869180224',
    AUD: '0.66209999779',
    BRL: '0.183700000003',
    INR: '0.0119750000004',
    TRY: '0.0290299999995',
    SEK: '0.0947099999635',
    XAU: '2636.21546062',
  });
  t.false(rates.has('NOK'), 'a currency the answer does not list is absent');
  t.is(rates.get('EUR')!.at, NOW);
  t.deepEqual(await coingecko().fetchFiat([]), new Map(), 'nothing asked, no request');
});

test.serial('CoinGecko fiat: no rates object, no usable USD or no asked currency is a provider failure', async (t) => {
  server.setFiat({ status: 200, body: '{"error":"coin not found"}' }, 'ok');
  await t.throwsAsync(coingecko().fetchFiat(['EUR']), { instanceOf: ProviderError, message: 'coingecko: answer has no "rates" object' });
  server.setFiat({ status: 200, body: '{"rates":{"eur":{"value":89804.392,"type":"fiat"},"usd":{"value":"97123.45","type":"fiat"}}}' }, 'ok');
  await t.throwsAsync(coingecko().fetchFiat(['EUR']), { instanceOf: ProviderError, message: 'coingecko: answer has no usable "usd" rate' });
  server.setFiat({ status: 200, body: '{"rates":{"usd":{"value":97123.45},"eur":{"value":0},"gbp":{"value":-2}}}' }, 'ok');
  await t.throwsAsync(coingecko().fetchFiat(['EUR', 'GBP']), { instanceOf: ProviderError, message: 'coingecko: answer holds no rate for EUR, GBP' });
  server.setFiat({ status: 429, body: fixture('coingecko-rate-limited.json') }, 'ok');
  await t.throwsAsync(coingecko().fetchFiat(['EUR']), { instanceOf: ProviderError, message: /^coingecko: HTTP 429/ });
});

test.serial('Kraken fiat: its forex pairs in a request of their own, dollar-based pairs inverted', async (t) => {
  const rates = await kraken().fetchFiat(['EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD', 'BRL', 'INR', 'TRY']);
  const request = server.requests.at(-1)!;
  t.like(request, { provider: 'kraken', endpoint: 'fiat' });
  t.is(request.query.get('pair'), 'EURUSD,GBPUSD,USDJPY,USDCHF,USDCAD,AUDUSD');
  t.deepEqual(Object.fromEntries([...rates].map(([code, r]) => [code, r.rate])), {
    EUR: '1.0815',
    GBP: '1.2734',
    // 1 / 156.420, 1 / 0.90120, 1 / 1.36450
    JPY: '0.00639304436773',
    CHF: '1.10963160231',
    CAD: '0.732869182851',
    AUD: '0.6621',
  });
  t.is(rates.get('JPY')!.at, NOW);
  const before = server.requests.length;
  t.deepEqual(await kraken().fetchFiat(['BRL', 'INR']), new Map(), 'no Kraken pair: not asked');
  t.is(server.requests.length, before);
  server.setFiat('ok', { status: 200, body: fixture('kraken-unknown-pair.json') });
  await t.throwsAsync(kraken().fetchFiat(['EUR']), { instanceOf: ProviderError, message: 'kraken: API error: EQuery:Unknown asset pair' });
  server.setFiat('ok', { status: 200, body: '{"error":[],"result":{"ZUSDZJPY":{"c":["0","1"]}}}' });
  await t.throwsAsync(kraken().fetchFiat(['JPY']), { instanceOf: ProviderError, message: 'kraken: answer holds no last-trade price for USDJPY' });
});

test('fixed: fiat rates from fixedFiat, apart from the coin rates', async (t) => {
  const fixed = new FixedProvider({}, clock, { EUR: '1.0800', JPY: '0.0064' });
  t.true(fixed.configured, 'fiat rates alone make it configured');
  t.deepEqual(await fixed.fetch(ASSETS), new Map());
  t.deepEqual(Object.fromEntries([...(await fixed.fetchFiat(['EUR', 'GBP', 'JPY']))].map(([code, r]) => [code, r])), {
    EUR: { rate: '1.08', at: NOW },
    JPY: { rate: '0.0064', at: NOW },
  });
});

test('fixed: configured assets only, stamped with the time asked', async (t) => {
  const fixed = new FixedProvider({ BTC: '65000.00', USDT: '1' }, clock);
  const rates = await fixed.fetch(ASSETS);
  t.deepEqual([...rates.keys()], ['BTC', 'USDT']);
  t.deepEqual(rates.get('BTC'), { rate: '65000', at: NOW });
  t.true(fixed.configured);
  t.false(new FixedProvider({}).configured);
});

function config(patch: Record<string, unknown>): RatesConfig {
  return Value.Default(RatesConfigSchema, structuredClone(patch)) as RatesConfig;
}

test('provider order: as configured, fixed appended last when it has rates and is not listed', (t) => {
  t.deepEqual(
    providersFromConfig(config({})).map((p) => p.id),
    ['coingecko', 'kraken'],
  );
  t.deepEqual(
    providersFromConfig(config({ fixed: { BTC: '65000' } })).map((p) => p.id),
    ['coingecko', 'kraken', 'fixed'],
  );
  t.deepEqual(
    providersFromConfig(config({ providers: ['fixed', 'kraken'], fixed: { BTC: '65000' } })).map((p) => p.id),
    ['fixed', 'kraken'],
  );
  t.deepEqual(
    providersFromConfig(config({ providers: ['kraken'] })).map((p) => p.id),
    ['kraken'],
  );
  t.deepEqual(
    providersFromConfig(config({ fixedFiat: { EUR: '1.08' } })).map((p) => p.id),
    ['coingecko', 'kraken', 'fixed'],
    'fiat rates alone append fixed too',
  );
});
