import { definePlugin, defineRoute, withDeps } from '@gw/kernel';
import Type from 'typebox';

/**
 * The probe's counting production writes: each counts its runs per project, may take a while
 * (`slowMs`, so a copy arrives while it runs) and may fail with a 500 (a bug); the others answer
 * 201 with the run's number and their body's `n`.
 */
const COUNTING_WRITES = [
  { counter: 'writes', path: '/api/v1/probe/writes', summary: 'A production-kind write.' },
  { counter: 'slow', path: '/api/v1/probe/slow-writes', summary: 'A write that takes a while, so a copy arrives while it runs.', slowMs: 500 },
  { counter: 'failing', path: '/api/v1/probe/failing-writes', summary: 'A write that fails with a 500 (a bug).', fails: true },
  {
    counter: 'slow-failing',
    path: '/api/v1/probe/slow-failing-writes',
    summary: 'A write that takes a while, then fails with a 500.',
    slowMs: 500,
    fails: true,
  },
  {
    counter: 'idempotent',
    path: '/api/v1/probe/idempotent-writes',
    summary: 'A write idempotent by design: the same signed request may be sent again.',
    idempotent: true,
  },
] as const satisfies readonly { counter: string; path: string; summary: string; slowMs?: number; fails?: true; idempotent?: true }[];
type Counter = (typeof COUNTING_WRITES)[number]['counter'];

/** How often a counting probe route ran for a project in this process (both test instances share it). */
const runs = new Map<string, number>();
export function probeRuns(counter: Counter, projectId: string): number {
  return runs.get(`${counter}:${projectId}`) ?? 0;
}
function countRun(counter: Counter, projectId: string): number {
  const key = `${counter}:${projectId}`;
  runs.set(key, (runs.get(key) ?? 0) + 1);
  return runs.get(key)!;
}

const N_BODY = Type.Object({ n: Type.Integer({ minimum: 1, maximum: 10 }) }, { additionalProperties: false });

function countingWrite(write: (typeof COUNTING_WRITES)[number]) {
  const { counter, path, summary } = write;
  const access = { projectKind: 'production', write: true } as const;
  const run = async (projectId: string) => {
    const n = countRun(counter, projectId);
    if ('slowMs' in write) await new Promise((resolve) => setTimeout(resolve, write.slowMs));
    return n;
  };
  if ('fails' in write)
    return defineRoute({
      method: 'POST',
      path,
      summary,
      auth: 'signed',
      access,
      handler: async ({ auth }) => {
        await run(auth.project!.id);
        throw new Error('probe failure');
      },
    });
  return defineRoute({
    method: 'POST',
    path,
    summary,
    auth: 'signed',
    ...('idempotent' in write ? { idempotent: true } : {}),
    access,
    body: N_BODY,
    handler: async ({ auth, body }) => ({ status: 201, body: { ok: true, n: body.n, run: await run(auth.project!.id) } }),
  });
}

/**
 * A test-only plugin whose routes declare each access rule, so the kernel's guards are exercised
 * through the real HTTP stack exactly as later plugins will use them.
 */
export const probePlugin = definePlugin({
  id: 'probe',
  dependsOn: ['tenancy'],
  routes: withDeps(['rateLimiter'], (deps) => [
    ...COUNTING_WRITES.map(countingWrite),
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
