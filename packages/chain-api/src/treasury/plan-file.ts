import type { UnsignedFormat } from './chain-treasury.js';

/**
 * The files that carry a plan from the gateway to a signer and the signature back (issue 35). Both
 * are JSON with decimal strings for amounts (never JSON numbers). The gateway writes a
 * {@link PlanFile}; `gateway-signer` (packages/signer) or any wallet that signs the embedded
 * transaction (PSBT for Bitcoin and Litecoin, CBOR for Cardano) signs it; the gateway takes back a
 * {@link SignedFile}, or the bare signed PSBT or transaction a wallet exports.
 *
 * The signer trusts nothing in the plan's summary: it reads inputs, outputs and the fee from the
 * embedded transaction itself, checks that they agree with the summary, and derives every "own"
 * address from the seed before it calls it own.
 */
export interface PlanFile {
  readonly format: 'gateway-treasury-plan';
  readonly version: 1;
  readonly plan_id: string;
  readonly chain: string;
  /** Network id (`bitcoin`, `regtest`, `preprod`). */
  readonly network: string;
  readonly coin: string;
  /**
   * What the plan does: `sweep` gathers outputs; `bump` replaces a stuck transaction (RBF); `accelerate` is a CPFP child;
   * `payout` pays refunds and payouts to their recipients (issue 37), the change back to an own address.
   */
  readonly kind: 'sweep' | 'bump' | 'accelerate' | 'payout';
  /** The account keys the inputs derive from, with their origin when known. */
  readonly accounts: readonly PlanAccount[];
  readonly inputs: readonly PlanFileInput[];
  readonly outputs: readonly PlanFileOutput[];
  /** Base units, decimal string. */
  readonly fee_units: string;
  /** Base units per size unit, decimal string. */
  readonly fee_rate: string;
  readonly unsigned: { readonly format: UnsignedFormat; readonly data: string; readonly txid: string };
  /** ISO 8601. */
  readonly created_at: string;
}

export interface PlanAccount {
  /** The account-level public key as registered (xpub/tpub; Cardano account key hex). */
  readonly key: string;
  /** 8 hex digits, when the wallet was registered with a key origin. */
  readonly fingerprint: string | null;
  /** The account path (`m/84'/0'/0'`). */
  readonly path: string;
}

export interface PlanFileInput {
  readonly tx_hash: string;
  readonly output_index: number;
  readonly address: string;
  readonly amount_units: string;
  /** Index into `accounts`. */
  readonly account: number;
  /** Full path (`m/84'/0'/0'/0/5`). */
  readonly path: string;
}

export interface PlanFileOutput {
  readonly address: string;
  readonly amount_units: string;
  /** Same account's address at this path (`own`), or an external address (`external`). */
  readonly destination: { readonly kind: 'own'; readonly account: number; readonly path: string } | { readonly kind: 'external' };
}

/** What a signer gives back. */
export interface SignedFile {
  readonly format: 'gateway-treasury-signed';
  readonly version: 1;
  readonly plan_id: string;
  readonly chain: string;
  readonly network: string;
  /** Signed PSBT (base64, finalized or not), or a complete transaction in hex (Bitcoin, Litecoin, Cardano). */
  readonly signed: string;
}
