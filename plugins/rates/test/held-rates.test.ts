import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test, { type ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { createTestDatabase, startTestKernel, type TestDatabase, type TestKernel } from '@gw/kernel/testing';
import { isRateUnavailable, ratesPlugin, RateService, type RatesConfig } from '@gw/plugin-rates';
import { cliRunner, ROOT } from '@gw/testing';
import { CHAINS, standInConfig } from './helpers.js';
import { fixture, freshTimestamps, ProviderServer } from './provider-server.js';

// The jump check: a fetched rate that moves more than the share from the last accepted one is
// held back, counted and alerted on, and accepted when another provider agrees, when its own
// provider has kept giving it for jump.confirmSeconds, or when an operator releases it. One database shared by a gateway kernel (no scheduled refresh) and the CLI.
let server: ProviderServer;
let database: TestDatabase;
let gw: TestKernel;
let db: Knex;
test.before(async () => {
  server = await ProviderServer.start();
  database = await createTestDatabase();
  gw = await startTestKernel({ plugins: [ratesPlugin], chains: CHAINS, role: 'gateway', database, config: standInConfig(server) });
  db = gw.kernel.cradle.db;
});
test.after.always(async () => {
  await gw?.close();
  await database?.drop();
  await server?.close();
});
/** When the running test began, by the database's clock: its audit entries are the later ones. */
let testStart: Date;
test.beforeEach(async () => {
  testStart = (await db.raw<{ rows: { now: Date }[] }>('select clock_timestamp() as now')).rows[0]!.now;
  server.set('ok', 'ok');
  await db('rates_quotes').del();
  await db('rates_held').del();
});

const cli = cliRunner({ plugins: [ratesPlugin], chains: CHAINS, databaseUrl: () => database.url, overrides: () => standInConfig(server) });

/** A service of the kernel's database, metrics and audit log with CoinGecko only (or another config), on the real clock or `now`. */
function service(patch: Partial<RatesConfig> = { providers: ['coingecko'] }, now?: () => Date): RateService {
  const { db, audit, logger, ratesConfig, ratesCatalogue, ratesHeldCounter } = gw.kernel.cradle;
  return new RateService({
    db,
    audit,
    logger,
    config: { ...ratesConfig, ...patch },
    catalogue: ratesCatalogue,
    heldCounter: ratesHeldCounter,
    ...(now ? { now } : {}),
  });
}

/** Kraken's recorded ticker with some last-trade prices replaced: `{ XXBTZUSD: '121500' }`. */
function krakenPrices(prices: Record<string, string>): { status: number; body: string } {
  const ticker = JSON.parse(fixture('kraken-ticker.json'));
  for (const [pair, price] of Object.entries(prices)) ticker.result[pair].c = [price, '1'];
  return { status: 200, body: JSON.stringify(ticker) };
}

/** The `rate.confirm` audit entries of an asset, oldest first. */
async function confirmations(asset: string): Promise<{ actor: string; channel: string; details: Record<string, unknown> }[]> {
  return db('kernel_audit_log')
    .where({ action: 'rate.confirm', target: `rate:${asset}` })
    .andWhere('created_at', '>=', testStart)
    .orderBy('created_at')
    .select('actor', 'channel', 'details');
}

/** CoinGecko's recorded prices (fresh timestamps) with some replaced: `{ bitcoin: '120000' }`. */
function coingeckoPrices(prices: Record<string, string>): { status: number; body: string } {
  let body = freshTimestamps(fixture('coingecko-simple-price.json'));
  for (const [id, price] of Object.entries(prices)) body = body.replace(new RegExp(`("${id}":\\{"usd":)[^,}]+`), `$1${price}`);
  return { status: 200, body };
}

/** CoinGecko's recorded exchange rates with some currencies per bitcoin replaced: `{ eur: '84000' }`. */
function coingeckoFiat(perBitcoin: Record<string, string>): { status: number; body: string } {
  let body = fixture('coingecko-exchange-rates.json');
  for (const [code, value] of Object.entries(perBitcoin)) body = body.replace(new RegExp(`("${code}":\\{[^}]*"value":)[^,}]+`), `$1${value}`);
  return { status: 200, body };
}

async function heldRows() {
  return (await db('rates_held').select('asset', 'source', db.raw('rate::text as rate'), db.raw('accepted_rate::text as accepted_rate')).orderBy('asset')) as {
    asset: string;
    source: string;
    rate: string;
    accepted_rate: string;
  }[];
}

async function metrics(): Promise<string> {
  return (await fetch(`${gw.url}/metrics`)).text();
}

function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const PROMTOOL = process.env['PROMTOOL'] ?? '/usr/bin/promtool';

/** Runs `promtool test rules` on the deployment's alert rules with one test group (its lines): it must pass. */
async function promtoolPasses(t: ExecutionContext, group: readonly string[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-rates-alert-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(join(ROOT, 'deploy/prometheus/alerts.yml'), join(dir, 'alerts.yml'));
  writeFileSync(join(dir, 'held.test.yml'), ['rule_files: [alerts.yml]', 'evaluation_interval: 1m', 'tests:', ...group, ''].join('\n'));
  const result = await promisify(execFile)(PROMTOOL, ['test', 'rules', join(dir, 'held.test.yml')]);
  t.regex(result.stdout, /SUCCESS/);
}

test.serial(
  'a coin rate that jumps beyond the share is held: counted, on the gauge, alerted; its provider repeating it keeps it held, another provider agreeing confirms it',
  async (t) => {
    const rates = service();
    await rates.refresh();
    t.like(await rates.quote('btc'), { source: 'coingecko', rate: '97123.45' });
    const heldBefore = value(await metrics(), 'gateway_rates_held_total{asset="BTC"}') ?? 0;

    // +23.55 %: beyond the default 0.1. ETH moves 5 % in the same answer: accepted.
    server.set(coingeckoPrices({ bitcoin: '120000', ethereum: '3407.9628' }), 'ok');
    const report = await rates.refresh();
    t.like(report.providers[0], { provider: 'coingecko', kind: 'crypto', ok: true, held: ['BTC'] });
    t.false(report.providers[0]!.assets.includes('BTC'));
    t.true(report.providers[0]!.assets.includes('ETH'));
    t.deepEqual(await heldRows(), [{ asset: 'BTC', source: 'coingecko', rate: '120000', accepted_rate: '97123.45' }]);
    t.like(await rates.quote('btc'), { source: 'coingecko', rate: '97123.45' }, 'the last accepted quote serves meanwhile');
    t.like(await rates.quote('eth'), { rate: '3407.9628' });
    const [view] = await rates.held();
    t.like(view, {
      asset: 'BTC',
      pair: 'BTC/USD',
      source: 'coingecko',
      rate: '120000',
      accepted_rate: '97123.45',
      accepted_source: 'coingecko',
      change_percent: '+23.55',
      share: '0.1',
    });

    const text = await metrics();
    t.is(value(text, 'gateway_rates_held{asset="BTC"}'), 1);
    t.is(value(text, 'gateway_rates_held_total{asset="BTC"}'), heldBefore + 1);
    t.is(value(text, 'gateway_rates_held{asset="ETH"}'), undefined);
    // The scraped gauge, fed to Prometheus's rule engine, fires RatesHeldBack at once.
    await promtoolPasses(t, [
      '  - interval: 1m',
      '    input_series:',
      `      - series: 'gateway_rates_held{asset="BTC",instance="worker"}'`,
      `        values: '0x3 ${value(text, 'gateway_rates_held{asset="BTC"}')}x5'`,
      '    alert_rule_test:',
      '      - eval_time: 2m',
      '        alertname: RatesHeldBack',
      '        exp_alerts: []',
      '      - eval_time: 5m',
      '        alertname: RatesHeldBack',
      '        exp_alerts:',
      '          - exp_labels: { severity: ticket, asset: BTC }',
      '            exp_annotations:',
      `              summary: 'A fetched BTC rate is held back'`,
      "              description: 'It moved more than plugins.rates.jump.share (jump.fiatShare for fiat) from the last accepted rate, so the last accepted one is used while it is fresh. Check the providers (`gateway rates show`); another provider agreeing, or its own giving it for plugins.rates.jump.confirmSeconds, accepts the move, or release it with `gateway rates release --asset BTC`.'",
    ]);

    // The same provider a minute later, within the share of its held rate: a provider can stay
    // wrong, so that proves nothing; still held (the newer rate), the accepted one still serves.
    server.set(coingeckoPrices({ bitcoin: '121000' }), 'ok');
    const repeated = await rates.refresh();
    t.deepEqual(repeated.providers[0]!.held, ['BTC']);
    t.deepEqual(await heldRows(), [{ asset: 'BTC', source: 'coingecko', rate: '121000', accepted_rate: '97123.45' }]);
    t.like(await rates.quote('btc'), { source: 'coingecko', rate: '97123.45' });
    t.deepEqual(await confirmations('BTC'), []);

    // Kraken agrees (within the share of the held rate): the move is real, both are accepted.
    const both = service({ providers: ['coingecko', 'kraken'] });
    server.set(coingeckoPrices({ bitcoin: '121000' }), krakenPrices({ XXBTZUSD: '121500.00000' }));
    const confirmed = await both.refresh();
    // The two answers are stored in either order: CoinGecko's may be held once more before Kraken's confirms.
    t.like(
      confirmed.providers.find((p) => p.provider === 'kraken' && p.kind === 'crypto'),
      { ok: true, held: [] },
    );
    t.like(await both.quote('btc'), { source: 'coingecko', rate: '121000' });
    t.true((await both.cached('BTC')).some((q) => q.source === 'kraken' && q.rate === '121500'));
    t.deepEqual(await heldRows(), []);
    t.is(value(await metrics(), 'gateway_rates_held{asset="BTC"}'), undefined);
    const [entry, ...more] = await confirmations('BTC');
    t.deepEqual(more, []);
    t.like(entry, {
      actor: 'rates-jump-check',
      channel: 'system',
      details: { source: 'coingecko', confirmed_by: 'kraken', how: 'provider', accepted_rate: '97123.45' },
    });
  },
);

test.serial('its own provider repeating a held rate has it accepted only after jump.confirmSeconds (a sustained move with one provider)', async (t) => {
  let clock = Date.now();
  // maxAgeSeconds above the clock's moves, so the recorded prices stay fresh (stale ones are not checked).
  const rates = service(
    { providers: ['coingecko'], maxAgeSeconds: 3_600, jump: { share: '0.1', fiatShare: '0.05', confirmSeconds: 300 } },
    () => new Date(clock),
  );
  await rates.refresh();
  server.set(coingeckoPrices({ bitcoin: '120000' }), 'ok');
  await rates.refresh();
  const heldAt = clock;
  t.like((await rates.held('BTC'))[0], { rate: '120000', source: 'coingecko', held_at: new Date(heldAt).toISOString() });

  // Repeated (within the share of the held rate) a minute at a time, up to 299 s after it was held.
  for (const [seconds, price] of [
    [60, '120500'],
    [180, '119800'],
    [299, '120100'],
  ] as const) {
    clock = heldAt + seconds * 1000;
    server.set(coingeckoPrices({ bitcoin: price }), 'ok');
    t.deepEqual((await rates.refresh()).providers[0]!.held, ['BTC'], `${seconds} s`);
    t.deepEqual(
      (await heldRows()).map((h) => h.rate),
      [price],
    );
    t.like(await rates.quote('btc'), { rate: '97123.45' });
  }
  t.deepEqual(await confirmations('BTC'), []);

  // 300 s after its provider first gave it: a sustained move, accepted.
  clock = heldAt + 300_000;
  server.set(coingeckoPrices({ bitcoin: '120200' }), 'ok');
  t.deepEqual((await rates.refresh()).providers[0]!.held, []);
  t.deepEqual(await heldRows(), []);
  t.like(await rates.quote('btc'), { source: 'coingecko', rate: '120200' });
  const [entry] = await confirmations('BTC');
  t.like(entry, { details: { source: 'coingecko', confirmed_by: 'coingecko', how: 'sustained', rate: '120100', accepted_rate: '97123.45' } });
});

test.serial('a jump elsewhere restarts the run: its provider must repeat the new rate for jump.confirmSeconds', async (t) => {
  let clock = Date.now();
  const rates = service({ providers: ['coingecko'], maxAgeSeconds: 3_600 }, () => new Date(clock));
  await rates.refresh();
  server.set(coingeckoPrices({ bitcoin: '120000' }), 'ok');
  await rates.refresh();
  clock += 400_000;
  // 150000 is beyond the share of the held 120000 and of the accepted rate: held anew.
  server.set(coingeckoPrices({ bitcoin: '150000' }), 'ok');
  await rates.refresh();
  clock += 300_000;
  // 700 s after the first jump, 300 s after the second: the default 600 s have not passed for this rate.
  await rates.refresh();
  t.deepEqual(
    (await heldRows()).map((h) => h.rate),
    ['150000'],
  );
  clock += 300_000;
  await rates.refresh();
  t.deepEqual(await heldRows(), []);
  t.like(await rates.quote('btc'), { rate: '150000' });
});

test.serial('fiat rates are held beyond jump.fiatShare (5 %), a move a coin would be allowed', async (t) => {
  const rates = service();
  t.like(await rates.fiatQuote('EUR'), { rate: '1.08150000058' });
  // EUR per bitcoin 84000: USD per euro 1.15623 (+6.91 %); GBP moves 3 %: accepted.
  server.set('ok', 'ok');
  server.setFiat(coingeckoFiat({ eur: '84000', gbp: '74049.5' }), 'ok');
  const report = await rates.refresh();
  t.like(
    report.providers.find((p) => p.kind === 'fiat'),
    { provider: 'coingecko', ok: true, held: ['EUR'] },
  );
  t.deepEqual(await heldRows(), [{ asset: 'EUR', source: 'coingecko', rate: '1.15623154762', accepted_rate: '1.08150000058' }]);
  t.like(await rates.fiatQuote('EUR'), { rate: '1.08150000058' });
  t.like(await rates.fiatQuote('GBP'), { rate: '1.31160169886' });
  t.like((await rates.held())[0], { asset: 'EUR', change_percent: '+6.91', share: '0.05' });
  // The same move of a coin stays within the coins' share.
  server.set(coingeckoPrices({ bitcoin: '103838' }), 'ok');
  await rates.refresh();
  t.like(await rates.quote('btc'), { rate: '103838' });
});

test.serial('the operator releases a held rate with the CLI: stored as its provider quote, audited, no longer held', async (t) => {
  const rates = service();
  await rates.fiatQuote('JPY');
  server.setFiat(coingeckoFiat({ jpy: '13000000' }), 'ok');
  await rates.refresh();
  t.deepEqual(
    (await heldRows()).map((h) => [h.asset, h.rate]),
    [['JPY', '0.00747103461538']],
  );

  const shown = await cli('rates', 'show', '--json');
  t.is(shown.code, 0);
  t.like(shown.json.held[0], { asset: 'JPY', pair: 'JPY/USD', rate: '0.00747103461538', accepted_rate: '0.00639304436773', share: '0.05' });
  t.regex((await cli('rates', 'show')).stdout, /held/);

  const released = await cli('rates', 'release', '--asset', 'JPY', '--json');
  t.is(released.code, 0, released.stdout);
  t.like(released.json.released, { asset: 'JPY', source: 'coingecko', rate: '0.00747103461538', change_percent: '+16.86' });
  t.true(released.json.quotes.some((q: any) => q.source === 'coingecko' && q.rate === '0.00747103461538' && q.selected));
  t.deepEqual(await heldRows(), []);
  t.like(await rates.fiatQuote('JPY'), { source: 'coingecko', rate: '0.00747103461538' });
  const audit = await db('kernel_audit_log').where({ action: 'rate.release' }).first();
  t.like(audit, { actor: 'operator-cli', channel: 'cli', target: 'rate:JPY' });
  t.like(audit.details, { source: 'coingecko', rate: '0.00747103461538', accepted_rate: '0.00639304436773' });

  const again = await cli('rates', 'release', '--asset', 'JPY', '--json');
  t.is(again.code, 1);
  t.like(again.json, { error_code: 'held_rate_not_found', message: 'No JPY rate is held back.' });
  const unknown = await cli('rates', 'release', '--asset', 'DOGE', '--json');
  t.is(unknown.code, 1);
  t.is(unknown.json.error_code, 'validation_error');
  const usage = await cli('rates', 'release', '--asset', 'eur', '--json');
  t.is(usage.code, 2);
  t.is(usage.json.error_code, 'usage');
});

test.serial('the provider that jumped and then agrees with the accepted rate again withdraws its held rate', async (t) => {
  const rates = service();
  await rates.refresh();
  server.set(coingeckoPrices({ tron: '0.5' }), 'ok');
  await rates.refresh();
  t.deepEqual(
    (await heldRows()).map((h) => h.asset),
    ['TRX'],
  );
  server.set('ok', 'ok');
  await rates.refresh();
  t.deepEqual(await heldRows(), []);
  t.like(await rates.quote('trx'), { rate: '0.2468' });
});

test.serial('held while the last accepted quote is too old: unavailable while only its provider repeats it, until another provider agrees', async (t) => {
  const rates = service();
  await db('rates_quotes').insert({ asset: 'ADA', source: 'coingecko', rate: '0.5', fetched_at: new Date(Date.now() - 3_600_000) });
  const error = await t.throwsAsync(rates.quote('ada'));
  t.true(isRateUnavailable(error), 'the fetched 0.9876… moved 97.5 % from 0.5: held, and nothing fresh is accepted');
  t.deepEqual(
    (await heldRows()).map((h) => [h.asset, h.rate, h.accepted_rate]),
    [['ADA', '0.9876543210123', '0.5']],
  );
  // The next request fetches again: the same provider's same answer keeps it held.
  t.true(isRateUnavailable(await t.throwsAsync(rates.quote('ada'))));
  t.is((await heldRows()).length, 1);
  // With Kraken next in the fallback order, the same request's second provider confirms it.
  const both = service({ providers: ['coingecko', 'kraken'] });
  t.like(await both.quote('ada'), { source: 'kraken', rate: '0.988' });
  t.deepEqual(await heldRows(), []);
  t.like(await both.quote('ada'), { source: 'coingecko', rate: '0.9876543210123' });
});

test.serial("another provider's agreeing answer confirms a held rate at once; fixed rates are never checked", async (t) => {
  const both = service({ providers: ['coingecko', 'kraken'] });
  await both.refresh();
  // Both providers report the same jump of TON (5.43 → 7): whichever is checked second confirms.
  server.set(coingeckoPrices({ 'the-open-network': '7' }), krakenPrices({ TONUSD: '7.01000' }));
  await both.refresh();
  t.deepEqual(await heldRows(), []);
  t.like(await both.quote('ton'), { rate: '7' });
  const [ton] = await confirmations('TON');
  t.like(ton, { details: { how: 'provider' } });
  t.deepEqual([ton!.details['source'], ton!.details['confirmed_by']].sort(), ['coingecko', 'kraken']);

  const fixed = service({ providers: ['fixed'], fixed: { TON: '2' } });
  t.like(await fixed.quote('ton'), { source: 'fixed', rate: '2' });
  t.deepEqual(await heldRows(), []);
});
