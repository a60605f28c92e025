import test from 'ava';
import { pino } from 'pino';
import { coreErrors, type AppError } from '@gw/kernel';
import { isRateUnavailable, RateService } from '@gw/plugin-rates';
import { rateServiceFixture } from './helpers.js';

const f = rateServiceFixture(test);
async function storeRow(asset: string, source: string, rate: string, secondsAgo: number) {
  await f.db('rates_quotes').insert({ asset, source, rate, fetched_at: new Date(Date.now() - secondsAgo * 1000) });
}
async function rows() {
  return (await f.db('rates_quotes').select('asset', 'source', f.db.raw('rate::text as rate')).orderBy(['source', 'asset'])) as {
    asset: string;
    source: string;
    rate: string;
  }[];
}

test.serial('cold cache: the first provider answers, every asset is stored, later quotes come from the cache', async (t) => {
  const before = f.server.count('coingecko');
  const quote = await f.rates().quote('btc');
  t.like(quote, { source: 'coingecko', base: 'BTC', quote: 'USD', pair: 'BTC/USD', rate: '97123.45' });
  t.true(quote.fetchedAt instanceof Date);
  t.is(f.server.count('coingecko'), before + 1);
  t.deepEqual(
    (await rows()).map((r) => `${r.source}:${r.asset}=${r.rate}`),
    ['ADA', 'BNB', 'BTC', 'ETH', 'POL', 'TON', 'TRX', 'USDC', 'USDT'].map(
      (a) =>
        `coingecko:${a}=${{ ADA: '0.9876543210123', BNB: '712.3456789012', BTC: '97123.45', ETH: '3245.6789', POL: '0.4567891234', TON: '5.4321', TRX: '0.2468', USDC: '1', USDT: '0.999738' }[a]}`,
    ),
  );
  // USDT on TRON and on TON are the same asset, priced from the cache without another request.
  t.like(await f.rates().quote('usdt_trc20'), { source: 'coingecko', base: 'USDT', pair: 'USDT/USD', rate: '0.999738' });
  t.like(await f.rates().quote('usdt_ton'), { base: 'USDT', rate: '0.999738' });
  t.like(await f.rates().quote('pol'), { base: 'POL', rate: '0.4567891234' });
  t.is(f.server.count('coingecko'), before + 1);
  t.is(f.server.count('kraken'), 0);
});

test.serial('concurrent callers on a cold cache share one provider request', async (t) => {
  const before = f.server.count('coingecko');
  const quotes = await Promise.all(
    ['eth', 'eth', 'eth', 'btc', 'usdt_erc20', 'usdc_bep20', 'ton', 'eth', 'ada', 'trx'].map((c) => f.rates().quote(c as 'eth')),
  );
  t.is(quotes[0]!.rate, '3245.6789');
  t.true(quotes.every((q) => q.source === 'coingecko'));
  t.is(f.server.count('coingecko'), before + 1);
});

for (const [failure, label] of [
  ['error500', 'answers HTTP 500'],
  ['hang', 'does not answer within its timeout'],
  ['malformed', 'answers something that is not JSON'],
  ['recorded-timestamps', 'answers with prices older than maxAgeSeconds by its own clock'],
] as const) {
  test.serial(`falls back to Kraken when CoinGecko ${label}`, async (t) => {
    f.server.set(failure, 'ok');
    const quote = await f.rates().quote('btc');
    t.like(quote, { source: 'kraken', pair: 'BTC/USD', rate: '97110.1' });
    t.like(await f.rates().quote('usdc_polygon'), { source: 'kraken', rate: '0.99995' });
  });
}

test.serial('BNB has no Kraken pair: with CoinGecko down it is unavailable while BTC falls back', async (t) => {
  f.server.set('error500', 'ok');
  t.like(await f.rates().quote('btc'), { source: 'kraken' });
  t.like(await f.rates().quote('usdt_bep20'), { source: 'kraken', base: 'USDT' });
  const error = await t.throwsAsync(f.rates().quote('bnb'));
  t.true(isRateUnavailable(error));
  t.like(error as AppError, { details: { reason: 'rate_unavailable', asset: 'BNB' } });
});

test.serial('cold start with no provider reachable: rate unavailable, 500 internal_error with Retry-After', async (t) => {
  f.server.set('error500', 'malformed');
  const error = (await t.throwsAsync(f.rates().quote('btc'))) as AppError;
  t.true(isRateUnavailable(error));
  t.is(error.code, 'internal_error');
  t.is(error.status, 500);
  t.is(error.message, 'No USD rate for BTC: no provider reachable and no cached quote newer than 600 s.');
  t.deepEqual(error.details, { reason: 'rate_unavailable', asset: 'BTC' });
  t.true((error.retryAfter ?? 0) > 0);

  const res = await fetch(`${f.gw.url}/probe/rates/eth`);
  t.is(res.status, 500);
  t.is(res.headers.get('retry-after'), String(error.retryAfter));
  t.like(await res.json(), { error_code: 'internal_error', details: { reason: 'rate_unavailable', asset: 'ETH' } });

  t.false(isRateUnavailable(coreErrors.internal_error()));
  t.false(isRateUnavailable(new Error('rate_unavailable')));
  t.false(isRateUnavailable(undefined));
});

test.serial('over HTTP a quote is served once a provider is back', async (t) => {
  const res = await fetch(`${f.gw.url}/probe/rates/ada`);
  t.is(res.status, 200);
  t.like(await res.json(), { source: 'coingecko', base: 'ADA', pair: 'ADA/USD', rate: '0.9876543210123' });
});

test.serial('a cached quote older than maxAgeSeconds is not used', async (t) => {
  f.server.set('error500', 'error500');
  await storeRow('BTC', 'coingecko', '50000', 3_600);
  const error = await t.throwsAsync(f.rates().quote('btc'));
  t.true(isRateUnavailable(error));
  // A fresh row of the next provider is used instead of the stale row of the preferred one.
  await storeRow('BTC', 'kraken', '51000.5', 30);
  t.like(await f.rates().quote('btc'), { source: 'kraken', rate: '51000.5' });
  // Within maxAgeSeconds the preferred provider's row is used, without any request.
  const before = f.server.requests.length;
  await f
    .db('rates_quotes')
    .where({ asset: 'BTC', source: 'coingecko' })
    .update({ fetched_at: new Date(Date.now() - 300_000) });
  t.like(await f.rates().quote('btc'), { source: 'coingecko', rate: '50000' });
  t.is(f.server.requests.length, before);
});

test.serial('cached quotes follow the provider order, not the most recent row', async (t) => {
  await storeRow('ETH', 'coingecko', '3000', 400);
  await storeRow('ETH', 'kraken', '3100', 5);
  t.like(await f.rates().quote('eth'), { source: 'coingecko', rate: '3000' });
  t.like(await f.serviceWith({ providers: ['kraken', 'coingecko'] }).quote('eth'), { source: 'kraken', rate: '3100' });
  // Rows of a provider that is not configured are ignored.
  await storeRow('TON', 'fixed', '4', 5);
  f.server.set('error500', 'error500');
  t.true(isRateUnavailable(await t.throwsAsync(f.rates().quote('ton'))));
});

test.serial('a stale provider answer stored by a slower instance never overwrites a newer row', async (t) => {
  await storeRow('BTC', 'coingecko', '99999', 1);
  f.server.set('recorded-timestamps', 'ok');
  await f.rates().refresh();
  t.like(
    (await rows()).find((r) => r.asset === 'BTC' && r.source === 'coingecko'),
    { rate: '99999' },
  );
});

test.serial('fixed rates: listed first they are used without any request', async (t) => {
  const before = f.server.requests.length;
  const service = f.serviceWith({ providers: ['fixed', 'coingecko'], fixed: { BTC: '65000.00', USDT: '1' } });
  t.deepEqual(
    service.providers.map((p) => p.id),
    ['fixed', 'coingecko'],
  );
  t.like(await service.quote('btc'), { source: 'fixed', base: 'BTC', pair: 'BTC/USD', rate: '65000' });
  t.like(await service.quote('usdt_polygon'), { source: 'fixed', rate: '1' });
  t.is(f.server.requests.length, before);
});

test.serial('fixed rates: appended last, they serve amount_usd pricing offline but never beat a live provider', async (t) => {
  const service = f.serviceWith({ fixed: { BTC: '65000', TRX: '0.25' } });
  t.deepEqual(
    service.providers.map((p) => p.id),
    ['coingecko', 'kraken', 'fixed'],
  );
  t.like(await service.quote('btc'), { source: 'coingecko', rate: '97123.45' });

  await f.db('rates_quotes').del();
  f.server.set('error500', 'hang');
  t.like(await service.quote('btc'), { source: 'fixed', rate: '65000' });
  t.like(await service.quote('trx'), { source: 'fixed', rate: '0.25' });
  t.true(isRateUnavailable(await t.throwsAsync(service.quote('ton'))));
});

test.serial('a provider that just failed is skipped on the request path during the cooldown', async (t) => {
  const service = f.serviceWith({ failureCooldownSeconds: 600 });
  f.server.set('error500', 'ok');
  const before = f.server.count('coingecko', 'prices');
  t.like(await service.quote('btc'), { source: 'kraken' });
  t.is(f.server.count('coingecko', 'prices'), before + 1);
  await f.db('rates_quotes').del();
  f.server.set('ok', 'ok');
  t.like(await service.quote('btc'), { source: 'kraken' });
  t.is(f.server.count('coingecko', 'prices'), before + 1, 'not asked again during the cooldown');
  // The refresh job always tries, and a success ends the cooldown.
  await service.refresh();
  t.is(f.server.count('coingecko', 'prices'), before + 2);
  await f.db('rates_quotes').del();
  t.like(await service.quote('eth'), { source: 'coingecko' });
  t.is(f.server.count('coingecko', 'prices'), before + 3);
});

test.serial('the in-process memo answers repeated quotes without reading the cache', async (t) => {
  const service = f.serviceWith({ memoSeconds: 60 });
  t.like(await service.quote('ada'), { source: 'coingecko', rate: '0.9876543210123' });
  await f.db('rates_quotes').del();
  f.server.set('error500', 'error500');
  t.like(await service.quote('ada'), { source: 'coingecko', rate: '0.9876543210123' });
});

test.serial('refresh fetches every asset from every provider and reports failures', async (t) => {
  const report = await f.rates().refresh();
  t.deepEqual(report.providers, [
    { provider: 'coingecko', kind: 'crypto', ok: true, assets: ['BTC', 'ETH', 'USDT', 'USDC', 'TRX', 'ADA', 'POL', 'BNB', 'TON'], held: [] },
    { provider: 'kraken', kind: 'crypto', ok: true, assets: ['BTC', 'ETH', 'USDT', 'USDC', 'TRX', 'ADA', 'POL', 'TON'], held: [] },
    { provider: 'coingecko', kind: 'fiat', ok: true, assets: ['EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD', 'BRL', 'INR', 'TRY'], held: [] },
    { provider: 'kraken', kind: 'fiat', ok: true, assets: ['EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD'], held: [] },
  ]);
  t.is((await rows()).length, 17 + 15);

  f.server.set('hang', { status: 200, body: '{"error":["EService:Unavailable"]}' });
  const failed = await f.serviceWith({}).refresh();
  t.like(failed.providers[0], { provider: 'coingecko', ok: false, assets: [] });
  t.regex(failed.providers[0]!.error!, /no answer/);
  t.like(failed.providers[1], { provider: 'kraken', ok: false, error: 'kraken: API error: EService:Unavailable' });
  t.like(failed.providers[2], { provider: 'coingecko', kind: 'fiat', ok: false, assets: [] });
  t.like(failed.providers[3], { provider: 'kraken', kind: 'fiat', ok: false, error: 'kraken: API error: EService:Unavailable' });
});

test.serial('an unknown coin is invalid_coin', async (t) => {
  const error = (await t.throwsAsync(f.rates().quote('doge' as 'btc'))) as AppError;
  t.is(error.code, 'invalid_coin');
  t.is(error.status, 400);
});

test.serial('fetch outcomes are counted on /metrics', async (t) => {
  f.server.set('error500', 'ok');
  await f.rates().quote('btc');
  const text = await (await fetch(`${f.gw.url}/metrics`)).text();
  t.regex(text, /gateway_rates_provider_fetches_total\{provider="coingecko",outcome="error"\} [1-9]/);
  t.regex(text, /gateway_rates_provider_fetches_total\{provider="kraken",outcome="ok"\} [1-9]/);
});

test.serial('a provider that keeps failing is logged once, then counted, then one recovery line; never a stack per attempt', async (t) => {
  const lines: any[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const { db: database, ratesConfig, ratesCatalogue } = f.gw.kernel.cradle;
  const service = new RateService({ db: database, logger, config: { ...ratesConfig, failureCooldownSeconds: 0 }, catalogue: ratesCatalogue });
  f.server.set('error500', 'error500');
  for (let i = 0; i < 12; i++) await service.refresh();
  // Coin prices and fiat rates are separate requests, each with its own streak.
  const coingecko = () => lines.filter((l) => l.provider === 'coingecko' && l.kind === 'crypto');
  // Twelve failed refreshes: the first failure with its error, the tenth as a count without a stack.
  t.deepEqual(
    coingecko().map((l) => [l.msg.replace(/ \(.*\)$/, ''), l.failures]),
    [
      ['rate provider failed', 1],
      ['rate provider still failing', 10],
    ],
  );
  t.truthy(coingecko()[0].err?.stack);
  t.is(coingecko()[1].err, undefined);
  t.is(JSON.stringify(lines).match(/"stack"/g)?.length, 4, 'one stack per provider and kind, not one per attempt');
  f.server.set('ok', 'ok');
  await service.refresh();
  await service.refresh();
  t.deepEqual(
    coingecko()
      .slice(2)
      .map((l) => [l.msg, l.failures]),
    [['rate provider recovered after 12 failures', 12]],
  );
});
