import type { AccountSweepMethod, AccountUnsignedFormat } from './account-treasury.js';

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
  readonly method: AccountSweepMethod | 'activation';
  readonly round: 1 | 2;
  readonly destination: string;
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
  readonly signer: { readonly kind: 'deposit' | 'operator'; readonly role?: 'gas' | 'funding' | 'staking'; readonly address: string; readonly path: string };
  readonly unsigned: { readonly format: AccountUnsignedFormat; readonly data: string };
  readonly nonce: string | null;
  readonly to: string;
  /** By coin id, base units. */
  readonly moves: Readonly<Record<string, string>>;
  readonly fee_units: string;
}

/** What a signer gives back for one round: each step's signed form (see `AccountTreasury.verifySigned`). */
export interface AccountSignedFile {
  readonly format: 'gateway-treasury-account-signed';
  readonly version: 1;
  readonly plan_id: string;
  readonly chain: string;
  readonly network: string;
  readonly round: 1 | 2;
  readonly signed: readonly { readonly id: string; readonly signed: string }[];
}
