/**
 * Provider `kind`s at start-up: the BTC watcher reads `esplora` and `bitcoin-core`, the Cardano one
 * `blockfrost` and `koios`; a kind a chain's
 * watcher does not read (any kind, for chains with one provider API) stops the registry naming the
 * config key.
 */
import test from 'ava';
import { Registry } from 'prom-client';
import type { ChainAdapter, ChainAdapterDeps, ChainRegistry } from '@gw/kernel';
import { adaChain } from '@gw/chain-ada';
import { btcChain } from '@gw/chain-btc';
import { ethChain } from '@gw/chain-eth';
import { createWatcherMetrics } from './metrics.js';
import { WatcherRegistry } from './services/watcher-registry.js';
import type { WatchersConfig } from './config.js';

const deps = { logger: {} as ChainAdapterDeps['logger'] } as ChainAdapterDeps;
const adapters: ChainAdapter[] = [
  btcChain.createAdapter(deps, btcChain.definition),
  ethChain.createAdapter(deps, ethChain.definition),
  adaChain.createAdapter(deps, adaChain.definition),
];

function registry(chains: WatchersConfig['chains']): WatcherRegistry {
  return new WatcherRegistry({
    chains: { list: () => adapters } as unknown as ChainRegistry,
    watchersConfig: { chains, providerTimeoutMs: 1000 } as WatchersConfig,
    watchersMetrics: createWatcherMetrics(new Registry()),
    // Not reached while the registry is built.
    addressPoolService: {} as never,
    tenancyProjects: {} as never,
    db: {} as never,
  });
}

test('btc takes esplora and bitcoin-core providers side by side', (t) => {
  const built = registry({
    btc: {
      bitcoin: {
        providers: [
          { name: 'node', kind: 'bitcoin-core', url: 'http://127.0.0.1:8332', username: 'u', password: 'p' },
          { name: 'esplora', kind: 'esplora', url: 'https://esplora.example/api' },
          { name: 'plain', url: 'https://esplora.example/api' },
        ],
      },
    },
  });
  t.deepEqual(built.get('btc', 'bitcoin')?.watcher.providerKinds, ['esplora', 'bitcoin-core']);
});

test('ada takes Blockfrost and Koios providers side by side; no kind is Blockfrost, as before Koios', (t) => {
  const built = registry({
    ada: {
      preprod: {
        providers: [
          { name: 'koios', kind: 'koios', url: 'https://preprod.koios.rest/api/v1' },
          { name: 'blockfrost', kind: 'blockfrost', url: 'https://cardano-preprod.blockfrost.io/api/v0', headers: { project_id: 'x' } },
          { name: 'plain', url: 'https://cardano-preprod.blockfrost.io/api/v0', headers: { project_id: 'x' } },
        ],
      },
    },
  });
  t.deepEqual(built.get('ada', 'preprod')?.watcher.providerKinds, ['blockfrost', 'koios']);
  t.throws(() => registry({ ada: { preprod: { providers: [{ name: 'x', kind: 'ogmios', url: 'ws://127.0.0.1:1337' }] } } }), {
    message: /kind ogmios is not one of blockfrost, koios/,
  });
});

test('a kind the chain does not read stops start-up, naming the provider', (t) => {
  t.throws(() => registry({ btc: { bitcoin: { providers: [{ name: 'x', kind: 'electrum', url: 'http://127.0.0.1:50001' }] } } }), {
    message: /kind electrum is not one of esplora, bitcoin-core/,
  });
  t.throws(() => registry({ eth: { sepolia: { providers: [{ name: 'x', kind: 'bitcoin-core', url: 'http://127.0.0.1:8545' }] } } }), {
    message: 'plugins.watchers.chains.eth.sepolia.providers.0.kind: eth reads one provider API and takes no kind, not bitcoin-core',
  });
});
