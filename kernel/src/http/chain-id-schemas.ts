import Type, { type TSchema, type TString } from 'typebox';
import type { ChainRegistry } from '@gw/chain-api';
import type { McpToolDefinition } from '../mcp/mcp-tool.js';
import type { RouteDefinition } from './route.js';

/**
 * Schemas whose allowed values are the ids of the enabled chains or coins. A plugin's schemas are
 * module constants, built before any config is read, so they carry a marker instead of an enum;
 * the kernel replaces the marker with the enabled ids when it mounts the routes (`bindChainIds`),
 * so request validation, the OpenAPI enums and the `validation_error` for an unknown or disabled
 * chain or coin all follow config `chains.enabled`.
 */
export const CHAIN_IDS_MARKER = 'x-gw-ids';

type ChainIdKind = 'chains' | 'coins';

/** A chain id of an enabled chain (`btc`, `eth`, ...). */
export function ChainIdSchema(options: { description?: string } = {}): TString {
  return Type.String({ description: 'A chain id of an enabled chain.', ...options, [CHAIN_IDS_MARKER]: 'chains' });
}

/** A coin id of an enabled chain's coin (`btc`, `usdt_trc20`, ...). */
export function CoinIdSchema(options: { description?: string } = {}): TString {
  return Type.String({ description: 'A coin of an enabled chain.', ...options, [CHAIN_IDS_MARKER]: 'coins' });
}

/**
 * A copy of `schema` in which every {@link ChainIdSchema} / {@link CoinIdSchema} node lists the
 * registry's ids as its `enum`. Every own property (TypeBox's non-enumerable `~optional` and
 * `~kind` too) is kept; the input is never changed. Returns `schema` itself when it has no marker.
 */
export function withChainIds<T extends TSchema>(schema: T, chains: ChainRegistry): T {
  if (!JSON.stringify(schema).includes(`"${CHAIN_IDS_MARKER}"`)) return schema;
  return bind(schema, { chains: chains.chainIds(), coins: chains.coinIds() }) as T;
}

/** `route` with its params, query, body and response schemas bound by {@link withChainIds}. */
export function bindChainIds<R extends RouteDefinition>(route: R, chains: ChainRegistry): R {
  const bound = { ...route } as unknown as Record<string, unknown>;
  for (const key of ['params', 'query', 'body'] as const) {
    const schema = route[key];
    if (schema) bound[key] = withChainIds(schema, chains);
  }
  if (route.responses) {
    bound['responses'] = Object.fromEntries(Object.entries(route.responses).map(([status, schema]) => [status, withChainIds(schema, chains)]));
  }
  return bound as unknown as R;
}

/**
 * `tools` with their argument schemas bound by {@link withChainIds}, so `tools/list` shows the
 * enabled ids as the enum and an unknown or disabled coin is a `validation_error`, as over REST.
 * Tools that shared one schema object share one bound copy (the variants of a tool must).
 */
export function bindToolChainIds(tools: readonly McpToolDefinition[], chains: ChainRegistry): McpToolDefinition[] {
  const bound = new Map<McpToolDefinition['input'], McpToolDefinition['input']>();
  return tools.map((tool) => {
    if (!bound.has(tool.input)) bound.set(tool.input, withChainIds(tool.input, chains));
    const input = bound.get(tool.input)!;
    return input === tool.input ? tool : { ...tool, input };
  });
}

function bind(node: unknown, ids: Readonly<Record<ChainIdKind, readonly string[]>>): unknown {
  if (Array.isArray(node)) return node.map((item) => bind(item, ids));
  if (typeof node !== 'object' || node === null) return node;
  const descriptors = Object.getOwnPropertyDescriptors(node);
  for (const descriptor of Object.values(descriptors)) {
    if ('value' in descriptor) descriptor.value = bind(descriptor.value, ids);
  }
  const copy = Object.defineProperties(Object.create(Object.getPrototypeOf(node)), descriptors) as Record<string, unknown>;
  const kind = copy[CHAIN_IDS_MARKER];
  if (kind === 'chains' || kind === 'coins') {
    copy['enum'] = [...ids[kind]];
    delete copy[CHAIN_IDS_MARKER];
  }
  return copy;
}
