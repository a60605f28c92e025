import {
  ProviderPool,
  type ChainAdapterDeps,
  type ChainModule,
  type ChainWatcher,
  type NetworkDefinition,
  type ProviderEndpoint,
  type PublicProvider,
} from '@gw/kernel';
import { publicProviderReplay } from './public-provider-replay.js';
import type { ProviderReplay } from './recorded-scan.js';
import { startReplayServer, type ReplayServer } from '@gw/kernel/testing';

/** A public provider stood in for by a local replay of its API, and the chain's watcher built on it alone. */
export interface ReplayedProvider {
  readonly provider: PublicProvider;
  readonly replay: ProviderReplay;
  readonly server: ReplayServer;
  /** The endpoint the watcher reads: the provider's entry with its URL moved to the replay server (path kept). */
  readonly endpoint: ProviderEndpoint;
  readonly pool: ProviderPool;
  readonly watcher: ChainWatcher;
  close(): Promise<void>;
}

/**
 * Starts a replay server at `provider`'s URL path (`https://mempool.space/signet/api` →
 * `http://127.0.0.1:<port>/signet/api`) and builds `module`'s watcher of `network` with that
 * endpoint as its only provider, as the watchers plugin builds one for a public provider
 * (name, kind, operator, limit and its scope, origin `public`).
 */
export async function startReplayedProvider(module: ChainModule, network: NetworkDefinition, provider: PublicProvider): Promise<ReplayedProvider> {
  const replay = publicProviderReplay(module.definition, network, provider);
  const server = await startReplayServer(new URL(provider.url).pathname, replay.handler);
  const endpoint: ProviderEndpoint = {
    name: provider.name,
    url: server.url,
    ...(provider.kind === undefined ? {} : { kind: provider.kind }),
    operator: provider.operator,
    limit: provider.limit,
    ...(provider.limitScope === undefined ? {} : { limitScope: provider.limitScope }),
    origin: 'public',
  };
  const pool = new ProviderPool({ chain: module.definition.id, network: network.id, endpoints: [endpoint], timeoutMs: 10_000 });
  const adapter = module.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, module.definition);
  const watcher = adapter.createWatcher({ network, providers: pool });
  return { provider, replay, server, endpoint, pool, watcher, close: () => server.close() };
}
