import Type from 'typebox';
import type { Cradle } from '../container.js';
import { sql, sqlQuery } from '../db/sql.js';
import { coreErrors } from '../errors/core-errors.js';
import { mayReadMetrics } from './metrics-access.js';
import type { RouteDefinition } from './route.js';
import type { ReadinessReport } from '../readiness/readiness-check.js';

const ReadinessBody = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
    checks: Type.Object({ database: Type.Boolean(), jobs: Type.Boolean(), accepting: Type.Boolean() }, { additionalProperties: false }),
    details: Type.Optional(
      Type.Object(
        {
          ready_for_payments: Type.Boolean({ description: 'False while any check below is an error (the same checks as `gateway doctor`).' }),
          problems: Type.Array(
            Type.Object(
              {
                check: Type.String(),
                severity: Type.Union([Type.Literal('error'), Type.Literal('warning')]),
                detail: Type.String(),
                fix: Type.Union([Type.String(), Type.Null()]),
              },
              { additionalProperties: false },
            ),
          ),
        },
        {
          additionalProperties: false,
          description:
            'What is missing for real payments (chains without a watcher, unverified wallets, no rate source, no webhook URL, no master key). Informational: it never makes the process not ready.',
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'Each check and the overall verdict; 503 unless all pass.' },
);

/**
 * Liveness, readiness and metrics. `/readyz` answers 503 while the database or pg-boss cannot be
 * reached, or while the process is draining after SIGTERM.
 */
export function systemRoutes(cradle: Cradle, state: { isAccepting(): boolean; readiness?: () => Promise<ReadinessReport> }): RouteDefinition[] {
  return [
    {
      method: 'GET',
      path: '/healthz',
      summary: 'Liveness: the process is up.',
      tags: ['system'],
      auth: 'none',
      responses: { 200: Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false, description: 'The process is up.' }) },
      handler: async () => ({ body: { status: 'ok' } }),
    },
    {
      method: 'GET',
      path: '/readyz',
      summary:
        'Readiness: database and job queue reachable, not draining; details (with the metrics bearer token, or from loopback) list what is missing for real payments.',
      tags: ['system'],
      auth: 'none',
      responses: { 200: ReadinessBody, 503: ReadinessBody },
      handler: async ({ ctx }) => {
        const [database, jobs] = await Promise.all([
          sqlQuery(cradle.db, sql`select 1`).then(
            () => true,
            () => false,
          ),
          cradle.jobs.ping(),
        ]);
        const accepting = state.isAccepting();
        const ready = database && jobs && accepting;
        // The details name projects and their wallets: only for whoever may read the metrics (the
        // bearer token, or loopback); the status and the checks stay open to any load balancer.
        const mayReadDetails = mayReadMetrics(ctx, cradle.kernelConfig.http.metricsToken);
        const report = database && state.readiness && mayReadDetails ? await state.readiness().catch(() => undefined) : undefined;
        const details = report && {
          ready_for_payments: report.ready,
          problems: report.checks.filter((c) => !c.ok).map((c) => ({ check: c.check, severity: c.severity!, detail: c.detail, fix: c.fix })),
        };
        return {
          status: ready ? 200 : 503,
          body: { status: ready ? 'ready' : 'not_ready', checks: { database, jobs, accepting }, ...(details ? { details } : {}) },
        };
      },
    },
    {
      method: 'GET',
      path: '/metrics',
      summary: 'Prometheus metrics.',
      description:
        'Needs `Authorization: Bearer <http.metricsToken>` when a token is configured; without one, only connections from loopback that no proxy forwarded are answered.',
      tags: ['system'],
      auth: 'none',
      responses: { 200: Type.String({ contentMediaType: 'text/plain', description: 'Prometheus text exposition format.' }) },
      errors: ['auth_invalid'],
      handler: async ({ ctx }) => {
        if (!mayReadMetrics(ctx, cradle.kernelConfig.http.metricsToken)) {
          ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
          throw coreErrors.auth_invalid({ message: 'Metrics need the bearer token of http.metricsToken, or a direct connection from loopback.' });
        }
        return {
          headers: { 'Content-Type': cradle.metrics.registry.contentType },
          body: await cradle.metrics.registry.metrics(),
        };
      },
    },
  ];
}
