import type { Job, Queue, WorkOptions } from 'pg-boss';

/**
 * A pg-boss queue owned by a plugin. The kernel creates every queue on start (gateway and worker
 * alike, so producers can send) and runs `handler` only in processes with the worker role.
 */
export interface JobDefinition<TData extends object = any> {
  /** `<owner>.<job>`, e.g. `webhooks.deliver`. */
  readonly name: string;
  /** Queue policy: retries, backoff, expiry, retention, `notify` (wake workers on insert). */
  readonly queue?: Omit<Queue, 'name'>;
  /** Worker options: batch size, polling interval, local concurrency. */
  readonly work?: WorkOptions;
  /** Handles a batch of jobs. Throwing fails the whole batch (pg-boss retries per queue policy). */
  readonly handler?: (jobs: Job<TData>[]) => Promise<void>;
  /**
   * Cron schedule (UTC). pg-boss guarantees one scheduled send per slot across all instances, so a
   * scheduled job runs once per slot however many workers run.
   */
  readonly schedule?: { readonly cron: string; readonly data?: TData };
}
