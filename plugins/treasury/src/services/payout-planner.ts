import type { Actor, PayoutRecipient } from '@gw/kernel';
import type { Knex } from 'knex';
import type { PlanStatus } from '../plan-status.js';

/**
 * Where the money of a payout plan comes from.
 * - `received`: UTXO chains: the project's confirmed unspent received outputs not held by another
 *   plan, oldest first, as few as cover the recipients and the fee; change to the project's own
 *   change address. Account chains: refused (`treasury_nothing_to_move`): name an address.
 * - `funding`: account chains: the operator's `funding` account of the network.
 * - `address`: a pool address of the project (UTXO: only its outputs; account: the address sends).
 */
export type PayoutSource = { readonly kind: 'received' } | { readonly kind: 'funding' } | { readonly kind: 'address'; readonly address: string };

export interface PayoutPlanRequest {
  readonly projectId: string;
  readonly chain: string;
  readonly network: string;
  /** The coin every recipient is paid in. */
  readonly coin: string;
  /** In the order the plan pays them; each `reference` unique. */
  readonly recipients: readonly PayoutRecipient[];
  readonly source: PayoutSource;
  /** UTXO chains: base units per size unit; default the provider's one-hour estimate. */
  readonly feeRate?: bigint;
}

/** The stored plan, as the payouts plugin records it on its items. */
export interface PayoutPlanResult {
  readonly planId: string;
  readonly status: PlanStatus;
  readonly feeUnits: bigint;
}

/**
 * Payout plans (issue 37): the treasury turns approved refunds and payouts into a plan of kind
 * `payout` (a multi-output PSBT on Bitcoin and Litecoin, one transfer per recipient on account
 * chains), signed offline, verified, broadcast and tracked exactly as sweeps are. The plan is
 * stored in the caller's transaction, so the items it pays change state with it; its later status
 * changes reach the caller through `TREASURY_PLAN_OBSERVERS`.
 */
export interface PayoutPlanner {
  /**
   * Builds and stores the plan in `trx`. Throws `treasury_unavailable`, `treasury_nothing_to_move`
   * (no source), `treasury_insufficient_value` (the source does not cover the amounts and the fee),
   * `treasury_wrong_network` (a recipient of another network), `treasury_outputs_planned`.
   */
  plan(trx: Knex.Transaction, request: PayoutPlanRequest, actor: Actor): Promise<PayoutPlanResult>;
}
