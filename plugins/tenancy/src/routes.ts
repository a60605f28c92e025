import { defineRoute, type RouteDefinition, withDeps } from '@gw/kernel';
import Type from 'typebox';

const ProjectResponse = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: Type.Union([Type.Literal('production'), Type.Literal('testnet'), Type.Literal('sandbox')]),
  status: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
  subscription_status: Type.Union([Type.Literal('active'), Type.Literal('expired')]),
  created_at: Type.Integer({ minimum: 0 }),
  created_at_iso: Type.String(),
});

/** `GET /api/v1/project`: the project the signed request authenticates as (a credentials check). */
export const tenancyRoutes = withDeps(['tenancyProjects'], (deps): RouteDefinition[] => {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/project',
      summary: 'The project the request is signed for.',
      description: 'Use it to check credentials and signing code before the first real call.',
      tags: ['projects'],
      auth: 'signed',
      responses: { 200: ProjectResponse },
      handler: async ({ auth }) => {
        const project = await deps.tenancyProjects.get(auth.project!.id);
        const created = new Date(project.created_at_iso);
        return {
          body: {
            id: project.id,
            name: project.name,
            kind: project.kind,
            status: project.status,
            subscription_status: auth.project!.subscriptionActive ? 'active' : 'expired',
            created_at: Math.floor(created.getTime() / 1000),
            created_at_iso: project.created_at_iso,
          },
        };
      },
    }),
  ];
});
