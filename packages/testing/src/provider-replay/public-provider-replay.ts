import type { ChainDefinition, NetworkDefinition, PublicProvider } from '@gw/kernel';
import { esploraReplay } from './esplora-replay.js';
import { evmRpcReplay } from './evm-rpc-replay.js';
import { koiosReplay } from './koios-replay.js';
import type { ProviderReplay } from './recorded-scan.js';
import { toncenterReplay } from './toncenter-replay.js';
import { tronReplay } from './tron-replay.js';

/**
 * The replay of the API `provider` speaks, with the recorded answers of `network` (or, where none
 * was recorded for that network, of the nearest one, as each fixture README says): Esplora for
 * Bitcoin and Litecoin, JSON-RPC for EVM networks, java-tron's HTTP API for TRON, toncenter v3 for
 * TON, Koios for Cardano. Throws for an API no replay serves, so a new default provider of another
 * API fails the replay test until its recorded answers exist.
 */
export function publicProviderReplay(chain: ChainDefinition, network: NetworkDefinition, provider: PublicProvider): ProviderReplay {
  if (provider.kind === 'esplora' || (provider.kind === undefined && (chain.id === 'btc' || chain.id === 'ltc'))) return esploraReplay(chain.id, network.id);
  if (network.evmChainId !== undefined && provider.kind === undefined) return evmRpcReplay(chain, network);
  if (chain.id === 'tron' && provider.kind === undefined) return tronReplay(network.id);
  if (chain.id === 'ton' && provider.kind === undefined) return toncenterReplay(network.id);
  if (chain.id === 'ada' && provider.kind === 'koios') return koiosReplay(network.id);
  throw new Error(`no replay of ${provider.kind ?? 'the default'} API of ${chain.id}/${network.id} (${provider.name})`);
}
