import { pollIntervalOf, ProviderPool, type ChainRegistry, type ChainId } from '@gw/kernel';
import type { AddressPoolService } from '@gw/plugin-address-pool/contract';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import type { WatchersConfig } from '../config.js';
import type { WatcherMetrics } from '../metrics.js';
import type { ScanTarget } from './chain-scanner.js';
import { PoolWatchedAddresses } from './watched-addresses.js';

/**
 * The configured chain networks and their watchers, built once at start-up from
 * `plugins.watchers.chains`. A chain of the build that config `chains.enabled` leaves off is skipped
 * (its networks are not watched); an unknown chain or network, or a chain whose adapter has no
 * watcher, stops start-up naming it. Each network's scan interval is its own `scanIntervalSeconds`,
 * else the global one, else the chain's block time (`pollIntervalOf`: 1 to 30 s).
 */
export class WatcherRegistry {
  private readonly targets = new Map<string, ScanTarget>();

  constructor(deps: {
    chains: ChainRegistry;
    watchersConfig: WatchersConfig;
    watchersMetrics: WatcherMetrics;
    addressPoolService: AddressPoolService;
    tenancyProjects: ProjectService;
    db: Knex;
  }) {
    const { watchersConfig: config } = deps;
    for (const [chainId, networks] of Object.entries(config.chains)) {
      const adapter = deps.chains.list().find((a) => a.definition.id === chainId);
      // A chain of the build turned off by chains.enabled keeps its watcher config, unused.
      if (!adapter && deps.chains.isKnownChain(chainId)) continue;
      if (!adapter) throw new Error(`plugins.watchers.chains.${chainId}: no such chain in this build`);
      for (const [networkId, settings] of Object.entries(networks)) {
        const { definition } = adapter;
        const network = [definition.networks.mainnet, ...definition.networks.testnets].find((n) => n.id === networkId);
        if (!network) throw new Error(`plugins.watchers.chains.${chainId}.${networkId}: ${chainId} has no network ${networkId}`);
        const providers = new ProviderPool({
          chain: chainId,
          network: networkId,
          endpoints: settings.providers,
          timeoutMs: config.providerTimeoutMs,
          onOutcome: deps.watchersMetrics.outcomeRecorder(chainId, networkId),
        });
        const watcher = adapter.createWatcher({ network, providers });
        settings.providers.forEach((provider, index) => {
          if (provider.kind !== undefined && !(watcher.providerKinds ?? []).includes(provider.kind)) {
            throw new Error(
              `plugins.watchers.chains.${chainId}.${networkId}.providers.${index}.kind: ${chainId} reads ${watcher.providerKinds ? `kind ${watcher.providerKinds.join(' or ')}` : 'one provider API and takes no kind'}, not ${provider.kind}`,
            );
          }
        });
        this.targets.set(key(chainId as ChainId, networkId), {
          adapter,
          network: networkId,
          watcher,
          providers,
          watched: new PoolWatchedAddresses(deps, definition, networkId),
          startHeight: settings.startHeight,
          scanIntervalSeconds: settings.scanIntervalSeconds ?? config.scanIntervalSeconds ?? pollIntervalOf(definition),
        });
      }
    }
  }

  list(): ScanTarget[] {
    return [...this.targets.values()];
  }

  get(chain: string, network: string): ScanTarget | undefined {
    return this.targets.get(key(chain, network));
  }
}

const key = (chain: string, network: string) => `${chain}:${network}`;
