import type { Cradle } from '../container.js';
import type { RouteDefinition } from './route.js';

/**
 * Liveness, readiness and metrics. `/readyz` answers 503 while the database or pg-boss cannot be
 * reached, or while the process is draining after SIGTERM.
 */
export function systemRoutes(cradle: Cradle, state: { isAccepting(): boolean }): RouteDefinition[] {
  return [
    {
      method: 'GET',
      path: '/healthz',
      summary: 'Liveness: the process is up.',
      tags: ['system'],
      auth: 'none',
      handler: async () => ({ body: { status: 'ok' } }),
    },
    {
      method: 'GET',
      path: '/readyz',
      summary: 'Readiness: database and job queue reachable, not draining.',
      tags: ['system'],
      auth: 'none',
      handler: async () => {
        const [database, jobs] = await Promise.all([
          cradle.db.raw('select 1').then(() => true, () => false),
          cradle.jobs.ping(),
        ]);
        const accepting = state.isAccepting();
        const ready = database && jobs && accepting;
        return {
          status: ready ? 200 : 503,
          body: { status: ready ? 'ready' : 'not_ready', checks: { database, jobs, accepting } },
        };
      },
    },
    {
      method: 'GET',
      path: '/metrics',
      summary: 'Prometheus metrics.',
      tags: ['system'],
      auth: 'none',
      handler: async () => ({
        headers: { 'Content-Type': cradle.metrics.registry.contentType },
        body: await cradle.metrics.registry.metrics(),
      }),
    },
  ];
}
