import type { ChainId, CoinId } from '../network.js';

/**
 * One receipt of a chain's coin at an address, as every chain's watcher reports it (the
 * architecture's one observation type). Matching and the orphan inbox consume it without knowing
 * the chain.
 *
 * Identity: (chain, network, `txHash`, `outputIndex`) names exactly one transfer; the watchers
 * store it under that key, so a transfer seen twice (a rescan, a second provider) counts once.
 * `outputIndex` per chain:
 * - btc, ada: the output's index in the transaction (`vout`);
 * - eth, polygon, bsc, tron: 0 for the native value of the transaction, the log's index within the
 *   block plus one for a token `Transfer` log (so both kinds in one transaction stay distinct);
 * - ton: 0 (every incoming message is its own transaction; a jetton transfer is observed as the
 *   owner's incoming `transfer_notification`).
 */
export interface ObservedTransfer {
  readonly chain: ChainId;
  /** Network id of the chain definition (`bitcoin`, `sepolia`, `nile`, ...). */
  readonly network: string;
  readonly coin: CoinId;
  /** The transaction hash in the chain's usual text form (EVM `0x` hex, TON base64url or hex as the provider gives it). */
  readonly txHash: string;
  readonly outputIndex: number;
  /** The receiving address in the form the chain's adapter derives (checksummed EVM, base58 TRON, bech32, TON friendly). */
  readonly toAddress: string;
  readonly fromAddress?: string;
  /** Base units; never a JavaScript number. */
  readonly amountUnits: bigint;
  /** Null while the transfer is only in the mempool (BTC). */
  readonly blockHeight: number | null;
  readonly blockHash: string | null;
  /** Block time, or first-seen time for a mempool transfer. */
  readonly observedAt: Date;
  /** Text comment carried with the payment (TON), matched against an invoice's `payment_token`. */
  readonly memo?: string;
  /**
   * Chains with `capabilities.paymentReferences`: the references the transfer carries (Solana Pay:
   * the accounts the payer's wallet appended to the transfer instruction), in their order there,
   * each in the form `newPaymentReference` gives. Matching picks the invoice whose
   * `payment_reference` is one of them. Absent or empty: the transfer carries none (an exchange
   * withdrawal), and only an exact, unique amount can match it.
   */
  readonly references?: readonly string[];
}

/** A scanned block: its identity, for reorg detection, and the transfers it holds. */
export interface ScannedBlock {
  readonly height: number;
  readonly hash: string;
  /** Hash of the block before it; a stored hash that differs at `height - 1` means a reorg. */
  readonly parentHash: string;
  readonly time: Date;
  readonly transfers: readonly ObservedTransfer[];
  /**
   * UTXO chains (btc, ltc, ada): every output the block's transactions spend, whoever's it is (a
   * Bitcoin input does not name the address it spends from, so the watcher cannot tell which outputs
   * are the gateway's; the watchers plugin keeps those it recorded). A watcher whose provider names
   * each spent output's address (Cardano's Blockfrost) may report only those at watched addresses.
   * Absent on account chains.
   */
  readonly spends?: readonly SpentOutput[];
}

/** An output spent by a transaction of a block (UTXO chains). */
export interface SpentOutput {
  /** The transaction and output index that was spent. */
  readonly txHash: string;
  readonly outputIndex: number;
  /** The transaction that spent it. */
  readonly spentBy: string;
}

/** The chain's tip as a provider reports it. */
export interface ChainHead {
  readonly height: number;
  /**
   * The highest block the chain itself declares final (EVM `finalized` tag, TRON solidified
   * block), where the network has such a notion. Blocks at or below it are never rescanned for
   * reorgs.
   */
  readonly finalized?: number;
}
