/**
 * The scan interval of each network: its own `scanIntervalSeconds`, else the global one, else
 * the chain's block time (1 to 30 s). And a `zmqUrl` only on a Bitcoin Core provider.
 */
import test from 'ava';
import { Registry } from 'prom-client';
import { MAX_DEFAULT_POLL_SECONDS, pollIntervalOf, type ChainAdapter, type ChainAdapterDeps, type ChainRegistry } from '@gw/kernel';
import { adaChain } from '@gw/chain-ada';
import { bscChain } from '@gw/chain-bsc';
import { btcChain } from '@gw/chain-btc';
import { ethChain } from '@gw/chain-eth';
import { polygonChain } from '@gw/chain-polygon';
import { tonChain } from '@gw/chain-ton';
import { tronChain } from '@gw/chain-tron';
import { createWatcherMetrics } from './metrics.js';
import { WatcherRegistry } from './services/watcher-registry.js';
import type { WatchersConfig } from './config.js';

const deps = { logger: {} as ChainAdapterDeps['logger'] } as ChainAdapterDeps;
const all = [btcChain, ethChain, polygonChain, bscChain, tronChain, adaChain, tonChain];
const adapters: ChainAdapter[] = all.map((c) => c.createAdapter(deps, c.definition));

function registry(config: Partial<WatchersConfig>): WatcherRegistry {
  return new WatcherRegistry({
    chains: { list: () => adapters } as unknown as ChainRegistry,
    watchersConfig: { providerTimeoutMs: 1000, ...config } as WatchersConfig,
    watchersMetrics: createWatcherMetrics(new Registry()),
    addressPoolService: {} as never,
    tenancyProjects: {} as never,
    db: {} as never,
  });
}

test('each chain polls at its block time by default, at least 1 s and at most 30 s', (t) => {
  t.deepEqual(Object.fromEntries(all.map((c) => [c.definition.id, pollIntervalOf(c.definition)])), {
    btc: MAX_DEFAULT_POLL_SECONDS,
    eth: 12,
    polygon: 2,
    bsc: 1,
    tron: 3,
    ada: 20,
    ton: 5,
  });
  const { blockTimeSeconds: _, ...undeclared } = ethChain.definition;
  t.is(pollIntervalOf(undeclared), 5, 'a chain that declares no block time: 5 s');
});

test('a network`s own interval wins over the global one, which wins over the block time', (t) => {
  const provider = { name: 'node', url: 'http://127.0.0.1:8545' };
  const chains = {
    eth: { ethereum: { providers: [provider] }, sepolia: { providers: [provider], scanIntervalSeconds: 2 } },
    ada: { cardano: { providers: [{ name: 'bf', url: 'https://bf.example' }] } },
  };
  const byDefault = registry({ chains });
  t.is(byDefault.get('eth', 'ethereum')!.scanIntervalSeconds, 12);
  t.is(byDefault.get('eth', 'sepolia')!.scanIntervalSeconds, 2);
  t.is(byDefault.get('ada', 'cardano')!.scanIntervalSeconds, 20);
  const global = registry({ chains, scanIntervalSeconds: 7 });
  t.is(global.get('eth', 'ethereum')!.scanIntervalSeconds, 7);
  t.is(global.get('eth', 'sepolia')!.scanIntervalSeconds, 2);
  t.is(global.get('ada', 'cardano')!.scanIntervalSeconds, 7);
});

test('a zmqUrl needs a bitcoin-core provider, and gives the btc watcher push', (t) => {
  t.throws(
    () => registry({ chains: { btc: { bitcoin: { providers: [{ name: 'esplora', url: 'https://esplora.example/api', zmqUrl: 'tcp://127.0.0.1:28332' }] } } } }),
    {
      message: /zmqUrl needs kind bitcoin-core/,
    },
  );
  const node = { name: 'node', kind: 'bitcoin-core', url: 'http://127.0.0.1:8332', cookieFile: '/tmp/.cookie' };
  t.is(registry({ chains: { btc: { bitcoin: { providers: [node] } } } }).get('btc', 'bitcoin')!.watcher.subscribeHeads, undefined);
  t.is(
    typeof registry({ chains: { btc: { bitcoin: { providers: [{ ...node, zmqUrl: 'tcp://127.0.0.1:28332' }] } } } }).get('btc', 'bitcoin')!.watcher
      .subscribeHeads,
    'function',
  );
});
