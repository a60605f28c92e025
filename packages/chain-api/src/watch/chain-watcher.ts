import type { NetworkDefinition } from '../network.js';
import type { ChainHead, ObservedTransfer, ScannedBlock } from './observed-transfer.js';
import type { ProviderPool } from './provider-pool.js';

/**
 * Which addresses the gateway watches on a network. Scanners that read whole blocks filter with
 * `filter`; providers that can only be asked per address (Blockfrost, toncenter) ask for `active`.
 */
export interface WatchedAddresses {
  /** The subset of `addresses` that are pool addresses of this chain and network. */
  filter(addresses: readonly string[]): Promise<Set<string>>;
  /** Pool addresses that currently expect a payment (allocated to a waiting invoice, or in cooldown). */
  active(): Promise<string[]>;
  /**
   * Chains with `capabilities.paymentReferences`: the payment references of the network's invoices
   * that expect a payment (waiting, or ended less than the pool's cooldown ago, so a late payment is
   * found), for watchers that look payments up by reference (Solana `getSignaturesForAddress` on
   * each). In the mempool step, like `active()`, a window rotating from pass to pass. Absent on
   * other chains.
   */
  references?(): Promise<string[]>;
}

/**
 * Reads one chain network through its providers. Implementations keep no state that matters for
 * correctness: the cursor, the stored block hashes and the transfers live in the watchers plugin's
 * tables, so any worker instance can run the next scan.
 *
 * Failures are thrown as {@link ProviderError}s (after the pool's failover); the scanner retries the
 * same range later and never skips a block.
 */
export interface ChainWatcher {
  /** The tip (and the final height where the chain declares one). */
  head(): Promise<ChainHead>;
  /**
   * Blocks `from`..`to` inclusive in ascending height order, each with its hash, parent hash and
   * every transfer of the chain's coins on this network to a watched address. The caller keeps
   * `to - from + 1` at most `maxBlocksPerScan`.
   */
  scan(from: number, to: number, watched: WatchedAddresses): Promise<ScannedBlock[]>;
  /** Hash of the block at `height` on the provider's current chain, for reorg checks; null if it has none. */
  blockHash(height: number): Promise<string | null>;
  /**
   * The transaction `txHash` as the provider has it in a block: that block's height and hash, and
   * the transaction's transfers to `watched` addresses; null when the provider has it in no block
   * (unknown, or only in its mempool). `blockHash` is where the gateway recorded it (a node needs it
   * to find a transaction without an index). Optional: watchers whose providers answer one
   * transaction in a request or two (Esplora `GET /tx/{txid}`) offer it, and the quorum asks it
   * instead of reading the whole block (a full Bitcoin block is about 150 Esplora requests).
   */
  transactionIn?(txHash: string, blockHash: string, watched: WatchedAddresses): Promise<TransactionInBlock | null>;
  /** Transfers to watched addresses not yet in a block (chains whose providers show a mempool). */
  mempool?(watched: WatchedAddresses): Promise<ObservedTransfer[]>;
  /** Largest range one `scan` call should cover (provider limits, e.g. `eth_getLogs` ranges). */
  readonly maxBlocksPerScan: number;
  /**
   * What `scan` returns for a range. `every` (the default): one block per height, each naming its
   * parent's hash, so the scanner checks the chain of hashes and finds reorganisations. `touched`:
   * only the heights holding a transfer to a watched account, in ascending order, each with its own
   * hash (its `parentHash` may be empty), for watchers that read account histories instead of
   * blocks (Solana `getSignaturesForAddress`) and whose `head().height` is final (Solana's
   * `finalized` slot): nothing at or below it is ever reorganised, so the scanner keeps no chain of
   * hashes and looks for no reorganisation. What is not yet final such a watcher reports through
   * `mempool` (Solana `confirmed`), where an unfinalized transfer that vanishes is dropped after the
   * chain's `pendingTimeoutSeconds`.
   */
  readonly coverage?: 'every' | 'touched';
  /**
   * The provider `kind`s this watcher reads, for chains with more than one API (BTC: `esplora`,
   * `bitcoin-core`). A watcher without it takes no `kind`: the registry refuses one at start-up.
   */
  readonly providerKinds?: readonly string[];
  /**
   * Push: announces each new tip as the provider pushes it (EVM `eth_subscribe("newHeads")` over
   * a WebSocket, Bitcoin Core ZMQ `hashblock`), and, where the provider pushes them, transactions
   * entering its mempool (Core ZMQ `rawtx`), so the scanner can run a pass at once instead of at
   * its next poll. Optional, and undefined when no configured provider offers push. A hint only:
   * the pass reads blocks and the mempool as always (nothing is taken from the notification), and
   * polling goes on beside it, so a lost notification delays a block, never skips it. The
   * implementation reconnects by itself (with backoff) and reports every connect and drop to
   * `onConnection`. Returns the unsubscribe.
   */
  subscribeHeads?(listener: HeadListener): Unsubscribe;
}

/** Where a provider has a transaction (`ChainWatcher.transactionIn`). */
export interface TransactionInBlock {
  readonly height: number;
  readonly blockHash: string;
  readonly transfers: readonly ObservedTransfer[];
}

/** A tip pushed by a provider. */
export interface PushedHead {
  /** Its height, where the push tells it (EVM newHeads); undefined where it names the block only (Core ZMQ `hashblock`). */
  readonly height?: number;
  readonly hash: string;
}

/** A transaction a provider pushed as it entered its mempool. */
export interface PushedTransaction {
  /** Its id, or empty when it did not decode. */
  readonly txid: string;
  /**
   * The addresses its outputs pay, in the chain's canonical form; undefined when the transaction
   * could not be decoded (a form the watcher does not parse): the listener then assumes it may
   * concern a watched address.
   */
  readonly addresses: readonly string[] | undefined;
}

/** What a push subscription reports. */
export interface HeadListener {
  onHead(head: PushedHead): void;
  /** A transaction entered the provider's mempool (only subscriptions that push transactions call it). */
  onTransaction?(tx: PushedTransaction): void;
  /**
   * The connection went up (`connected`) or down (dropped, refused, or the subscription failed;
   * `error` says why). `provider` is the endpoint's name.
   */
  onConnection(state: { readonly connected: boolean; readonly provider: string; readonly error?: string }): void;
}

/** Ends a subscription (closes its connection, stops reconnecting). */
export type Unsubscribe = () => void;

/** What a chain's adapter gets to build its watcher. */
export interface WatcherOptions {
  readonly network: NetworkDefinition;
  /** The configured providers of this chain and network, with failover, timeouts and metrics. */
  readonly providers: ProviderPool;
}
