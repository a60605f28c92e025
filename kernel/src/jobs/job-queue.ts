import { PgBoss, fromKnex, type Job, type JobInsert, type SendOptions, type WorkOptions } from 'pg-boss';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { JobDefinition } from './job-definition.js';

/**
 * The kernel's pg-boss: one instance per process, in its own schema, on its own small pool.
 *
 * The outbox rule: a job that announces a state change is inserted with `sendInTransaction`, in the
 * same database transaction as the change, so either both are committed or neither is.
 */
export interface JobQueue {
  /** The underlying pg-boss instance, for operations this interface does not cover. */
  readonly boss: PgBoss;
  /** Sends outside any transaction (for jobs that follow no domain write). */
  send<T extends object>(name: string, data: T, options?: SendOptions): Promise<string | null>;
  /** Sends inside `trx`: the job exists if and only if `trx` commits. */
  sendInTransaction<T extends object>(trx: Knex.Transaction, name: string, data: T, options?: SendOptions): Promise<string | null>;
  /** Inserts many jobs with one statement inside `trx` (the outbox of a batch). */
  insertInTransaction<T extends object>(trx: Knex.Transaction, name: string, jobs: readonly JobInsert<T>[]): Promise<void>;
  /**
   * Deletes jobs by id inside `trx`: they are gone if and only if `trx` commits. For a job that
   * only stood guard over work finishing elsewhere (ids unknown to the queue are ignored).
   */
  deleteInTransaction(trx: Knex.Transaction, name: string, ids: readonly string[]): Promise<void>;
  /** Whether pg-boss answers a query (readiness). */
  ping(): Promise<boolean>;
}

export interface JobQueueRuntime extends JobQueue {
  start(): Promise<void>;
  /** Creates (or updates) the queues of every enabled plugin. */
  declareQueues(definitions: readonly JobDefinition[]): Promise<void>;
  /**
   * Writes the cron schedules (worker role only). The kernel calls it before any plugin starts, so
   * every statement of a worker's start-up has run before its first delivery or job: a database
   * outage after that finds the worker started, and its loops recover (a schedule written while the
   * plugins already worked could meet the outage and fail the whole start-up).
   */
  schedule(definitions: readonly JobDefinition[]): Promise<void>;
  /** Starts the workers of the queues with handlers (worker role only). */
  startWorkers(definitions: readonly JobDefinition[]): Promise<void>;
  /** Stops fetching, waits for active handlers up to `timeoutMs`, closes the pool. */
  stop(timeoutMs: number): Promise<void>;
}

export function createJobQueue(options: { url: string; schema: string; poolMax: number; superviseIntervalSeconds?: number; logger: Logger }): JobQueueRuntime {
  const boss = new PgBoss({
    connectionString: options.url,
    schema: options.schema,
    max: options.poolMax,
    application_name: 'gateway-jobs',
    // Queues declared with `notify: true` wake their workers on insert (committed with the
    // inserting transaction) instead of waiting for the next poll.
    useListenNotify: true,
    // Expired active jobs (a worker that died) are found by the monitor pass, which runs at the
    // slower of the two intervals; both follow the one setting. So does the queue cache: a worker
    // skips the singleton keys its cache last saw active, so a key freed by the monitor (a dead
    // worker's stately job failed) is fetched again only once the cache is refreshed.
    ...(options.superviseIntervalSeconds
      ? {
          superviseIntervalSeconds: options.superviseIntervalSeconds,
          monitorIntervalSeconds: options.superviseIntervalSeconds,
          queueCacheIntervalSeconds: options.superviseIntervalSeconds,
        }
      : {}),
  });
  const log = options.logger.child({ component: 'jobs' });
  boss.on('error', (error) => log.error({ err: error }, 'pg-boss error'));
  let started = false;

  return {
    boss,
    async start() {
      await boss.start();
      started = true;
    },
    async declareQueues(definitions) {
      for (const definition of definitions) {
        const existing = await boss.getQueue(definition.name);
        if (existing) {
          // pg-boss fixes a queue's policy at creation; everything else follows the definition.
          if (definition.queue) {
            const { policy: _policy, ...changeable } = definition.queue;
            await boss.updateQueue(definition.name, changeable);
          }
        } else {
          await boss.createQueue(definition.name, definition.queue ?? {});
        }
      }
    },
    async schedule(definitions) {
      for (const definition of definitions) {
        if (definition.schedule) {
          await boss.schedule(definition.name, definition.schedule.cron, definition.schedule.data ?? {}, { tz: 'UTC' });
        }
      }
    },
    async startWorkers(definitions) {
      for (const definition of definitions) {
        const handler = definition.handler;
        if (handler) {
          const workOptions: WorkOptions = definition.work ?? {};
          await boss.work(definition.name, workOptions, async (jobs: Job<object>[]) => {
            await handler(jobs);
          });
        }
      }
    },
    send(name, data, sendOptions) {
      return boss.send(name, data, sendOptions ?? {});
    },
    sendInTransaction(trx, name, data, sendOptions) {
      return boss.send(name, data, { ...(sendOptions ?? {}), db: fromKnex(trx) });
    },
    async insertInTransaction(trx, name, jobs) {
      if (jobs.length === 0) return;
      await boss.insert(name, [...jobs], { db: fromKnex(trx) });
    },
    async deleteInTransaction(trx, name, ids) {
      if (ids.length === 0) return;
      await boss.deleteJob(name, [...ids], { db: fromKnex(trx) });
    },
    async ping() {
      if (!started) return false;
      try {
        await boss.getDb().executeSql('select 1');
        return true;
      } catch {
        return false;
      }
    },
    async stop(timeoutMs) {
      if (!started) return;
      started = false;
      await boss.stop({ graceful: true, timeout: timeoutMs, close: true });
    },
  };
}
