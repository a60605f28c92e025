import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { startWatchersKernel, UNSCANNED } from './scenario.js';

// The dashboard overview's watcher table (issue 20): every configured chain network, with what its
// scanner last recorded in watchers_cursors. Role cli runs no scans: the rows are the ones a
// scanner writes, so the read is checked on its own.

let gw: TestKernel;
test.before(async () => {
  gw = await startWatchersKernel({ eth: { sepolia: UNSCANNED }, btc: { testnet: UNSCANNED } }, {}, { role: 'cli' });
});
test.after.always(async () => {
  await gw?.close();
});

test('status lists every configured network: unknown heights before a scan, then head, scanned, lag, last pass and last error', async (t) => {
  const { watchersStatus, db } = gw.kernel.cradle;
  const before = await watchersStatus.status();
  t.deepEqual(before.map((w) => `${w.chain}/${w.network}`).sort(), ['btc/testnet', 'eth/sepolia']);
  t.true(before.every((w) => w.head_height === null && w.scanned_height === null && w.lag === null && w.last_pass_iso === null && w.last_error === null));
  const failedAt = new Date('2026-01-02T03:04:05Z');
  await db('watchers_cursors').insert({
    chain: 'eth',
    network: 'sepolia',
    height: '9007199254740993',
    head_height: '9007199254741000',
    consecutive_failures: 2,
    last_error: 'timeout <after 5 s>',
    last_error_at: failedAt,
  });
  const eth = (await watchersStatus.status()).find((w) => w.chain === 'eth')!;
  t.like(eth, {
    head_height: '9007199254741000',
    scanned_height: '9007199254740993',
    lag: '7',
    consecutive_failures: 2,
    last_error: 'timeout <after 5 s>',
    last_error_at_iso: failedAt.toISOString(),
  });
  t.truthy(eth.last_pass_iso);
});

test('readiness warns that btc.testnet is watched for no project (testnet projects use signet) and names chains.testNetworks.btc', async (t) => {
  const report = await gw.kernel.readiness();
  const finding = report.checks.find((c) => c.check === 'watchers.providers')!;
  t.like(finding, { ok: false, severity: 'warning' });
  t.regex(finding.detail, /^btc\.testnet is watched, but no project pays there: testnet projects of btc use signet\./);
  t.regex(finding.fix!, /set chains\.testNetworks\.btc to "testnet"/);
});
