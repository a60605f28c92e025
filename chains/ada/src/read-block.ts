/**
 * A Cardano block as the watcher read it from one provider, before the watched-address filter:
 * the same shape whichever API answered (Blockfrost or Koios), so one piece of code turns it into
 * transfers and spends.
 */

/** A block's header: what `ScannedBlock` needs besides its transactions. */
export interface BlockHeader {
  readonly height: number;
  readonly hash: string;
  readonly previousBlock: string;
  /** Unix seconds. */
  readonly time: number;
  readonly txCount: number;
}

/** One transaction output that carries lovelace. */
export interface TxOutput {
  /** In `deriveAdaAddress`'s form (see `normaliseAdaAddress`). */
  readonly address: string;
  readonly outputIndex: number;
  readonly lovelace: bigint;
}

/** One input of a transaction: the output it consumes, if the transaction is applied as its validity says. */
export interface TxInput {
  /** The consumed output's address, in `deriveAdaAddress`'s form. */
  readonly address: string;
  readonly txHash: string;
  readonly outputIndex: number;
  /**
   * A collateral input: consumed only when the transaction failed its scripts
   * (`valid_contract: false`), when the regular inputs are not.
   */
  readonly collateral: boolean;
}

/** What a transaction moved, reduced to what payments and spends need. */
export interface TxMoves {
  /** Address of the first spent (non-collateral, non-reference) input: the payer's wallet. */
  readonly fromAddress?: string;
  /** Regular and collateral inputs; reference inputs (CIP-31) are read, never consumed, and left out. */
  readonly inputs: readonly TxInput[];
  /** Outputs holding lovelace; collateral-return outputs are never among them. */
  readonly outputs: readonly TxOutput[];
}

export interface ReadTx {
  readonly hash: string;
  readonly moves: TxMoves;
  /**
   * Whether its scripts passed (`valid_contract`), when the provider's answer already said so
   * (Koios); undefined when it still has to be asked (Blockfrost's `/txs/{hash}`).
   */
  readonly valid?: boolean;
}

export interface ReadBlock {
  readonly block: BlockHeader;
  /** In block order. */
  readonly txs: readonly ReadTx[];
}
