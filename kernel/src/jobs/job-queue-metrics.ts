import { Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { JobQueue } from './job-queue.js';

/**
 * `gateway_job_queue_jobs{queue,state}`: jobs per pg-boss queue by state (ready, deferred, active,
 * failed), read at scrape time from pg-boss's queue table, so every process reports the same
 * numbers. pg-boss refreshes these counts on its monitor pass (`jobs.superviseIntervalSeconds`).
 */
export function registerJobQueueGauge(registry: Registry, jobs: JobQueue, logger: Logger): void {
  if (registry.getSingleMetric('gateway_job_queue_jobs')) return;
  new Gauge({
    name: 'gateway_job_queue_jobs',
    help: "Jobs per pg-boss queue by state (ready, deferred, active, failed), as of pg-boss's last monitor pass.",
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        for (const queue of await jobs.boss.getQueues()) {
          this.set({ queue: queue.name, state: 'ready' }, queue.readyCount);
          this.set({ queue: queue.name, state: 'deferred' }, queue.deferredCount);
          this.set({ queue: queue.name, state: 'active' }, queue.activeCount);
          this.set({ queue: queue.name, state: 'failed' }, queue.failedCount);
        }
      } catch (error) {
        logger.warn({ err: error, metric: 'gateway_job_queue_jobs' }, 'job queue gauge unavailable');
      }
    },
  });
}
