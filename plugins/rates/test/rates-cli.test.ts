import test from 'ava';
import { createTestDatabase, type TestDatabase } from '@gw/kernel/testing';
import { ratesPlugin } from '@gw/plugin-rates';
// The operator CLI itself (not a package dependency: the CLI app depends on this plugin).
import { cliRunner } from '@gw/testing';
import { CHAINS, standInConfig } from './helpers.js';
import { ProviderServer } from './provider-server.js';

let server: ProviderServer;
let database: TestDatabase;
test.before(async () => {
  server = await ProviderServer.start();
  database = await createTestDatabase();
});
test.after.always(async () => {
  await database?.drop();
  await server?.close();
});

const cli = cliRunner({ plugins: [ratesPlugin], chains: CHAINS, databaseUrl: () => database.url, overrides: () => standInConfig(server) });

test.serial('rates show on an empty cache, rates refresh, then rates show per coin', async (t) => {
  const empty = await cli('rates', 'show', '--json');
  t.is(empty.code, 0);
  t.deepEqual(empty.json, { providers: ['coingecko', 'kraken'], max_age_seconds: 600, quotes: [], held: [] });

  server.set('ok', 'error500');
  const refreshed = await cli('rates', 'refresh', '--json');
  t.is(refreshed.code, 0);
  t.like(refreshed.json.providers[0], { provider: 'coingecko', ok: true });
  t.is(refreshed.json.providers[0].assets.length, 9);
  t.like(refreshed.json.providers[1], { provider: 'kraken', ok: false, assets: [] });
  t.regex(refreshed.json.providers[1].error, /^kraken: HTTP 500/);
  t.like(refreshed.json.providers[2], { provider: 'coingecko', kind: 'fiat', ok: true });
  t.like(refreshed.json.providers[3], { provider: 'kraken', kind: 'fiat', ok: false });
  t.is(refreshed.json.quotes.length, 9 + 9, 'nine coin assets, nine fiat currencies');
  t.deepEqual(refreshed.json.held, []);

  server.set('ok', 'ok');
  t.is((await cli('rates', 'refresh', '--json')).code, 0);
  const usdt = await cli('rates', 'show', '--coin', 'usdt_trc20', '--json');
  t.is(usdt.code, 0);
  t.is(usdt.json.coin, 'usdt_trc20');
  t.is(usdt.json.asset, 'USDT');
  t.deepEqual(
    usdt.json.quotes.map((q: any) => [q.source, q.pair, q.rate, q.usable, q.selected]),
    [
      ['coingecko', 'USDT/USD', '0.999738', true, true],
      ['kraken', 'USDT/USD', '0.99975', true, false],
    ],
  );
  t.true(usdt.json.quotes.every((q: any) => Number.isInteger(q.age_seconds) && !Number.isNaN(Date.parse(q.fetched_at))));

  const all = await cli('rates', 'show', '--json');
  t.deepEqual(
    all.json.quotes.filter((q: any) => q.asset === 'EUR').map((q: any) => [q.source, q.pair, q.rate, q.selected]),
    [
      ['coingecko', 'EUR/USD', '1.08150000058', true],
      ['kraken', 'EUR/USD', '1.0815', false],
    ],
  );

  const human = await cli('rates', 'show', '--coin', 'btc');
  t.is(human.code, 0);
  t.regex(human.stdout, /pair: BTC\/USD/);
  t.regex(human.stdout, /rate: 97123\.45/);
});

test.serial('rates show refuses an unknown coin as a usage error', async (t) => {
  const bad = await cli('rates', 'show', '--coin', 'doge', '--json');
  t.is(bad.code, 2);
  t.is(bad.json.error_code, 'usage');
});
