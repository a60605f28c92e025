import type { RouteDefinition } from './route.js';

/** `GET /` answered with a redirect to `location` (hidden from the OpenAPI document). */
export function rootRedirect(location: string): RouteDefinition {
  return {
    method: 'GET',
    path: '/',
    summary: `The gateway's address in a browser: redirects to ${location}.`,
    tags: ['system'],
    hidden: true,
    auth: 'none',
    handler: async () => ({ status: 302, headers: { Location: location } }),
  };
}
