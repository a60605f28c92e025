import { definePlugin, defineRoute, withDeps } from '@gw/kernel';
import Type from 'typebox';

/** How often a counting probe route ran for a project in this process (both test instances share it). */
const runs = new Map<string, number>();
export function probeRuns(route: 'writes' | 'idempotent' | 'slow' | 'failing' | 'slow-failing', projectId: string): number {
  return runs.get(`${route}:${projectId}`) ?? 0;
}
function countRun(route: string, projectId: string): number {
  const key = `${route}:${projectId}`;
  runs.set(key, (runs.get(key) ?? 0) + 1);
  return runs.get(key)!;
}

/**
 * A test-only plugin whose routes declare each access rule, so the kernel's guards are exercised
 * through the real HTTP stack exactly as later plugins will use them.
 */
export const probePlugin = definePlugin({
  id: 'probe',
  dependsOn: ['tenancy'],
  routes: withDeps(['rateLimiter'], (deps) => [
    defineRoute({
      method: 'POST',
      path: '/api/v1/probe/writes',
      summary: 'A production-kind write.',
      auth: 'signed',
      access: { projectKind: 'production', write: true },
      body: Type.Object({ n: Type.Integer({ minimum: 1, maximum: 10 }) }, { additionalProperties: false }),
      handler: async ({ auth, body }) => ({ status: 201, body: { ok: true, n: body.n, run: countRun('writes', auth.project!.id) } }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/probe/slow-writes',
      summary: 'A write that takes a while, so a copy arrives while it runs.',
      auth: 'signed',
      access: { projectKind: 'production', write: true },
      body: Type.Object({ n: Type.Integer({ minimum: 1, maximum: 10 }) }, { additionalProperties: false }),
      handler: async ({ auth, body }) => {
        const run = countRun('slow', auth.project!.id);
        await new Promise((resolve) => setTimeout(resolve, 500));
        return { status: 201, body: { ok: true, n: body.n, run } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/probe/failing-writes',
      summary: 'A write that fails with a 500 (a bug).',
      auth: 'signed',
      access: { projectKind: 'production', write: true },
      handler: async ({ auth }) => {
        countRun('failing', auth.project!.id);
        throw new Error('probe failure');
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/probe/slow-failing-writes',
      summary: 'A write that takes a while, then fails with a 500.',
      auth: 'signed',
      access: { projectKind: 'production', write: true },
      handler: async ({ auth }) => {
        countRun('slow-failing', auth.project!.id);
        await new Promise((resolve) => setTimeout(resolve, 500));
        throw new Error('probe failure');
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/probe/idempotent-writes',
      summary: 'A write idempotent by design: the same signed request may be sent again.',
      auth: 'signed',
      idempotent: true,
      access: { projectKind: 'production', write: true },
      body: Type.Object({ n: Type.Integer({ minimum: 1, maximum: 10 }) }, { additionalProperties: false }),
      handler: async ({ auth, body }) => ({ status: 201, body: { ok: true, n: body.n, run: countRun('idempotent', auth.project!.id) } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/probe/reads',
      summary: 'A production-kind read.',
      auth: 'signed',
      access: { projectKind: 'production' },
      query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })) }, { additionalProperties: false }),
      handler: async ({ query }) => ({ body: { limit: query.limit } }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/sandbox/probe/writes',
      summary: 'A sandbox write (no subscription check).',
      auth: 'signed',
      access: { projectKind: 'sandbox', write: true },
      handler: async () => ({ body: { ok: true } }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/sandbox/:projectId/probe',
      summary: 'A project-scoped sandbox route (cross-mode checks fire).',
      auth: 'signed',
      access: { projectKind: 'sandbox', projectParam: 'projectId' },
      handler: async ({ auth }) => ({ body: { project: auth.project!.id } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/probe/limited',
      summary: 'Three calls per minute per project.',
      auth: 'signed',
      handler: async ({ auth }) => {
        await deps.rateLimiter.consume({ key: `probe:${auth.project!.id}`, limit: 3, windowSeconds: 60 });
        return { body: { ok: true } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/probe/crash',
      summary: 'Throws a non-AppError.',
      auth: 'none',
      handler: async () => {
        throw new Error('secret internals');
      },
    }),
  ]),
});
