import type { AuthorizedTransfers } from './authorized-transfers.js';
import type { AccountKey } from '../account-key.js';
import type { NetworkDefinition } from '../network.js';
import type { AccountPlanMethod, AccountSweepMethod } from './account-plan-methods.js';
import type { TransactionState, VerifiedTransaction } from './chain-treasury.js';

/**
 * The treasury of an account chain (issue 36: EVM chains, TRON, TON): what the gateway needs to
 * move what pool addresses hold without ever holding a key that can spend it.
 *
 * On an account chain every deposit address is its own account: a token balance cannot move until
 * the address can pay for gas, and on TRON an address must exist on chain first. So a plan here is
 * not one transaction but a set of **steps**, each one thing a key signs:
 *
 * - a transaction from a deposit address (its native balance less the fee; a token transfer);
 * - a transaction from one of the operator's accounts ({@link OperatorAccount}: the gas address
 *   that tops up or submits batches, the TRON funding address that activates, the staking account
 *   that delegates energy);
 * - an authorization a deposit address signs for somebody else to carry (an EIP-7702 delegation,
 *   an EIP-3009 `transferWithAuthorization`).
 *
 * Steps are signed in **rounds**: every step of round 1 is known when the plan is built (nonces,
 * fees and amounts are fixed then) and signed in one sitting. A step that carries round-1
 * signatures (the gas address's transaction that submits 7702 authorizations or 3009 transfers) is
 * round 2: {@link AccountTreasury.continue} builds it from the verified round-1 signatures, and it
 * is signed in a second sitting (or by the operator's opt-in hot gas wallet, which signs only such
 * planned submissions and top-ups).
 *
 * Steps are broadcast in **stages**: every transaction of stage n is confirmed before any of stage
 * n + 1 is sent (top-ups before the token transfers they pay for, a delegation before the transfers
 * that use its energy, its reclaim after them). Before the first broadcast of a plan, the gateway
 * asks {@link AccountTreasury.checkFresh}: a plan any of whose nonces went stale (the account sent
 * something else since) is refused whole, never half-broadcast.
 *
 * Amounts are bigint base units of the coin named; fees of the native coin. Building, continuing
 * and verifying are pure given the chain state the treasury read (`build` and `quote` read it
 * through the providers the watchers configured: balances, nonces, fee prices, energy prices).
 */
export interface AccountTreasury {
  readonly network: NetworkDefinition;
  /** The chain's native coin id (what gas is paid in). */
  readonly nativeCoin: string;

  /**
   * What each address holds on chain now, in every coin of the chain on this network (native and
   * tokens), with what moving each token would cost. EVM reads balances in batches through
   * Multicall3 where it is deployed (`network`'s `multicall3` contract), otherwise one call per
   * address and coin. Addresses come back in the map even when they hold nothing.
   */
  holdings(addresses: readonly string[]): Promise<Map<string, AddressHoldings>>;

  /**
   * Which of these addresses exist on chain (TRON: `getaccount` answers an account). Present only on
   * chains whose `capabilities.requiresActivation` is true; the watchers mark a pool address
   * activated once this answers it, whoever activated it.
   */
  activated?(addresses: readonly string[]): Promise<Set<string>>;

  /** The methods that can move `coin` on this network, cheapest first for a typical balance. */
  methods(coin: string): readonly AccountSweepMethod[];

  /**
   * What each applicable method (or the one asked) would cost to move `request.sources` now: fees
   * in the native coin, gas a method must top up first, and what would be left to the destination.
   * Reads chain state (fee price, balances, nonces).
   */
  quote(request: AccountSweepRequest): Promise<SweepQuote[]>;

  /**
   * Builds the round-1 steps of a sweep of `request.sources` by `request.method` (default: the
   * cheapest the quote finds). Sources worth less than moving them costs are left out and reported in
   * `skipped`. Throws `treasury_method_unavailable` for a method this coin or network cannot use
   * (EIP-7702 where the chain has not activated it, EIP-3009 for a token without it),
   * `treasury_operator_account_missing` when the method needs an operator account not configured,
   * `treasury_nothing_to_move` (by the plugin) / `treasury_insufficient_value` when nothing covers its
   * cost, and `validation_error` for a request of the wrong shape.
   */
  build(request: AccountSweepRequest): Promise<AccountPlanBuild>;

  /**
   * TRON: a plan that activates `addresses` by sending each the chain's activation amount of TRX
   * from the funding account, signed offline in one batch (one round, one stage). Present only where
   * `activated` is.
   */
  buildActivation?(request: ActivationRequest): Promise<AccountPlanBuild>;

  /**
   * EVM: a plan of one step that deploys the EIP-7702 token sweeper for `request.destination` from
   * the operator's gas account (a contract creation, round 1, stage 0, signed offline like every
   * step). Its `context.sweeper` is the address the contract will have (the CREATE address of the
   * gas account and its nonce); once the transaction is mined, that is the sweeper to give
   * `eip7702` plans for this destination. Throws `treasury_operator_account_missing` without a gas
   * account, `treasury_method_unavailable` where the chain has no EIP-7702, `validation_error` for a
   * destination that is no address of the chain.
   */
  buildSweeperDeployment?(request: SweeperDeploymentRequest): Promise<AccountPlanBuild>;

  /**
   * A payout plan (issue 37: refunds and payouts): one transfer per recipient of `request.coin`
   * from `request.from` (the operator's `funding` account, or a pool address that holds the coin),
   * in one round and one stage, nonces consecutive from the account's current nonce (TON: one
   * external message per recipient, seqnos consecutive, each in a stage of its own since a wallet
   * accepts only the external of its current seqno; TRON: one transaction each). The plan's
   * `destination` is the recipients' addresses, comma-separated, each once. The sender pays
   * every fee in the native coin: a plan whose sender lacks the amounts or the fees is refused with
   * `treasury_insufficient_value` (details: `coin`, `needed_units`, `held_units`). Each step's
   * `moves` is exactly its recipient's amount and its `to` the recipient's address (a token transfer's
   * `to` is the recipient, not the token contract; the description names both). `context` carries
   * `recipients` as JSON text (`[{"reference","address","units"}]`, in request order) so a signer
   * can show them. Throws `treasury_wrong_network` for a recipient address that is no address of
   * the chain on this network, `validation_error` for a zero amount or an empty list, and `treasury_operator_account_missing`
   * when `from` is the funding account and none is configured.
   */
  buildPayout?(request: AccountPayoutRequest): Promise<AccountPlanBuild>;

  /**
   * EVM: true when the code at `contract` on chain now is exactly the token sweeper's runtime for
   * `destination` (the code a `buildSweeperDeployment` plan for it leaves there). A plugin that
   * recorded a sweeper checks this before giving it to an `eip7702` plan. Present where
   * `buildSweeperDeployment` is.
   */
  isSweeperFor?(contract: string, destination: string): Promise<boolean>;

  /**
   * The round-2 steps of a plan, built from its verified round-1 signatures (the 7702 authorizations
   * or 3009 signatures the gas address's submission carries). Pure. Returns `[]` for a plan without
   * a second round.
   */
  continue(build: AccountPlanBuild, signed: readonly VerifiedStep[]): AccountStep[];

  /**
   * Checks that `signed` (a signed transaction in the chain's wire form: hex for EVM, TRON's signed
   * transaction JSON, a TON external message BOC in base64; or a signature for an authorization
   * step) is exactly `step` signed by the key of `step.signer.address`. Returns what to broadcast
   * (transactions) or carry (authorizations). Throws `treasury_signed_mismatch` naming the first
   * difference, `treasury_signed_incomplete` when the signature is missing or by another key,
   * `treasury_signed_unreadable` for text that is no signed item of this chain.
   */
  verifySigned(step: AccountStep, signed: string): VerifiedStep;

  /**
   * Throws `treasury_nonce_stale` when any account of `steps` has moved on since the plan was built
   * (its nonce on chain is past the step's, or its TON seqno is), so a plan is refused whole before
   * its first broadcast. A step already on chain (its transaction known) is not stale: only an
   * account that moved past a step for a reason other than the plan's own transactions makes it
   * stale, so a plan resumed after stage 1 passes. Pass the whole plan (every round), so the
   * authorizations a round-2 submission carries are checked with it (EVM: an EIP-7702 authorization
   * is valid only at exactly its nonce), and every stage still to go is counted (TRON: each needs
   * time before the plan's expiration).
   *
   * `txids`: the transaction id of each step signed so far, by step id (every verified transaction,
   * or at least those already broadcast). Where a step's id depends on its signature (EVM), it is
   * how the chain's copy of the step is found; chains that find their own steps without it (TRON:
   * the id is the hash of the unsigned data; TON: the wallet's recent externals) accept and may
   * ignore it. Without it, an EVM step whose nonce the chain has passed is stale.
   */
  checkFresh(steps: readonly AccountStep[], txids?: ReadonlyMap<string, string>): Promise<void>;

  /** Sends a verified transaction; resolves with its id. Idempotent: a transaction the provider has already resolves too. */
  broadcast(tx: VerifiedTransaction): Promise<string>;

  /** Where a transaction stands; null when the provider does not know it. */
  transaction(txid: string): Promise<TransactionState | null>;

  /** EVM: EIP-3009 authorized transfers of the network's tokens, as x402 settles them (issue 41). */
  readonly authorizedTransfers?: AuthorizedTransfers;
}

/**
 * One of the operator's own accounts, configured in `plugins.treasury.networks.<chain>.<network>`:
 * its address and the path the signer derives its key at from the operator's seed (the signer
 * checks that the path gives the address before it signs).
 */
export interface OperatorAccount {
  /**
   * `nonce` (Solana): a durable nonce account, never a signer itself: its address, and as `path` the
   * path of its authority (the payout's sender, which signs `AdvanceNonceAccount`).
   */
  readonly role: 'gas' | 'funding' | 'staking' | 'nonce';
  readonly address: string;
  /** `m/44'/60'/0'/0/0` (EVM), `m/44'/195'/0'/0/0` (TRON), the subwallet path for TON (`m/44'/607'/0'/<n>'`), Solana `m/44'/501'/<n>'/0'`. */
  readonly path: string;
}

/** A deposit (pool) address a plan spends from, with what derives its key. */
export interface AccountSource {
  readonly address: string;
  readonly key: AccountKey;
  /** Receive index of the address under `key`. */
  readonly index: number;
}

export interface AccountSweepRequest {
  /** The coin to move (native or a token of this chain). */
  readonly coin: string;
  readonly sources: readonly AccountSource[];
  /** Where everything goes: an address of this chain (the operator's cold wallet, an exchange). */
  readonly destination: string;
  /** Absent: the cheapest applicable method. */
  readonly method?: AccountSweepMethod;
  /** The operator accounts configured for this network, by role. */
  readonly operatorAccounts: Readonly<Partial<Record<OperatorAccount['role'], OperatorAccount>>>;
  /**
   * EIP-7702: the deployed sweeper contract for this destination (the plugin keeps one per
   * destination; `eip7702` is unavailable without it). Deployment is a plan of its own, from the
   * gas account: {@link AccountTreasury.buildSweeperDeployment}.
   */
  readonly sweeperContract?: string;
  /** Leave out sources whose balance of `coin` is below this (base units of `coin`). */
  readonly minUnits?: bigint;
}

export interface ActivationRequest {
  readonly addresses: readonly string[];
  readonly operatorAccounts: Readonly<Partial<Record<OperatorAccount['role'], OperatorAccount>>>;
}

/** One recipient of a payout plan. */
export interface PayoutRecipient {
  /** The caller's id of the item paid (a refund or payout id), carried into `context.recipients`. */
  readonly reference: string;
  readonly address: string;
  /** Base units of the plan's coin; positive. */
  readonly units: bigint;
}

/** What `buildPayout` sends and from where. */
export interface AccountPayoutRequest {
  /** A coin of this chain (native or token). */
  readonly coin: string;
  /** The sender: a pool address (signed as a deposit step) or the operator's funding account. */
  readonly from: { readonly kind: 'deposit'; readonly source: AccountSource } | { readonly kind: 'operator'; readonly account: OperatorAccount };
  readonly recipients: readonly PayoutRecipient[];
  readonly operatorAccounts: Readonly<Partial<Record<OperatorAccount['role'], OperatorAccount>>>;
}

export interface SweeperDeploymentRequest {
  /** Where every delegated address's tokens will go; fixed in the contract for good. */
  readonly destination: string;
  readonly operatorAccounts: Readonly<Partial<Record<OperatorAccount['role'], OperatorAccount>>>;
}

/** What one address holds, in every coin of the chain on this network. */
export interface AddressHoldings {
  readonly address: string;
  /** Base units by coin id (native and tokens); 0n where it holds none. */
  readonly balances: Readonly<Record<string, bigint>>;
  /** The account's next nonce (EVM, TRON: none, 0n; TON: the wallet's seqno, 0n when undeployed). */
  readonly nonce: bigint;
  /** Per token coin held: the native coin the address lacks to move it alone, and what moving it costs. */
  readonly tokens: readonly TokenMoveCost[];
  /** Native base units sending its native balance away costs now (its `native` sweep fee), where the chain tells it. */
  readonly nativeMoveCostUnits?: bigint;
}

export interface TokenMoveCost {
  readonly coin: string;
  /** Native base units a transfer of it costs now (gas × price; TRON energy burned + bandwidth). */
  readonly moveCostUnits: bigint;
  /** Native base units the address lacks for that: max(0, cost − native balance). */
  readonly gasLackingUnits: bigint;
  /**
   * Dust: what it holds is worth less than moving it. Tokens and native are compared through the
   * quote's price when one is given; without a price, a token is dust when its balance is zero.
   */
  readonly dust: boolean;
}

/** What a method would cost for a request. */
export interface SweepQuote {
  readonly method: AccountSweepMethod;
  /** False with `reason` when the method cannot be used here (not on this chain, token lacks EIP-3009, no account configured). */
  readonly available: boolean;
  readonly reason?: string;
  /** Sources it would move. */
  readonly sources: number;
  /** The coin moved, in its base units. */
  readonly movedUnits: bigint;
  /** Every fee of the plan, in native base units (top-ups that come back as gas are counted once, as fees). */
  readonly feeUnits: bigint;
  /** Native base units the operator accounts pay (gas address, funding, staking): the part of `feeUnits` not paid from the sources. */
  readonly operatorPaysUnits: bigint;
  /** Steps and signing rounds it takes. */
  readonly steps: number;
  readonly rounds: 1 | 2;
}

/** A built plan: its method, the round-1 steps, what it moves and costs, and what it left out. */
export interface AccountPlanBuild {
  readonly method: AccountPlanMethod;
  readonly coin: string;
  readonly destination: string;
  readonly steps: readonly AccountStep[];
  readonly rounds: 1 | 2;
  readonly movedUnits: bigint;
  readonly feeUnits: bigint;
  readonly operatorPaysUnits: bigint;
  /** Sources not worth moving at current prices. */
  readonly skipped: readonly { readonly address: string; readonly units: bigint; readonly costUnits: bigint }[];
  /**
   * Chain state the later steps need (EVM chain id, the gas price used, validity windows); kept with
   * the plan and handed back to `continue`. JSON-safe: strings, numbers, booleans only.
   */
  readonly context: Readonly<Record<string, string | number | boolean>>;
}

/** One thing a key signs. */
export interface AccountStep {
  /** Unique within the plan: `topup-3`, `transfer-3`, `auth-3`, `submit-0`, `activate-7`. */
  readonly id: string;
  readonly round: 1 | 2;
  readonly stage: number;
  /** What it is, for people: `Top up 0.00042 ETH to 0x… for its USDT transfer`. */
  readonly description: string;
  readonly signer: StepSigner;
  /**
   * `transaction`: broadcast on its own. `authorization`: a signature another step carries (7702
   * authorization tuple, 3009 typed data); never broadcast itself.
   */
  readonly kind: 'transaction' | 'authorization';
  /**
   * What the signer signs, in the chain's own form: EVM an unsigned serialized transaction (hex) or
   * the EIP-712 / EIP-7702 payload as JSON; TRON the unsigned transaction JSON (`raw_data_hex` is
   * what is signed); TON the unsigned V5R1 external message body BOC (base64) with its subwallet; Solana JSON with the
   * serialized legacy message (base64) and its lifetime (account-plan-file.ts, `sol-tx`).
   */
  readonly unsigned: { readonly format: AccountUnsignedFormat; readonly data: string };
  /** The nonce (EVM, 7702 authorization), TRON none (its reference block and expiry fix it), TON seqno. */
  readonly nonce: bigint | null;
  /** Value moved by this step, by coin id, base units (for the summary and checks). */
  readonly moves: Readonly<Record<string, bigint>>;
  /** Native base units this step pays in fees (its maximum, for EVM: gas limit × max fee). */
  readonly feeUnits: bigint;
  /**
   * Where it sends value: the destination, a deposit address (top-up), a contract. A step that sends
   * to several (a TON top-up batch: one external, one message per subwallet) names them comma-separated.
   */
  readonly to: string;
}

export type StepSigner =
  | { readonly kind: 'deposit'; readonly address: string; readonly key: AccountKey; readonly index: number; readonly path: string }
  | { readonly kind: 'operator'; readonly account: OperatorAccount };

export type AccountUnsignedFormat = 'evm-tx' | 'evm-7702-authorization' | 'evm-3009-authorization' | 'tron-tx' | 'ton-external' | 'sol-tx';

/** A step checked against its signature. */
export type VerifiedStep =
  | { readonly kind: 'transaction'; readonly stepId: string; readonly tx: VerifiedTransaction }
  | { readonly kind: 'authorization'; readonly stepId: string; readonly signature: string };
