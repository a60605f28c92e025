import type { AccountTreasury, ChainId, ChainTreasury } from '@gw/kernel';

/**
 * What the treasury reads of the watchers (issue 35): every output paid to a pool address, whether
 * and by what it was spent, and the treasury of each watched network (built over the watcher's own
 * providers). Exported in `WATCHERS_EXPORTS` as `watchersOutputs`.
 *
 * An output is a row of `watchers_transfers` on a UTXO chain (btc, ltc, ada); on account chains a
 * transfer is a receipt, not a spendable output, and issue 36 reads balances differently.
 * "Spent" comes from the blocks the scanner read (`ScannedBlock.spends`): the gateway's own sweeps
 * and anything the operator spent from their own wallet alike. A reorg that drops the spending
 * block makes the output unspent again.
 *
 * "Confirmed" (issue 40) is in a block and, on a network watched with a quorum above 1, attested:
 * reported in that block by the quorum of independent providers, or accepted by the operator over
 * a disagreement. An output one provider reported and the others have not (yet) is never
 * confirmed, so no sweep spends what a lying provider invented.
 */
export interface ReceivedOutputs {
  /**
   * Outputs matching `query`, oldest first, keyset-paged by id. Reverted transfers are never
   * listed; spent ones only with `spent: 'any' | 'spent'`.
   */
  list(query: OutputQuery): Promise<{ outputs: ReceivedOutput[]; next: string | null }>;
  /** The outputs named, in any state, reverted ones too (missing ones are absent): a plan re-checks its inputs with it. */
  byOutpoints(chain: ChainId, network: string, outpoints: readonly Outpoint[]): Promise<ReceivedOutput[]>;
  /**
   * Unspent value summed per group, for the balances page: per address (with its project), per
   * project, or per chain network and coin. Confirmed and unconfirmed are summed apart. Rows come
   * in the order of their group key (chain, network, then address or project, then coin), paged
   * by an opaque cursor. Ask it about UTXO chains: on an account chain no transfer is ever marked
   * spent, so its sums are what was received, not what is held.
   */
  balances(query: BalanceQuery): Promise<{ rows: BalanceRow[]; next: string | null }>;
  /** The treasury of a watched network; undefined when the network is not watched or the chain has no treasury. */
  treasuryOf(chain: ChainId, network: string): ChainTreasury | undefined;
  /**
   * The account-chain treasury of a watched network (issue 36: EVM, TRON, TON), built from the
   * adapter's `createAccountTreasury` over the watcher's own providers; undefined when the network
   * is not watched or the chain has none.
   */
  accountTreasuryOf(chain: ChainId, network: string): AccountTreasury | undefined;
  /** The tip the scanner last saw (for confirmations of outputs); null before its first pass. */
  headHeight(chain: ChainId, network: string): Promise<number | null>;
}

export interface Outpoint {
  readonly txHash: string;
  readonly outputIndex: number;
}

export interface ReceivedOutput extends Outpoint {
  /** The transfer's id in `watchers_transfers`. */
  readonly id: string;
  readonly chain: ChainId;
  readonly network: string;
  readonly coin: string;
  readonly projectId: string;
  readonly address: string;
  /** The address pool's id of the address (its wallet and derivation index come from address-pool). */
  readonly poolAddressId: string;
  readonly amountUnits: bigint;
  /** Null while in the mempool. */
  readonly blockHeight: number | null;
  /**
   * `mempool`, `in_block`, or `reverted` (its block was reorganised away and it was not mined again;
   * only `byOutpoints` answers such an output, so a plan sees that its input is gone).
   */
  readonly status: 'mempool' | 'in_block' | 'reverted';
  /**
   * Under which rule an in-block output counts (issue 40): `single` (the network's quorum is 1),
   * `quorum` (that many providers of different operators reported it in its block), `operator`
   * (the operator accepted it over a disagreement between providers); null in the mempool, once
   * reverted, and while it waits for the providers' quorum.
   */
  readonly attestation: 'single' | 'quorum' | 'operator' | null;
  /**
   * In a block and, on a network whose quorum is above 1, attested: what the treasury may spend.
   * False for an output in a block the quorum has not attested (yet).
   */
  readonly confirmed: boolean;
  /** The invoice it counts for; null for an orphan. */
  readonly invoiceId: string | null;
  /** `invoice | late | orphan | ambiguous` (how matching took it). */
  readonly match: string;
  readonly receivedAt: Date;
  /** The transaction that spent it and the height of its block; null while unspent. */
  readonly spentBy: string | null;
  readonly spentHeight: number | null;
}

export interface OutputQuery {
  readonly chain: ChainId;
  readonly network: string;
  readonly projectId?: string;
  readonly invoiceIds?: readonly string[];
  readonly addresses?: readonly string[];
  /** Only outputs received at or before this time. */
  readonly receivedBefore?: Date;
  /** Only outputs worth at least this many base units. */
  readonly minUnits?: bigint;
  /** Default `unspent`. */
  readonly spent?: 'unspent' | 'spent' | 'any';
  /** Only confirmed outputs (`ReceivedOutput.confirmed`: in a block and, where the quorum is above 1, attested; default false: any). */
  readonly confirmedOnly?: boolean;
  /** Only outputs in a block, attested or not (default false): reconciliation compares the record with the chain as a provider sees it. */
  readonly inBlockOnly?: boolean;
  readonly limit: number;
  readonly after?: string;
}

export interface BalanceQuery {
  readonly groupBy: 'address' | 'project' | 'network';
  readonly chain?: ChainId;
  readonly network?: string;
  readonly projectId?: string;
  /** Only these projects (a caller that reaches some projects only): one grouped read over all of them. */
  readonly projectIds?: readonly string[];
  readonly limit: number;
  readonly after?: string;
}

export interface BalanceRow {
  readonly chain: ChainId;
  readonly network: string;
  readonly coin: string;
  /** Set when grouped by address or project. */
  readonly projectId?: string;
  /** Set when grouped by address. */
  readonly address?: string;
  /** Unspent value of confirmed outputs (`ReceivedOutput.confirmed`). */
  readonly confirmedUnits: bigint;
  /** Unspent value of the others: in the mempool, or in a block and waiting for the providers' quorum. */
  readonly unconfirmedUnits: bigint;
  readonly outputs: number;
  /** Unspent value of orphans and late payments among them (money that belongs to no paid invoice). */
  readonly unclaimedUnits: bigint;
}
