import type { AccountKey, DerivedAddress, KeyOrigin } from '../account-key.js';
import type { NetworkDefinition } from '../network.js';

export type { KeyOrigin } from '../account-key.js';

/**
 * The treasury side of a chain (issue 35): what the gateway needs to move money it received without
 * ever holding a key. The gateway builds an unsigned transaction (a plan), somebody signs it
 * elsewhere (a hardware wallet, Sparrow, or `gateway-signer`), and the gateway checks that the
 * signed transaction is exactly the plan before it broadcasts it.
 *
 * An adapter offers it through `createTreasury` exactly when `definition.capabilities.treasury` is
 * set. Everything here is in base units (bigint); fee rates are base units per the chain's size unit
 * (`sizeUnit`: virtual bytes for Bitcoin and Litecoin, bytes for Cardano).
 *
 * Building and verifying are pure (no I/O, no database); fee estimates, broadcast, transaction
 * status and reconciliation go through the providers the watchers configured for the network.
 */
export interface ChainTreasury {
  /** The network this treasury serves. */
  readonly network: NetworkDefinition;
  /** The unit a fee rate is per: `vbyte` (BTC, LTC), `byte` (ADA). */
  readonly sizeUnit: 'vbyte' | 'byte';
  /** The format of the unsigned transactions `build` makes. */
  readonly unsignedFormat: UnsignedFormat;

  /** The providers' fee estimate (Core `estimatesmartfee`, Esplora `/fee-estimates`, Cardano protocol parameters). */
  feeEstimate(): Promise<FeeEstimate>;

  /**
   * Builds an unsigned transaction spending exactly `request.inputs` (in that order) to
   * `request.outputs` (in that order; the one output without an amount takes what is left after the
   * fee). Throws `treasuryChainErrors.*` for a plan that cannot be built: an output below the
   * chain's dust limit, inputs that do not cover the outputs and the fee, a destination on another
   * network.
   *
   * Call `feeEstimate()` on the same instance first: a chain whose transactions depend on chain
   * state takes it from the last estimate (Cardano: the protocol parameters and the tip's slot for
   * the TTL), and its `build` throws `validation_error` ("call feeEstimate() first") without one.
   * A request of the wrong shape (a number where a bigint belongs, an index out of range, a key of
   * another chain) is `validation_error` too. An input whose `assets` lists native tokens is
   * `treasury_input_holds_tokens` on a chain whose plans carry its coin only (Cardano).
   */
  build(request: BuildRequest): UnsignedTransaction;

  /**
   * Checks that `signed` (a signed PSBT, a raw transaction in hex, a signed Cardano transaction; any
   * form `acceptedSignedFormats` names) is exactly `unsigned`: the same inputs, the same outputs and
   * amounts, hence the same fee, and that every input carries a valid signature by the key the plan
   * names for it. Returns the transaction to broadcast. Throws `treasuryChainErrors.signed_mismatch`
   * naming the first difference, `signed_incomplete` when a signature is missing. A plan of
   * another format, or not of this treasury's shape, is `validation_error` (never a plain Error).
   */
  verifySigned(unsigned: UnsignedTransaction, signed: string): VerifiedTransaction;

  /** Sends a verified transaction through the providers; resolves with its id. Idempotent: a transaction the provider already has resolves too. */
  broadcast(tx: VerifiedTransaction): Promise<string>;

  /** Where a transaction stands on the provider's chain; null when the provider does not know it (dropped, or never seen). */
  transaction(txid: string): Promise<TransactionState | null>;

  /** The unspent outputs the provider sees at each address (reconciliation); addresses without any are absent from the map. */
  unspentAt(addresses: readonly string[]): Promise<Map<string, ProviderOutput[]>>;

  /**
   * Address `index` of the account's change chain (branch 1; `m/84'/1'/0'/1/<index>`): where a plan
   * gathers money to the same account. Pure. The signer derives it again from the seed before it
   * calls the output own.
   */
  changeAddress(key: AccountKey, index: number): DerivedAddress;

  /**
   * The raw transactions (hex) with these ids, from the providers, by id: what a plan sets as each
   * input's {@link SpendInput.previousTransaction}. Ids the provider does not know are absent from
   * the map; each answer is checked to hash to its id. Bitcoin and Litecoin: Esplora
   * `GET /tx/:txid/hex`, a node's `getrawtransaction txid false` (Bitcoin Core and Litecoin Core
   * find confirmed transactions only with `-txindex=1`, bcoin with `index-tx`: without it the
   * answer is a provider error, never "unknown"). Cardano answers an empty map: its plans need no
   * previous transaction (see {@link SpendInput.previousTransaction}).
   */
  rawTransactions(txids: readonly string[]): Promise<Map<string, string>>;

  /** What spending one input costs at `feeRate`, in base units: an output worth less is not worth moving (`dust`). */
  inputCost(feeRate: bigint): bigint;
}

/** Formats of unsigned transactions. */
export type UnsignedFormat = 'psbt' | 'cardano-tx';

/** Fee rates in base units per size unit. */
export interface FeeEstimate {
  /** To confirm in the next block. */
  readonly nextBlock: bigint;
  /** To confirm within about an hour (6 blocks on Bitcoin). */
  readonly hour: bigint;
  /** The lowest rate the provider relays. */
  readonly minimum: bigint;
}

/** An output the gateway received, with what is needed to sign for it. */
export interface SpendInput {
  readonly txHash: string;
  readonly outputIndex: number;
  readonly address: string;
  readonly amountUnits: bigint;
  /** The account key that derived `address` (its wallet). */
  readonly key: AccountKey;
  /** The key origin when the wallet was registered with one (`[fingerprint/84'/0'/0']xpub`). */
  readonly origin?: KeyOrigin;
  /** `0` receive chain, `1` change chain. */
  readonly branch: 0 | 1;
  /** Address index on the branch. */
  readonly index: number;
  /**
   * Native tokens the output holds besides `amountUnits` (Cardano multi-assets), as
   * {@link ProviderOutput.assets} reports them: the watchers record the coin only, so a plan that
   * spends Cardano outputs copies this from `unspentAt` of the inputs' addresses. A Cardano `build`
   * refuses an input listing any (`treasury_input_holds_tokens`); absent means none known, and an
   * input that did hold tokens then makes a transaction the node refuses at broadcast
   * (`treasury_broadcast_rejected`, value not conserved).
   */
  readonly assets?: readonly NativeAsset[];
  /**
   * The raw transaction (hex) that created this output, from {@link ChainTreasury.rawTransactions}.
   * Bitcoin and Litecoin: the PSBT carries it as the input's `nonWitnessUtxo`, which hardware
   * wallets and `gateway-signer` require: a segwit v0 signature commits to its own input's amount
   * only, so a plan that understated another input's amount in each of two signing sessions would
   * have the two signatures combine into a transaction paying a fee nobody was shown (the
   * input-amount attack); the previous transaction proves every amount. `build` checks that it
   * hashes to `txHash` and that its output `outputIndex` pays `amountUnits` to `address`
   * (`validation_error` otherwise). Optional in the contract, but a plan without it is refused by
   * `gateway-signer` and by hardware wallets. Cardano ignores it: a Cardano body states its fee
   * explicitly and the ledger requires inputs = outputs + fee, so a signature over the body fixes
   * the fee whatever the inputs were said to hold (a wrong amount makes an invalid transaction, not
   * a larger fee).
   */
  readonly previousTransaction?: string;
  /**
   * BIP 125 sequence to set (RBF is signalled by default). A CPFP child and a replacement keep the
   * default too; set only to reproduce an existing transaction's input.
   */
  readonly sequence?: number;
}

/** An output of a plan. */
export interface PlanOutput {
  readonly address: string;
  /** Absent for the one output that takes the rest (inputs minus the other outputs and the fee). */
  readonly amountUnits?: bigint;
  /**
   * When the output pays an address of the same account (its change chain), where: the signer
   * checks the address really derives from the seed there. Absent: an external address, which the
   * signer shows loudly as external.
   */
  readonly own?: { readonly branch: 0 | 1; readonly index: number };
}

export interface BuildRequest {
  readonly inputs: readonly SpendInput[];
  readonly outputs: readonly PlanOutput[];
  /** Base units per size unit. */
  readonly feeRate: bigint;
  /**
   * An absolute fee to pay instead of `feeRate` × size (a CPFP child pays for its parent too; a
   * replacement must pay more than the transaction it replaces). At least `feeRate` × size.
   */
  readonly feeUnits?: bigint;
}

/** An unsigned transaction and what it does, as the plan file carries it. */
export interface UnsignedTransaction {
  readonly format: UnsignedFormat;
  /** PSBT in base64; Cardano transaction CBOR in hex. */
  readonly data: string;
  /** The transaction id it will have once signed (segwit and Cardano ids do not cover signatures). */
  readonly txid: string;
  /** Size in `sizeUnit`s once signed (estimated for witnesses). */
  readonly size: number;
  readonly feeUnits: bigint;
  readonly inputs: readonly SpendInput[];
  /** Every output, with its amount. */
  readonly outputs: readonly (PlanOutput & { readonly amountUnits: bigint })[];
}

export interface VerifiedTransaction {
  readonly txid: string;
  /** The complete signed transaction, hex. */
  readonly hex: string;
}

export interface TransactionState {
  readonly txid: string;
  /** 0 while in the mempool. */
  readonly confirmations: number;
  readonly blockHeight: number | null;
  readonly blockHash: string | null;
  /** Fee and size where the provider tells them (CPFP needs the parent's). */
  readonly feeUnits?: bigint;
  readonly size?: number;
  /**
   * Account chains (issue 36): the transaction is in a block but failed (an EVM receipt's status 0:
   * a reverted sweep submission moved nothing, though its fee was paid). Absent where the chain has
   * no such state (UTXO chains) or the provider does not tell.
   */
  readonly reverted?: boolean;
}

/** An unspent output as a provider reports it. */
export interface ProviderOutput {
  readonly txHash: string;
  readonly outputIndex: number;
  readonly amountUnits: bigint;
  /** Null while unconfirmed. */
  readonly blockHeight: number | null;
  /** Native tokens the output holds besides `amountUnits` (Cardano); absent on chains without them, empty when it holds none. */
  readonly assets?: readonly NativeAsset[];
}

/** A native token held in an output (Cardano): which token, and how many of it. */
export interface NativeAsset {
  /** Policy id (56 hex digits) followed by the asset name (0 to 64 hex digits): Blockfrost's `unit`. */
  readonly unit: string;
  /** In the token's own base units. */
  readonly quantity: bigint;
}
