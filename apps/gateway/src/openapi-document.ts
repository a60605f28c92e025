/**
 * The OpenAPI document of this build (`@gw/app-gateway`'s plugins), without a database or a
 * server: route factories only keep the cradle for their handlers, so a stand-in cradle is enough
 * to list the routes and their schemas. The chain and coin enums are those of the composition's
 * default chains (config `chains.enabled` unset), bound as the kernel binds them. Same builder as
 * the served `/api/v1/openapi.json`.
 */
import { pino } from 'pino';
import { chains, plugins } from './composition.js';
import { bindChainIds, buildDeclared, buildOpenApiDocument, createChainRegistry, type OpenApiDocument } from '@gw/kernel';

/** A cradle that answers every lookup with itself, and a URL-like string when converted. */
const standIn: any = new Proxy(function standIn() {}, {
  get: (_target, key) => (key === 'then' ? undefined : key === Symbol.toPrimitive ? () => 'http://stand-in.invalid' : standIn),
  apply: () => standIn,
});

export function documentOfThisBuild(): OpenApiDocument {
  const registry = createChainRegistry(chains, pino({ level: 'silent' }));
  const routes = plugins
    .flatMap((plugin) => (plugin.routes ? buildDeclared(plugin.routes, standIn, `routes of plugin "${plugin.id}"`) : []))
    .map((route) => bindChainIds(route, registry));
  return buildOpenApiDocument({ routes, errorCatalogues: plugins.flatMap((plugin) => plugin.errors ?? []), version: '0.1.0' });
}
