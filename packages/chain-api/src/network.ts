/**
 * Network descriptors: the ids of chains and coins, project kinds and the network kinds their keys
 * belong to, and one concrete network of a chain. The leaf of the chain contract: the adapter
 * contract (`chain.ts`) and the watcher types (`watch/`) both build on it.
 */

import type { PublicProvider } from './watch/public-provider.js';

/**
 * A chain id (`btc`, `eth`, `ltc`): lower-case letters and digits, starting with a letter. The set
 * of ids is not closed: each chain module brings its own, and the chain registry
 * (`createChainRegistry`) checks at start that the enabled chains' ids are well-formed and unique.
 */
export type ChainId = string;

/**
 * A coin id (`btc`, `usdt_erc20`): lower-case letters, digits and `_`, starting with a letter,
 * unique across every chain of the build (the registry checks at start). The API's `coin` enum is
 * the enabled chains' coins.
 */
export type CoinId = string;

/** What chain ids look like. */
export const CHAIN_ID_PATTERN = /^[a-z][a-z0-9]{1,15}$/;
/** What coin ids look like. */
export const COIN_ID_PATTERN = /^[a-z][a-z0-9_]{1,31}$/;

/** Project kinds (spec section 1); fixed at project creation. */
export const PROJECT_KINDS = ['production', 'testnet', 'sandbox'] as const;
export type ProjectKind = (typeof PROJECT_KINDS)[number];

/**
 * The network family a key and its addresses belong to. Production projects use `mainnet`;
 * testnet and sandbox projects use `testnet`.
 */
export type NetworkKind = 'mainnet' | 'testnet';

/** Maps a project kind to the network kind of its keys and addresses. */
export function networkKindOf(kind: ProjectKind): NetworkKind {
  return kind === 'production' ? 'mainnet' : 'testnet';
}

/** One concrete network of a chain, e.g. Bitcoin signet or Ethereum Sepolia. */
export interface NetworkDefinition {
  /** Stable identifier, e.g. `bitcoin`, `signet`, `sepolia`, `amoy`, `shasta`, `preprod`. */
  readonly id: string;
  /** Human name for docs and the CLI. */
  readonly name: string;
  readonly kind: NetworkKind;
  /** EIP-155 chain id (EVM only); used in EIP-681 payment URIs. */
  readonly evmChainId?: number;
  /**
   * EVM: whether the network runs EIP-7702 (Prague rules; set-code transactions). The treasury offers
   * the `eip7702` sweep method only where it is true (issue 36).
   */
  readonly eip7702?: boolean;
  /**
   * EVM: the Multicall3 contract, where deployed (`0xcA11bde05977b3631167028862bE2a173976CA11` on
   * most networks; a local chain deploys its own and the operator configures it). The treasury reads
   * balances in batches through it and submits batched authorizations through it; without it, one
   * call per address.
   */
  readonly multicall3?: string;
  /**
   * Providers anyone may use without a key (issue 40), in the order they are tried: the network is
   * watched through them when `plugins.watchers.chains` says nothing of it. Operators of two or
   * more different `operator`s make the default quorum 2. Absent or empty: none is known (a local
   * network such as regtest).
   */
  readonly publicProviders?: readonly PublicProvider[];
}
