/**
 * A payer's signed EIP-3009 `TransferWithAuthorization` (issue 41: x402's `exact` scheme on EVM):
 * the payer signs it off chain, anyone may submit it; the token moves `value` from `from` to `to`.
 * Amounts and times are bigint (base units; Unix seconds); `nonce` is 0x and 64 hex digits.
 */
export interface TransferAuthorization {
  readonly from: string;
  readonly to: string;
  readonly value: bigint;
  readonly validAfter: bigint;
  readonly validBefore: bigint;
  readonly nonce: string;
}

/** A {@link TransferAuthorization} as JSON carries it (EIP-712 `eth_signTypedData_v4`, x402): every number a decimal string. */
export type TransferAuthorizationJson = { readonly [Field in keyof TransferAuthorization]: string };

/** A token's EIP-712 domain, as its `DOMAIN_SEPARATOR()` is built (read from the chain, never assumed). */
export interface AuthorizationDomain {
  readonly name: string;
  readonly version: string;
  readonly chainId: bigint;
  readonly verifyingContract: string;
}

/** What the chain says of one authorization now (read in one batch). */
export interface AuthorizationInspection {
  /**
   * `authorizationState(from, nonce)`: the nonce was used (or cancelled) on chain. When the
   * simulation failed, the state read after it: a submission of the authorization that landed
   * while the batch was read shows here, not only as the failed simulation.
   */
  readonly nonceUsed: boolean;
  /** The payer's balance of the token, base units. */
  readonly balanceUnits: bigint;
  /**
   * An `eth_call` of the submission from `submitter` at the latest block: ok with the gas it used,
   * or the revert reason (text as the node gave it).
   */
  readonly simulation: { readonly ok: true; readonly gasUnits: bigint } | { readonly ok: false; readonly reason: string };
}

/** The submission of an authorization, unsigned, as the gas payer is to sign it. */
export interface SettlementTransaction {
  /** The unsigned transaction in the chain's wire form (EVM: serialized EIP-1559 transaction, hex). */
  readonly unsigned: string;
  /** Its hash once signed is unknown here; what it may cost at most: gas limit × max fee per gas, native base units. */
  readonly maxSpendUnits: bigint;
  readonly gasLimit: bigint;
  readonly nonce: bigint;
}

/** A mined settlement. */
export interface SettlementReceipt {
  readonly success: boolean;
  readonly blockNumber: bigint;
  /** Whether the receipt carries the token's `Transfer(from, to, value)` of the authorization. */
  readonly transferLogged: boolean;
}

/**
 * EIP-3009 authorized transfers of a network's tokens (issue 41): what x402's `exact` scheme needs
 * of a chain to verify a payer's authorization and settle it. Present on `AccountTreasury` of EVM
 * networks; reads go through the providers the watchers configured. The gas payer's key never
 * reaches the chain package: it signs `settlement(...).unsigned` elsewhere and hands back the signed
 * transaction to `send`.
 */
export interface AuthorizedTransfers {
  /**
   * The EIP-712 domain of `coin`'s token on this network when the token implements EIP-3009 as
   * USDC does (its typehash constant, `authorizationState`, and a `DOMAIN_SEPARATOR()` that is its
   * name, version, chain id and address); undefined for a native coin, a coin without a contract
   * here, or a token without EIP-3009. Read from the chain once per process (immutable).
   */
  domain(coin: string): Promise<AuthorizationDomain | undefined>;

  /**
   * The address whose key signed `authorization` under `domain` (EIP-712 recovery of a 65-byte
   * ECDSA signature, hex); null when the signature is malformed or does not recover. Pure.
   */
  signer(domain: AuthorizationDomain, authorization: TransferAuthorization, signature: string): string | null;

  /** Nonce state, payer balance and a simulation of the submission from `submitter` (one batch of reads). */
  inspect(domain: AuthorizationDomain, authorization: TransferAuthorization, signature: string, submitter: string): Promise<AuthorizationInspection>;

  /**
   * The submission `transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, v, r, s)`
   * to the token from `submitter` at `nonce`, with this network's fees now and a gas limit from
   * `gasUnits` (a simulation's) with a margin.
   */
  settlement(
    domain: AuthorizationDomain,
    authorization: TransferAuthorization,
    signature: string,
    submitter: { readonly address: string; readonly nonce: bigint; readonly gasUnits: bigint },
  ): Promise<SettlementTransaction>;

  /** The account's next nonce, pending transactions counted. */
  pendingNonce(address: string): Promise<bigint>;

  /** The account's next nonce counting mined transactions only: every nonce below it is used for good. */
  minedNonce(address: string): Promise<bigint>;

  /** Whether the node knows the transaction (in its pool, or mined); false for one it dropped or never had. */
  transactionKnown(txHash: string): Promise<boolean>;

  /** The native coin an address holds (the gas payer's balance), base units. */
  nativeBalance(address: string): Promise<bigint>;

  /** Sends a signed transaction (the chain's wire form); resolves with its hash. A transaction the provider already has resolves too. */
  send(signed: string): Promise<string>;

  /** The receipt of a sent settlement; null until it is mined. */
  receipt(txHash: string, authorization: TransferAuthorization, domain: AuthorizationDomain): Promise<SettlementReceipt | null>;
}
