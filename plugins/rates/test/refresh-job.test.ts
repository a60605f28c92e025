import test from 'ava';
import { pino } from 'pino';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { buildDeclared } from '@gw/kernel';
import { ratesPlugin, REFRESH_JOB } from '@gw/plugin-rates';
import { CHAINS, standInConfig } from './helpers.js';
import { ProviderServer } from './provider-server.js';

let server: ProviderServer;
let gw: TestKernel;
test.before(async () => {
  server = await ProviderServer.start();
  gw = await startTestKernel({
    plugins: [ratesPlugin],
    chains: CHAINS,
    role: 'worker',
    config: { ...standInConfig(server), 'plugins.rates.refreshCron': '*/5 * * * *' },
  });
});
test.after.always(async () => {
  await gw?.close();
  await server?.close();
});

test.serial('rates.refresh is a queue with the configured cron schedule', async (t) => {
  const { db, kernelConfig } = gw.kernel.cradle;
  const schema = kernelConfig.jobs.schema;
  t.truthy(await db(`${schema}.queue`).where({ name: REFRESH_JOB }).first());
  t.like(await db(`${schema}.schedule`).where({ name: REFRESH_JOB }).first(), { cron: '*/5 * * * *' });
});

test.serial('the rates.refresh handler refreshes every provider into the shared cache', async (t) => {
  const { db } = gw.kernel.cradle;
  await db('rates_quotes').del();
  const job = buildDeclared(ratesPlugin.jobs!, gw.kernel.cradle, 'rates jobs').find((j) => j.name === REFRESH_JOB)!;
  const before = { coingecko: server.count('coingecko'), kraken: server.count('kraken') };
  await job.handler!([{ id: 'test', name: REFRESH_JOB, data: {} }] as never);
  // Coin prices and fiat rates: one request of each per provider.
  t.is(server.count('coingecko'), before.coingecko + 2);
  t.is(server.count('kraken'), before.kraken + 2);
  const stored = (await db('rates_quotes').select('source', db.raw('count(*)::int as n')).groupBy('source').orderBy('source')) as {
    source: string;
    n: number;
  }[];
  t.deepEqual(
    stored.map((r) => [r.source, r.n]),
    [
      ['coingecko', 9 + 9],
      ['kraken', 8 + 6],
    ],
  );

  // Provider failures are reported in the log, not thrown (the next slot retries).
  server.set('error500', 'error500');
  await t.notThrowsAsync(job.handler!([{ id: 'test-2', name: REFRESH_JOB, data: {} }] as never));
});

test.serial('every provider failing, minute after minute, is one error line, then counts, then a recovery line', async (t) => {
  const lines: any[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  // The real cradle with a capturing logger: the handler's own line is what is under test here.
  const cradle = new Proxy(gw.kernel.cradle, { get: (target, key) => (key === 'logger' ? logger : Reflect.get(target, key)) });
  const job = buildDeclared(ratesPlugin.jobs!, cradle, 'rates jobs').find((j) => j.name === REFRESH_JOB)!;
  server.set('error500', 'error500');
  for (let i = 0; i < 11; i++) await job.handler!([{ id: `down-${i}`, name: REFRESH_JOB, data: {} }] as never);
  const refreshLines = () => lines.filter((l) => String(l.msg).startsWith('rates refresh'));
  t.deepEqual(
    refreshLines().map((l) => [l.level, l.failures]),
    [
      [50, 1],
      [50, 10],
    ],
  );
  server.set('ok', 'ok');
  await job.handler!([{ id: 'up', name: REFRESH_JOB, data: {} }] as never);
  t.is(refreshLines().at(-1).msg, 'rates refresh: a provider answers again after 11 failures');
});
