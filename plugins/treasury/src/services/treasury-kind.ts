import type { ChainAdapter, ChainDefinition, ChainId, ChainRegistry } from '@gw/kernel';
import { treasuryErrors } from '../errors.js';

/** One kind of chain treasury (UTXO or account): how a chain says it has one and where the watchers keep it. */
export interface TreasuryKind<T> {
  /** Whether the chain implements this kind of treasury (its capability). */
  readonly implemented: (definition: ChainDefinition) => boolean;
  /** The treasury the watchers built over a watched network's providers; undefined where the network is not watched. */
  readonly of: (chain: ChainId, network: string) => T | undefined;
  /** Why a chain without this kind of treasury can plan nothing (the 422's message). */
  readonly none: (chain: string) => string;
}

/**
 * The adapter and the treasury of a network. Throws 422 `treasury_unavailable` for a chain not
 * enabled, a network not watched, or a chain without this kind of treasury.
 */
export function requireTreasury<T>(chains: ChainRegistry, kind: TreasuryKind<T>, chain: string, network: string): { adapter: ChainAdapter; treasury: T } {
  if (!chains.has(chain)) throw treasuryErrors.treasury_unavailable({ message: `The chain ${chain} is not enabled.`, details: { chain, network } });
  const adapter = chains.get(chain);
  const treasury = kind.of(adapter.definition.id, network);
  if (!treasury) {
    throw treasuryErrors.treasury_unavailable({
      message: kind.implemented(adapter.definition)
        ? `${chain} ${network} is not watched (plugins.watchers.chains), so the gateway has no provider to build and broadcast with.`
        : kind.none(chain),
      details: { chain, network },
    });
  }
  return { adapter, treasury };
}

/** Every enabled chain network with a treasury of this kind (the jobs' and gauges' work list). */
export function treasuryNetworkIds<T>(chains: ChainRegistry, kind: TreasuryKind<T>): { chain: ChainId; network: string }[] {
  return chains
    .list()
    .filter((adapter) => kind.implemented(adapter.definition))
    .flatMap(({ definition }) => [definition.networks.mainnet, ...definition.networks.testnets].map((n) => ({ chain: definition.id, network: n.id })))
    .filter(({ chain, network }) => kind.of(chain, network) !== undefined);
}

/**
 * What `get` answers, or undefined where it throws: what a pass over stored plans skips (a chain
 * disabled or a network no longer watched since the plan was made).
 */
export function unlessUnavailable<T>(get: () => T): T | undefined {
  try {
    return get();
  } catch {
    return undefined;
  }
}
