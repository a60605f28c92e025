import { definePlugin, defineRoute, withDeps } from '@gw/kernel';
import Type from 'typebox';

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
      handler: async ({ body }) => ({ status: 201, body: { ok: true, n: body.n } }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/probe/idempotent-writes',
      summary: 'A write idempotent by design: the same signed request may be sent again.',
      auth: 'signed',
      idempotent: true,
      access: { projectKind: 'production', write: true },
      body: Type.Object({ n: Type.Integer({ minimum: 1, maximum: 10 }) }, { additionalProperties: false }),
      handler: async ({ body }) => ({ status: 201, body: { ok: true, n: body.n } }),
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
