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
// held back, counted and alerted on, and accepted when a later fetch agrees or an operator
// releases it. One database shared by a gateway kernel (no scheduled refresh) and the CLI.
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
test.beforeEach(async () => {
  server.set('ok', 'ok');
  await db('rates_quotes').del();
  await db('rates_held').del();
});

const cli = cliRunner({ plugins: [ratesPlugin], chains: CHAINS, databaseUrl: () => database.url, overrides: () => standInConfig(server) });

/** A service of the kernel's database, metrics and audit log with CoinGecko only (or another config). */
function service(patch: Partial<RatesConfig> = { providers: ['coingecko'] }): RateService {
  const { db, audit, logger, ratesConfig, ratesCatalogue, ratesHeldCounter } = gw.kernel.cradle;
  return new RateService({ db, audit, logger, config: { ...ratesConfig, ...patch }, catalogue: ratesCatalogue, heldCounter: ratesHeldCounter });
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

test.serial('a coin rate that jumps beyond the share is held: counted, on the gauge, alerted; a later agreeing fetch confirms it', async (t) => {
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
    "              description: 'It moved more than plugins.rates.jump.share (jump.fiatShare for fiat) from the last accepted rate, so the last accepted one is used while it is fresh. Check the providers (`gateway rates show`); a later fetch that agrees accepts the move, or release it with `gateway rates release --asset BTC`.'",
  ]);

  // A later fetch within the share of the held rate: the move is real.
  server.set(coingeckoPrices({ bitcoin: '121000' }), 'ok');
  const confirmed = await rates.refresh();
  t.deepEqual(confirmed.providers[0]!.held, []);
  t.like(await rates.quote('btc'), { source: 'coingecko', rate: '121000' });
  t.deepEqual(await heldRows(), []);
  t.is(value(await metrics(), 'gateway_rates_held{asset="BTC"}'), undefined);
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

test.serial('held while the last accepted quote is too old: unavailable, until a second fetch agrees', async (t) => {
  const rates = service();
  await db('rates_quotes').insert({ asset: 'ADA', source: 'coingecko', rate: '0.5', fetched_at: new Date(Date.now() - 3_600_000) });
  const error = await t.throwsAsync(rates.quote('ada'));
  t.true(isRateUnavailable(error), 'the fetched 0.9876… moved 97.5 % from 0.5: held, and nothing fresh is accepted');
  t.deepEqual(
    (await heldRows()).map((h) => [h.asset, h.rate, h.accepted_rate]),
    [['ADA', '0.9876543210123', '0.5']],
  );
  // The next request fetches again; the answer agrees with the held rate.
  t.like(await rates.quote('ada'), { source: 'coingecko', rate: '0.9876543210123' });
  t.deepEqual(await heldRows(), []);
});

test.serial("another provider's agreeing answer confirms a held rate at once; fixed rates are never checked", async (t) => {
  const both = service({ providers: ['coingecko', 'kraken'] });
  await both.refresh();
  // Both providers report the same jump of TON (5.43 → 7): whichever is checked second confirms.
  const ticker = JSON.parse(fixture('kraken-ticker.json'));
  ticker.result.TONUSD.c = ['7.01000', '1'];
  server.set(coingeckoPrices({ 'the-open-network': '7' }), { status: 200, body: JSON.stringify(ticker) });
  await both.refresh();
  t.deepEqual(await heldRows(), []);
  t.like(await both.quote('ton'), { rate: '7' });

  const fixed = service({ providers: ['fixed'], fixed: { TON: '2' } });
  t.like(await fixed.quote('ton'), { source: 'fixed', rate: '2' });
  t.deepEqual(await heldRows(), []);
});
