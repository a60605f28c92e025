import { createServer, type ServerResponse } from 'node:http';
import { CLI_ACTOR } from '@gw/kernel';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { ALL_CHAINS, startApp, type AppProcess } from '@gw/testing';
import { createTestDatabase, startTestKernel, waitFor, type TestDatabase, type TestKernel } from '@gw/kernel/testing';
import { invoiceWithEvents, WEBHOOK_PLUGINS, projectWithPools } from '@gw/plugin-webhooks/testing';

const EVENTS = 300;

let database: TestDatabase;
test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => {
  await database?.drop();
});

/**
 * Gateway side (no workers): `count` events to `url`, written through the outbox (the short
 * expiry is set on both sides alike).
 */
async function gatewayWithEvents(t: ExecutionContext, name: string, url: string, count: number): Promise<{ gw: TestKernel; ids: string[] }> {
  const gw = await startTestKernel({
    plugins: WEBHOOK_PLUGINS,
    chains: ALL_CHAINS,
    role: 'gateway',
    database,
    config: { 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': { ETH: '3000' }, 'plugins.webhooks.expireInSeconds': 3 },
  });
  t.teardown(() => gw.close());
  const operator = await gw.kernel.cradle.tenancyOperators.create(name, CLI_ACTOR);
  const project = await projectWithPools(gw, operator.id, ['eth'], 'testnet');
  const ids = await invoiceWithEvents(gw, project.projectId, url, count, name);
  return { gw, ids };
}

/** The worker app's environment: this database, short expiry and supervision, `extra` on top. */
function workerEnv(extra: Record<string, string>): Record<string, string> {
  return {
    DATABASE_URL: database.url,
    GW_MASTER_KEY: '0f'.repeat(32),
    LOG_LEVEL: 'warn',
    GW__plugins__webhooks__allowPrivateTargets: 'true',
    GW__plugins__webhooks__expireInSeconds: '3',
    GW__jobs__superviseIntervalSeconds: '1',
    GW__plugins__rates__providers: '["fixed"]',
    GW__plugins__rates__fixed: '{"ETH":"3000"}',
    ...extra,
  };
}

interface HoldingReceiver {
  url: string;
  readonly seen: Map<string, number>;
  readonly inFlight: () => number;
  onRequest: (() => void) | undefined;
}

/**
 * The partner: counts the deliveries of each event id and answers each only after `holdMs`, so
 * deliveries are in flight when a worker dies. `onRequest` runs at each arrival.
 */
async function holdingReceiver(t: ExecutionContext, holdMs: number): Promise<HoldingReceiver> {
  let inFlight = 0;
  const partner: HoldingReceiver = { url: '', seen: new Map(), inFlight: () => inFlight, onRequest: undefined };
  const receiver = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = JSON.parse(Buffer.concat(chunks).toString('utf8')).event_id as string;
      partner.seen.set(id, (partner.seen.get(id) ?? 0) + 1);
      inFlight += 1;
      partner.onRequest?.();
      setTimeout(() => {
        inFlight -= 1;
        if (!res.destroyed) res.end('{"ok":true}');
      }, holdMs);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  partner.url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  t.teardown(() => {
    receiver.closeAllConnections();
    receiver.close();
  });
  return partner;
}

test.serial('a worker killed with SIGKILL in the middle of a batch loses no event: after a restart every event is delivered at least once', async (t) => {
  const partner = await holdingReceiver(t, 300);
  const { seen } = partner;
  let inFlightAtKill = -1;
  const { gw, ids } = await gatewayWithEvents(t, 'durability', partner.url, EVENTS);
  t.is(new Set(ids).size, EVENTS);

  const env = workerEnv({ GW__plugins__webhooks__batchSize: '100' });

  let worker: AppProcess = startApp('worker', env);
  t.teardown(() => {
    if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  });
  // Kill the worker once its first batch is on the wire and none of it has been answered yet.
  await new Promise<void>((resolve) => {
    partner.onRequest = () => {
      if (seen.size >= 50 && inFlightAtKill < 0) {
        inFlightAtKill = partner.inFlight();
        worker.child.kill('SIGKILL');
        partner.onRequest = undefined;
        resolve();
      }
    };
  });
  await worker.exited;
  t.true(inFlightAtKill >= 50, `${inFlightAtKill} deliveries in flight when the worker died`);
  const deliveredBeforeRestart = await gw.kernel.cradle.db('webhooks_events').where({ status: 'delivered' }).count<{ n: string }[]>('* as n');
  t.true(Number(deliveredBeforeRestart[0]!.n) < EVENTS, 'the killed worker had not finished');

  worker = startApp('worker', env);
  await waitFor(
    async () => seen.size === EVENTS && (await gw.kernel.cradle.db('webhooks_events').whereNot({ status: 'delivered' }).first()) === undefined,
    90_000,
    `every event delivered (seen ${seen.size}); worker output: ${worker.output().slice(-3000)}`,
  );
  t.is(seen.size, EVENTS, 'every event id reached the receiver');
  t.true(ids.every((id) => (seen.get(id) ?? 0) >= 1));
  t.true(
    [...seen.values()].some((n) => n > 1),
    'the deliveries cut off by the kill were sent again (at least once, deduplicated by event_id)',
  );
  const rows = await gw.kernel.cradle.db('webhooks_events').whereIn('id', ids);
  t.true(rows.every((row) => row.status === 'delivered' && row.attempts === 1));
  worker.child.kill('SIGTERM');
  await worker.exited;
});

test.serial('a worker killed while deliveries straggle past their batch loses none: their leases end and they are sent again', async (t) => {
  const STRAGGLERS = 20;
  // The partner answers each request only after 1.5 s: longer than the batch waits (200 ms), shorter
  // than the timeout (3 s), so every delivery straggles and is recorded on its own, later.
  const { url, seen } = await holdingReceiver(t, 1500);
  const { gw, ids } = await gatewayWithEvents(t, 'stragglers', url, STRAGGLERS);
  // A straggler's row is leased past its timeout (due later, its attempt not recorded): that lease is its fallback (ADR 0013).
  const fallbackJobs = async () =>
    Number(
      (
        await gw.kernel.cradle.db.raw(
          `select count(*) as n from webhooks_events where status = 'retrying' and attempts = 0 and next_attempt_at > now() and id = any(?::text[])`,
          [ids],
        )
      ).rows[0].n,
    );

  const env = workerEnv({ GW__plugins__webhooks__timeoutMs: '3000', GW__plugins__webhooks__batchWaitMs: '200' });
  let worker: AppProcess = startApp('worker', env);
  t.teardown(() => {
    if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  });
  // Every delivery is on the wire and its batch has ended, leaving a fallback job per straggler.
  await waitFor(
    async () => seen.size === STRAGGLERS && (await fallbackJobs()) === STRAGGLERS,
    // A liveness bound, not a timing assertion: a worker booting on a loaded machine needs its time.
    60_000,
    `stragglers and their fallback jobs; worker output: ${worker.output().slice(-3000)}`,
  );
  worker.child.kill('SIGKILL');
  await worker.exited;
  const unrecorded = await gw.kernel.cradle
    .db('webhooks_events')
    .whereIn('id', ids)
    .where({ status: 'retrying', attempts: 0 })
    .count<{ n: string }[]>('* as n');
  t.is(Number(unrecorded[0]!.n), STRAGGLERS, 'the killed worker recorded none of its stragglers');

  worker = startApp('worker', env);
  await waitFor(
    async () => (await gw.kernel.cradle.db('webhooks_events').whereIn('id', ids).whereNot({ status: 'delivered' }).first()) === undefined,
    60_000,
    `every straggler delivered; worker output: ${worker.output().slice(-3000)}`,
  );
  t.true(
    ids.every((id) => (seen.get(id) ?? 0) >= 2),
    'each straggler was sent again once its lease ended',
  );
  const rows = await gw.kernel.cradle.db('webhooks_events').whereIn('id', ids);
  t.true(
    rows.every((row) => row.attempts === 1),
    'the claim after the lease repeats the same attempt',
  );
  t.is(await fallbackJobs(), 0);
  worker.child.kill('SIGTERM');
  await worker.exited;
});
