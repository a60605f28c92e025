/**
 * The scheduled scan loop against a real EVM node (`@foundry-rs/anvil`, Sepolia's chain id): a
 * started instance runs each configured network's `watchers.scan` loop by itself; nothing here
 * calls the scanner or sends a job.
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { signedFetch, waitFor, type TestKernel } from '@gw/kernel/testing';
import { parseEther } from 'ethers';
import { projectWithPools, type TestProject } from '@gw/plugin-webhooks/testing';
import { SCAN_JOB } from '../src/index.js';
import { Anvil } from '@gw/testing';
import { startAnvilKernel } from './anvil-kernel.js';

let anvil: Anvil;
let gw: TestKernel;
let project: TestProject;

test.before(async () => {
  anvil = await Anvil.start(11155111);
  gw = await startAnvilKernel(anvil, { 'plugins.watchers.scanIntervalSeconds': 1 });
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('watchers-loop', CLI_ACTOR)).id;
  project = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
});
test.after.always(async () => {
  await gw?.close();
  await anvil?.stop();
});

const cursorHeight = async () => Number((await gw.kernel.cradle.db('watchers_cursors').where({ chain: 'eth', network: 'sepolia' }).first())?.height ?? -1);

test.serial('the loop started with the instance: a payment reaches paid, and the loop follows the tip', async (t) => {
  const created = await signedFetch(gw.url, '/api/v1/invoices', {
    ...project,
    method: 'POST',
    body: { external_id: `loop-${Date.now()}`, coin: 'eth', amount_crypto: '0.01' },
  });
  t.is(created.status, 201);
  const invoice = created.body;
  await anvil.sendEth((await anvil.accounts())[0]!, invoice.address, parseEther('0.01'));
  await waitFor(async () => (await signedFetch(gw.url, `/api/v1/invoices/${invoice.id}`, project)).body.status === 'detected', 20_000);
  await anvil.mine(invoice.confirmation_threshold);
  await waitFor(async () => (await signedFetch(gw.url, `/api/v1/invoices/${invoice.id}`, project)).body.status === 'paid', 20_000);
  const tip = await anvil.blockNumber();
  await waitFor(async () => (await cursorHeight()) === tip, 20_000);
  t.is((await signedFetch(gw.url, `/api/v1/invoices/${invoice.id}`, project)).body.confirmations, invoice.confirmation_threshold + 1);
});

test.serial('a pass that finds the lock taken keeps the loop going', async (t) => {
  const { db } = gw.kernel.cradle;
  // The minute's schedule restarts every loop; without it only the loop itself can send its next
  // pass. Mutation checked: with `if (!report.ran) continue;` before `next(...)` in jobs.ts (a pass
  // that finds the lock taken ends its loop), this test fails (no pass after the lock is released).
  await db.raw(`delete from pgboss.schedule where name = ?`, [SCAN_JOB]);
  const ethPasses = (since: Date) =>
    db
      .raw(`select count(*)::int as n from pgboss.job where name = ? and data->>'chain' = 'eth' and state = 'completed' and started_on > ?`, [SCAN_JOB, since])
      .then((r: { rows: { n: number }[] }) => r.rows[0]!.n);
  const activeEthPasses = (trx: typeof db) =>
    trx
      .raw(`select count(*)::int as n from pgboss.job where name = ? and data->>'chain' = 'eth' and state = 'active'`, [SCAN_JOB])
      .then((r: { rows: { n: number }[] }) => r.rows[0]!.n);
  // Hold the network's scan lock, as a pass of another instance would, until a pass of the loop has
  // run and found it taken (it completed while the lock was held). A pass already active when the
  // lock is taken may be past its block step, and its mempool step waits for the lock (by design,
  // behind another instance's block pass) while the stately queue starts no other pass: the lock is
  // let go and taken again until it is taken while no pass is active.
  let held = false;
  const giveUpAt = Date.now() + 20_000;
  while (!held) {
    if (Date.now() > giveUpAt) throw new Error('no moment within 20 s without an active pass of the network');
    held = await db.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', ['watchers:eth:sepolia']);
      const locked = new Date();
      if ((await activeEthPasses(trx)) > 0) return false;
      await waitFor(async () => (await ethPasses(locked)) > 0, 20_000);
      return true;
    });
    if (!held) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const released = new Date();
  await anvil.mine(1);
  const tip = await anvil.blockNumber();
  await waitFor(async () => (await ethPasses(released)) > 0, 20_000);
  await waitFor(async () => (await cursorHeight()) === tip, 20_000);
  t.is(await cursorHeight(), tip);
});
