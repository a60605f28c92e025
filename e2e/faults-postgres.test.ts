import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import pg from 'pg';
import { pino } from 'pino';
import { CLI_ACTOR, type EmbeddedPostgresHandle, startEmbeddedPostgres } from '@gw/kernel';
import { freePort, signedFetch, startTestKernel, waitFor, type TestDatabase, type TestKernel } from '@gw/kernel/testing';
import { chains, plugins } from '@gw/app-gateway';
import { projectWithPools, Receiver, type TestProject, startApp, waitForUrl, type AppProcess } from '@gw/testing';
import { invoiceWithEvents } from '@gw/plugin-webhooks/testing';

/**
 * Fault: the PostgreSQL server restarts (a fast shutdown: sessions terminated, then connections
 * refused) while partners create invoices and a worker delivers webhooks. This file runs a
 * PostgreSQL of its own (the machine's shared one is never touched): real gateway and worker
 * processes against it, the server stopped and started again under them. x402 settlement is on
 * (an external facilitator, never called here), so the worker also runs the `x402.follow` cron job:
 * with that job scheduled, deliveries were once reported to stall after the restart.
 */

const EVENTS = 200;
const CLIENTS = 4;
const DOWN_MS = 4000;
const MASTER_KEY = '0f'.repeat(32);
const RATES = { ETH: '3000' };

let postgres: EmbeddedPostgresHandle | undefined;
let port = 0;
let dataDir = '';
const logger = pino({ level: 'silent' });
const database = (): TestDatabase => ({ url: `postgres://postgres:postgres@127.0.0.1:${port}/gw_faults`, name: 'gw_faults', drop: async () => undefined });

async function startPostgres(): Promise<void> {
  postgres = await startEmbeddedPostgres({ dataDir, port, database: 'gw_faults', logger });
}
async function stopPostgres(): Promise<void> {
  await postgres?.stop();
  postgres = undefined;
}

test.before(async () => {
  port = await freePort();
  const parent = mkdtempSync(join(tmpdir(), 'gw-faults-pg-'));
  // Running as root, the server runs as the `postgres` user, which must reach its data directory.
  chmodSync(parent, 0o755);
  dataDir = join(parent, 'data');
  await startPostgres();
});
test.after.always(async () => {
  await stopPostgres();
  if (dataDir) rmSync(join(dataDir, '..'), { recursive: true, force: true });
});

/** The processes' environment: this file's PostgreSQL, quick supervision, loopback receivers allowed. */
function appEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: database().url,
    PORT: '0',
    GW_MASTER_KEY: MASTER_KEY,
    LOG_LEVEL: 'warn',
    GW__plugins__webhooks__allowPrivateTargets: 'true',
    GW__plugins__webhooks__expireInSeconds: '3',
    GW__jobs__superviseIntervalSeconds: '1',
    GW__plugins__rates__providers: '["fixed"]',
    GW__plugins__rates__fixed: JSON.stringify(RATES),
    // Settlement on, so the worker schedules and works `x402.follow` (not scheduled while it is off).
    GW__plugins__x402__settlement: 'facilitator',
    GW__plugins__x402__facilitator: JSON.stringify({ url: 'http://127.0.0.1:9' }),
    ...extra,
  };
}

/** A partner's endpoint answering each delivery after `holdMs`, and its count of deliveries per event id so far. */
async function countingReceiver(t: ExecutionContext, holdMs: number): Promise<{ url: string; seen: () => Map<string, number> }> {
  const receiver = await Receiver.start();
  receiver.reply = () => ({ status: 200, body: '{"ok":true}', delayMs: holdMs });
  t.teardown(() => receiver.close());
  const seen = () => {
    const counts = new Map<string, number>();
    for (const request of receiver.requests) {
      const id = String(request.headers['x-service-event-id']);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  };
  return { url: `${receiver.url}/hooks`, seen };
}

/** Migrates this server's database and sets up a project with an ETH pool, plus `events` events queued for `url`. */
async function setUp(url: string, events: number): Promise<{ project: TestProject; eventIds: string[] }> {
  const setup: TestKernel = await startTestKernel({
    plugins,
    chains,
    role: 'cli',
    database: database(),
    config: {
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': RATES,
      'plugins.address-pool.targetFree': 50,
      'plugins.webhooks.expireInSeconds': 3,
    },
  });
  try {
    const operator = await setup.kernel.cradle.tenancyOperators.create('faults', CLI_ACTOR);
    const project = await projectWithPools(setup, operator.id, ['eth'], 'testnet');
    const eventIds = await invoiceWithEvents(setup, project.projectId, url, events, 'events-carrier');
    return { project, eventIds };
  } finally {
    await setup.close();
  }
}

interface Outcome {
  /** external_id → invoice id the gateway answered with (201 or a 200 replay). */
  readonly acknowledged: Map<string, string>;
  readonly unavailable: { status: number; retryAfter: string | null; code: string }[];
  /** Anything else: other statuses, network errors. */
  readonly unexpected: string[];
  created: number;
  replayed: number;
}

/**
 * `CLIENTS` partners, each creating invoices one after another until `stop()`; a create that is
 * answered 503 is sent again with the same external_id after its Retry-After (as a partner's client
 * does), so every external_id a client started ends acknowledged.
 */
function createLoad(gatewayUrl: string, project: TestProject): { outcome: Outcome; stop: () => Promise<void> } {
  const outcome: Outcome = { acknowledged: new Map(), unavailable: [], unexpected: [], created: 0, replayed: 0 };
  let stopping = false;
  const client = async (c: number) => {
    for (let n = 0; !stopping; n++) {
      const externalId = `load-${c}-${n}`;
      for (;;) {
        let res: Awaited<ReturnType<typeof signedFetch>>;
        try {
          res = await signedFetch(gatewayUrl, '/api/v1/invoices', {
            ...project,
            method: 'POST',
            body: { external_id: externalId, amount_crypto: '0.01', coin: 'eth' },
          });
        } catch (error) {
          outcome.unexpected.push(`${externalId}: ${String(error)}`);
          await new Promise((r) => setTimeout(r, 500));
          continue;
        }
        if (res.status === 201 || res.status === 200) {
          if (res.status === 201) outcome.created += 1;
          else outcome.replayed += 1;
          outcome.acknowledged.set(externalId, res.body.id as string);
          break;
        }
        if (res.status === 503) {
          const retryAfter = res.headers.get('retry-after');
          outcome.unavailable.push({ status: res.status, retryAfter, code: res.body?.error_code });
          await new Promise((r) => setTimeout(r, Math.max(1, Number(retryAfter) || 1) * 1000));
          continue;
        }
        outcome.unexpected.push(`${externalId}: ${res.status} ${JSON.stringify(res.body)}`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };
  const running = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
  return {
    outcome,
    stop: async () => {
      stopping = true;
      await running;
    },
  };
}

test.serial(
  'PostgreSQL restarted during invoice creation and webhook delivery: 503 with Retry-After while it is down, recovery without a restart, no create half-done, no event lost',
  async (t) => {
    const receiver = await countingReceiver(t, 300);
    const { project, eventIds } = await setUp(receiver.url, EVENTS);

    const gateway: AppProcess = startApp('gateway', appEnv());
    const worker: AppProcess = startApp('worker', appEnv({ GW__plugins__webhooks__batchSize: '10' }));
    t.teardown(() => {
      for (const p of [gateway, worker]) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    });
    const gatewayUrl = await waitForUrl(gateway);
    const load = createLoad(gatewayUrl, project);

    // Creates and deliveries under way, then the server goes down in the middle of both.
    await waitFor(
      async () => load.outcome.acknowledged.size >= 20 && receiver.seen().size >= 20,
      30_000,
      `load under way; worker: ${worker.output().slice(-2000)}`,
    );
    t.true(receiver.seen().size < EVENTS, 'deliveries still pending when the server stops');
    const beforeDown = load.outcome.acknowledged.size;
    await stopPostgres();
    await new Promise((r) => setTimeout(r, DOWN_MS));
    const readyWhileDown = await fetch(`${gatewayUrl}/readyz`);
    t.is(readyWhileDown.status, 503, 'readiness reports the database down');
    const unavailableWhileDown = load.outcome.unavailable.length;
    await startPostgres();

    // Recovery by itself: the same processes create again and deliver the rest.
    const afterUp = load.outcome.acknowledged.size;
    await waitFor(async () => load.outcome.acknowledged.size >= afterUp + 20, 30_000, `creates resume; gateway: ${gateway.output().slice(-2000)}`);
    await load.stop();
    const client = new pg.Client({ connectionString: database().url });
    await client.connect();
    t.teardown(() => client.end());
    await waitFor(
      async () =>
        receiver.seen().size === EVENTS &&
        Number((await client.query(`select count(*) as n from webhooks_events where status <> 'delivered'`)).rows[0].n) === 0,
      60_000,
      `every event delivered (seen ${receiver.seen().size}); worker: ${worker.output().slice(-3000)}`,
    );
    t.is((await fetch(`${gatewayUrl}/readyz`)).status, 200);
    t.is(
      Number((await client.query(`select count(*) as n from pgboss.schedule where name = 'x402.follow'`)).rows[0].n),
      1,
      'the worker scheduled x402.follow: the restart happened under every cron job',
    );

    const { outcome } = load;
    t.log(
      `creates: ${outcome.acknowledged.size} acknowledged (${beforeDown} before the stop), ${outcome.created} created, ${outcome.replayed} replays, ${outcome.unavailable.length} answered 503 (${unavailableWhileDown} while down)`,
    );
    if (outcome.unexpected.length > 0) t.log(gateway.output().slice(-6000));
    t.deepEqual(outcome.unexpected, [], 'nothing but 201/200/503');
    t.true(unavailableWhileDown > 0, 'creates were answered 503 while the server was down');
    t.true(
      outcome.unavailable.every((u) => u.code === 'service_unavailable' && u.retryAfter !== null && Number(u.retryAfter) >= 1),
      JSON.stringify(outcome.unavailable.slice(0, 5)),
    );

    // No create half-done: the invoices are exactly the acknowledged ones, each holding its address.
    const invoices = (
      await client.query(`select id, external_id, pool_address_id from invoices_invoices where project_id = $1 and external_id like 'load-%'`, [
        project.projectId,
      ])
    ).rows as { id: string; external_id: string; pool_address_id: string }[];
    t.is(invoices.length, outcome.acknowledged.size, 'one invoice per acknowledged external_id, none beside them');
    t.true(
      invoices.every((i) => outcome.acknowledged.get(i.external_id) === i.id),
      'each external_id has the invoice it was answered with',
    );
    const held = (
      await client.query(`select coalesce(sum(active_allocations), 0)::int as n from address_pool_addresses where project_id = $1`, [project.projectId])
    ).rows[0].n as number;
    t.is(held, invoices.length + 1, 'every invoice holds its address and no address is held without an invoice (plus the events carrier)');

    // No event lost: every event queued before the restart reached the receiver and is recorded delivered.
    t.true(eventIds.every((id) => (receiver.seen().get(id) ?? 0) >= 1));
    t.log(
      `events: ${EVENTS} delivered, ${[...receiver.seen().values()].filter((n) => n > 1).length} of them more than once (at least once, deduplicated by event_id)`,
    );

    gateway.child.kill('SIGTERM');
    worker.child.kill('SIGTERM');
    t.is(await gateway.exited, 0, gateway.output().slice(-2000));
    t.is(await worker.exited, 0, worker.output().slice(-2000));
  },
);
