import {
  networkFor,
  operatorOf,
  pollIntervalOf,
  ProviderPool,
  type ChainAdapter,
  type ChainId,
  type ChainRegistry,
  type NetworkDefinition,
  type ProviderEndpoint,
} from '@gw/kernel';
import type { AddressPoolService } from '@gw/plugin-address-pool/contract';
import type { InvoiceLifecycle } from '@gw/plugin-invoices/contract';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import type { WatchersConfig } from '../config.js';
import type { WatcherMetrics } from '../metrics.js';
import type { Attestor, ScanTarget } from './chain-scanner.js';
import type { ProviderBudgets } from './provider-budget.js';
import { PoolWatchedAddresses } from './watched-addresses.js';

/** One network's settings under `plugins.watchers.chains` (or none: the public defaults). */
type NetworkSettings = WatchersConfig['chains'][string][string];

/**
 * The watched chain networks and their watchers, built once at start-up.
 *
 * - A network under `plugins.watchers.chains` is watched through its `providers` (`replace`), its
 *   providers then the chain's public ones (`publicProviders: "join"`), or, without `providers`,
 *   the public ones alone. Named without `providers`, a network that sets `publicProviders`
 *   (nothing to replace or join), or one named while `plugins.watchers.publicProviders` is false
 *   (it would still be watched through public providers), stops start-up naming the key.
 * - Every other network that projects pay on (the mainnet, and the test network config
 *   `chains.testNetworks` chose) of every enabled chain is watched through the chain's public
 *   providers, unless `plugins.watchers.publicProviders` is false. Those networks are scanned only
 *   once a pool address waits there (`idleUntilUsed`; looked at once a minute until then): an
 *   install that never takes a coin never asks its providers. Once scanned, a network stays
 *   followed, also when no address waits any more: its pool's outputs are spent there (sweeps,
 *   spends by the key's holder), and paid late.
 * - The quorum is the network's `quorum`, else 2 where its providers have two or more operators,
 *   else 1; a quorum above the number of operators stops start-up.
 *
 * Every network's providers share the request budget (`ProviderBudgets`): those with a `limit`
 * are paced under it across instances, by the scanning pool and by each attestor alike, and a
 * public provider's across every network its host (or its chain data's `limitScope`) serves.
 *
 * A chain of the build that config `chains.enabled` leaves off is skipped; an unknown chain or
 * network, or a chain whose adapter has no watcher, stops start-up naming it. Each network's scan
 * interval is its own `scanIntervalSeconds`, else the global one, else the chain's block time.
 */
export class WatcherRegistry {
  private readonly targets = new Map<string, ScanTarget>();

  constructor(
    private readonly deps: {
      chains: ChainRegistry;
      watchersConfig: WatchersConfig;
      watchersMetrics: WatcherMetrics;
      addressPoolService: AddressPoolService;
      tenancyProjects: ProjectService;
      db: Knex;
      /** The payment references a network with them watches (absent: registries built by hand in unit tests). */
      invoicesLifecycle?: Pick<InvoiceLifecycle, 'watchedReferences'>;
      /** The request budget of providers with a limit; the plugin always gives it (absent: registries built by hand in unit tests, limits not enforced). */
      watchersBudget?: ProviderBudgets;
    },
  ) {
    const { watchersConfig: config } = deps;
    for (const [chainId, networks] of Object.entries(config.chains)) {
      const adapter = deps.chains.list().find((a) => a.definition.id === chainId);
      // A chain of the build turned off by chains.enabled keeps its watcher config, unused.
      if (!adapter && deps.chains.isKnownChain(chainId)) continue;
      if (!adapter) throw new Error(`plugins.watchers.chains.${chainId}: no such chain in this build`);
      for (const [networkId, settings] of Object.entries(networks)) {
        const network = networksOf(adapter).find((n) => n.id === networkId);
        if (!network) throw new Error(`plugins.watchers.chains.${chainId}.${networkId}: ${chainId} has no network ${networkId}`);
        this.add(adapter, network, settings);
      }
    }
    if (!config.publicProviders) return;
    for (const adapter of deps.chains.list()) {
      for (const kind of ['production', 'testnet'] as const) {
        const network = networkFor(adapter.definition, kind);
        if (this.targets.has(key(adapter.definition.id, network.id)) || (network.publicProviders ?? []).length === 0) continue;
        this.add(adapter, network, undefined);
      }
    }
  }

  list(): ScanTarget[] {
    return [...this.targets.values()];
  }

  get(chain: string, network: string): ScanTarget | undefined {
    return this.targets.get(key(chain, network));
  }

  private add(adapter: ChainAdapter, network: NetworkDefinition, settings: NetworkSettings | undefined): void {
    const { definition } = adapter;
    const { watchersConfig: config } = this.deps;
    const chainId = definition.id;
    const path = `plugins.watchers.chains.${chainId}.${network.id}`;
    const publicOnes: ProviderEndpoint[] = (network.publicProviders ?? []).map((p) => ({
      name: p.name,
      url: p.url,
      operator: p.operator,
      limit: p.limit,
      origin: 'public',
      ...(p.kind === undefined ? {} : { kind: p.kind }),
      ...(p.limitScope === undefined ? {} : { limitScope: p.limitScope }),
    }));
    if (settings !== undefined && settings.providers === undefined) {
      // Said and ignored would watch otherwise than the file reads: refused, naming the key.
      if (settings.publicProviders !== undefined) {
        throw new Error(
          `${path}.publicProviders: "${settings.publicProviders}" needs ${path}.providers (${settings.publicProviders === 'join' ? 'the public providers join yours' : 'yours replace the public ones'}); add your providers, or remove publicProviders to watch through the public ones alone`,
        );
      }
      if (!config.publicProviders) {
        throw new Error(
          `${path}.providers: plugins.watchers.publicProviders is false, so a network named without providers would still be watched through its public ones; add its providers, or remove ${path}`,
        );
      }
    }
    const configured: ProviderEndpoint[] = (settings?.providers ?? []).map((p) => ({ ...p, origin: 'configured' }));
    const origin = configured.length === 0 ? 'public' : settings?.publicProviders === 'join' ? 'joined' : 'configured';
    const endpoints = origin === 'public' ? publicOnes : origin === 'joined' ? [...configured, ...publicOnes] : configured;
    if (endpoints.length === 0) throw new Error(`${path}.providers: ${chainId} knows no public provider for ${network.id}; configure one`);
    const names = new Set<string>();
    for (const endpoint of endpoints) {
      if (names.has(endpoint.name))
        throw new Error(`${path}.providers: two providers are named ${endpoint.name}; names label metrics and marks, and must differ`);
      names.add(endpoint.name);
    }
    const providers = new ProviderPool({
      chain: chainId,
      network: network.id,
      endpoints,
      timeoutMs: config.providerTimeoutMs,
      onOutcome: this.deps.watchersMetrics.outcomeRecorder(chainId, network.id),
      ...(this.deps.watchersBudget === undefined ? {} : { budget: this.deps.watchersBudget.forNetwork(chainId, network.id) }),
    });
    const watcher = adapter.createWatcher({ network, providers });
    endpoints.forEach((provider, index) => {
      if (provider.kind !== undefined && !(watcher.providerKinds ?? []).includes(provider.kind)) {
        throw new Error(
          `${path}.providers.${index}.kind: ${chainId} reads ${watcher.providerKinds ? `kind ${watcher.providerKinds.join(' or ')}` : 'one provider API and takes no kind'}, not ${provider.kind}`,
        );
      }
    });
    const operators = new Set(endpoints.map(operatorOf)).size;
    const quorum = settings?.quorum ?? (operators >= 2 ? 2 : 1);
    if (quorum > operators) {
      throw new Error(
        `${path}.quorum: ${quorum} independent providers cannot agree where the providers have ${operators} operator(s); name each provider's operator, add providers, or lower the quorum`,
      );
    }
    const attestors: Attestor[] = endpoints.map((endpoint) => ({
      endpoint,
      operator: operatorOf(endpoint),
      watcher: adapter.createWatcher({ network, providers: providers.single(endpoint) }),
    }));
    this.targets.set(key(chainId, network.id), {
      adapter,
      network: network.id,
      watcher,
      providers,
      attestors,
      quorum,
      origin,
      idleUntilUsed: settings === undefined,
      mempoolScope: endpoints.some((e) => e.limit !== undefined) ? 'awaiting' : 'expecting',
      watched: new PoolWatchedAddresses(this.deps, definition, network.id),
      startHeight: settings?.startHeight,
      scanIntervalSeconds: settings?.scanIntervalSeconds ?? config.scanIntervalSeconds ?? pollIntervalOf(definition),
    });
  }
}

const networksOf = (adapter: ChainAdapter): NetworkDefinition[] => [adapter.definition.networks.mainnet, ...adapter.definition.networks.testnets];

const key = (chain: ChainId, network: string) => `${chain}:${network}`;
