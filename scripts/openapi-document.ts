/**
 * The OpenAPI document of this build (`@gw/app-gateway`'s plugins), without a database or a
 * server: route factories only keep the cradle for their handlers, so a stand-in cradle is enough
 * to list the routes and their schemas. Same builder as the served `/api/v1/openapi.json`.
 */
import { plugins } from '@gw/app-gateway';
import { buildDeclared, buildOpenApiDocument, type OpenApiDocument } from '@gw/kernel';

/** A cradle that answers every lookup with itself, and a URL-like string when converted. */
const standIn: any = new Proxy(function standIn() {}, {
  get: (_target, key) => (key === 'then' ? undefined : key === Symbol.toPrimitive ? () => 'http://stand-in.invalid' : standIn),
  apply: () => standIn,
});

export function documentOfThisBuild(): OpenApiDocument {
  const routes = plugins.flatMap((plugin) => (plugin.routes ? buildDeclared(plugin.routes, standIn, `routes of plugin "${plugin.id}"`) : []));
  return buildOpenApiDocument({ routes, errorCatalogues: plugins.flatMap((plugin) => plugin.errors ?? []), version: '0.1.0' });
}
