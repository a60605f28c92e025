import type { AccountPlanMethod } from './account-plan-methods.js';
import type { AccountStep, AccountUnsignedFormat } from './account-treasury.js';

/**
 * The files that carry an account-chain plan's steps to a signer and the signatures back (issue 36).
 * JSON, amounts as decimal strings. One file per signing round: round 2 (the gas address's
 * submission of round-1 authorizations) is a second file made once round 1 is verified.
 *
 * The signer trusts nothing in the summary: it decodes each step's `unsigned` itself (recipient,
 * value, token transfer, chain id, nonce, delegate contract), checks it agrees with the summary,
 * and derives every signer address from the seed at the step's path before it signs.
 */
export interface AccountPlanFile {
  readonly format: 'gateway-treasury-account-plan';
  readonly version: 1;
  readonly plan_id: string;
  readonly chain: string;
  readonly network: string;
  /** EVM chain id (EIP-155), for the signer to check each transaction against. */
  readonly evm_chain_id: number | null;
  readonly coin: string;
  readonly method: AccountPlanMethod;
  readonly round: 1 | 2;
  readonly destination: string;
  /**
   * EVM `eip7702` plans: the sweeper contract every authorization must delegate to (the signer
   * refuses any other delegate); `sweeper_deployment` plans: the address the deployed contract will
   * have. From the plan's `context.sweeper`; absent (or null) otherwise.
   */
  readonly sweeper_contract?: string | null;
  /** Total moved, in the coin's base units; total fees in native base units. */
  readonly moved_units: string;
  readonly fee_units: string;
  readonly steps: readonly AccountPlanFileStep[];
  /** ISO 8601. */
  readonly created_at: string;
}

export interface AccountPlanFileStep {
  readonly id: string;
  readonly stage: number;
  readonly kind: 'transaction' | 'authorization';
  readonly description: string;
  /** Who signs: the deposit address at its path, or the operator's account at its path. */
  readonly signer: {
    readonly kind: 'deposit' | 'operator';
    readonly role?: 'gas' | 'funding' | 'staking' | 'nonce';
    readonly address: string;
    readonly path: string;
  };
  readonly unsigned: { readonly format: AccountUnsignedFormat; readonly data: string };
  readonly nonce: string | null;
  readonly to: string;
  /** By coin id, base units. */
  readonly moves: Readonly<Record<string, string>>;
  readonly fee_units: string;
}

/**
 * What a signer gives back for one round: each step's signed form (see `AccountTreasury.verifySigned`),
 * in the plan's step order, by step id. The signed form of each unsigned format, as `gateway-signer`
 * writes it (packages/signer/README.md, "Signed forms"):
 *
 * - `evm-tx`: the signed transaction, serialized (`0x02…` EIP-1559, `0x04…` EIP-7702), lower-case hex
 *   with `0x`: the unsigned transaction byte for byte with the signature over its `unsignedHash`
 *   (ethers `Transaction.serialized`). What `eth_sendRawTransaction` takes.
 * - `evm-7702-authorization`: the 65-byte signature `0x` ‖ r ‖ s ‖ v (v = 27 + y parity) over
 *   keccak256(0x05 ‖ rlp([chainId, address, nonce])), the values of the step's JSON.
 * - `evm-3009-authorization`: the 65-byte signature `0x` ‖ r ‖ s ‖ v (v = 27 + y parity) over the
 *   EIP-712 hash of the step's typed data (`TransferWithAuthorization`; `EIP712Domain` in `types` is
 *   not part of the hash's struct types); split into v, r, s for `transferWithAuthorization`.
 * - `tron-tx`: TRON's signed transaction JSON (compact): the step's transaction JSON as given, with
 *   `signature: ["<r ‖ s ‖ v hex, 65 bytes, lower case, no 0x; v = 27 + recovery id>"]` over `txID`
 *   (the SHA-256 of `raw_data_hex`). What `broadcasttransaction` takes.
 * - `ton-external`: the external-in message to the subwallet's V5R1 address, a BOC of one root cell in
 *   base64 (standard alphabet, with padding): body = the signing payload's bits and refs followed by
 *   the 512-bit ed25519 signature of the payload cell's hash (V5R1 signs at the tail), `init` = the
 *   wallet's state init (V5R1 code, data with seqno 0, the wallet id and the public key) when the
 *   payload's seqno is 0, absent otherwise. What `sendBoc` takes.
 *
 * - `sol-tx`: the Solana wire transaction in base64 (standard alphabet, with padding): the compact-u16
 *   count 1, the 64-byte ed25519 signature of the message bytes by the step's signer (the fee payer,
 *   the message's only signer), then the message bytes exactly as the step's data gives them. What
 *   `sendTransaction` takes (encoding base64); its signature in base58 is the transaction id.
 *
 * The unsigned `sol-tx` data is JSON: `{"message": "<base64>", "lifetime": "blockhash",
 * "last_valid_block_height": "<decimal>"}` or `{"message": "<base64>", "lifetime": "nonce",
 * "nonce_account": "<base58>"}`; `message` is the serialized legacy transaction message, the bytes
 * signed (chains/sol/src/treasury/step-data.ts; docs/adr/0015-solana-offline-signing-blockhash.md).
 *
 * The unsigned `ton-external` data is the V5R1 signing payload (`auth_signed_external` op, wallet id,
 * valid until, seqno, out actions, no extended actions) as a BOC in base64, or JSON
 * `{"payload": "<BOC base64>", "subwallet": n}`; the subwallet is the signer path's last component and
 * must agree with the payload's wallet id. Other fields of that JSON (TonTreasury's `TonStepData`: the
 * wallet, its public key, seqno, state init) are the gateway's own; the signer derives them itself.
 */
export interface AccountSignedFile {
  readonly format: 'gateway-treasury-account-signed';
  readonly version: 1;
  readonly plan_id: string;
  readonly chain: string;
  readonly network: string;
  readonly round: 1 | 2;
  readonly signed: readonly { readonly id: string; readonly signed: string }[];
}

/** A plan step as its file carries it: the signer's account, amounts as decimal strings. Pure. */
export function accountPlanFileStep(step: AccountStep): AccountPlanFileStep {
  const { signer } = step;
  return {
    id: step.id,
    stage: step.stage,
    kind: step.kind,
    description: step.description,
    signer:
      signer.kind === 'deposit'
        ? { kind: 'deposit', address: signer.address, path: signer.path }
        : { kind: 'operator', role: signer.account.role, address: signer.account.address, path: signer.account.path },
    unsigned: { format: step.unsigned.format, data: step.unsigned.data },
    nonce: step.nonce === null ? null : step.nonce.toString(),
    to: step.to,
    moves: Object.fromEntries(Object.entries(step.moves).map(([coin, units]) => [coin, units.toString()])),
    fee_units: step.feeUnits.toString(),
  };
}

/** What a plan's file is made of besides its steps. */
export interface AccountPlanFileHeader {
  readonly planId: string;
  readonly chain: string;
  readonly network: string;
  readonly coin: string;
  readonly method: AccountPlanMethod;
  readonly round: 1 | 2;
  readonly destination: string;
  readonly movedUnits: bigint;
  readonly feeUnits: bigint;
  /** The plan's `AccountPlanBuild.context`: its `chainId` (EVM) becomes `evm_chain_id`, its `sweeper` (EVM) `sweeper_contract`. */
  readonly context: Readonly<Record<string, string | number | boolean>>;
  readonly createdAt: Date;
}

/**
 * The file of one signing round: `steps` are the round's steps that a signer signs offline (the
 * plugin leaves out those its hot gas wallet signs), in the plan's order. Pure.
 */
export function accountPlanFile(header: AccountPlanFileHeader, steps: readonly AccountStep[]): AccountPlanFile {
  const chainId = header.context['chainId'];
  return {
    format: 'gateway-treasury-account-plan',
    version: 1,
    plan_id: header.planId,
    chain: header.chain,
    network: header.network,
    evm_chain_id: typeof chainId === 'number' ? chainId : typeof chainId === 'string' && /^[0-9]+$/.test(chainId) ? Number(chainId) : null,
    coin: header.coin,
    method: header.method,
    round: header.round,
    destination: header.destination,
    ...(typeof header.context['sweeper'] === 'string' && header.context['sweeper'] ? { sweeper_contract: header.context['sweeper'] } : {}),
    moved_units: header.movedUnits.toString(),
    fee_units: header.feeUnits.toString(),
    steps: steps.map(accountPlanFileStep),
    created_at: header.createdAt.toISOString(),
  };
}
