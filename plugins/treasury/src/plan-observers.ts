import { extensionPoint } from '@gw/kernel';
import type { Knex } from 'knex';
import type { PlanKind, PlanStatus } from './plan-status.js';

/**
 * How one recipient of a `payout` plan stands (issue 37). UTXO plans pay every recipient in one
 * transaction, so all share its txid and outcome; account plans pay each in its own step.
 */
export interface PayoutRecipientOutcome {
  /** The `reference` the recipient was planned with (the refund or payout id). */
  readonly reference: string;
  /** The transaction that pays it, once known (signed or broadcast); null before. */
  readonly txid: string | null;
  /** `pending` until its transaction is confirmed at the chain's depth, or failed (mined and reverted, or refused by the provider). */
  readonly outcome: 'pending' | 'confirmed' | 'failed';
  /** The chain's or provider's reason, for `failed`. */
  readonly reason?: string;
}

/** One change of a plan's status, as observers hear it. */
export interface PlanStatusChange {
  readonly planId: string;
  readonly kind: PlanKind;
  readonly chain: string;
  readonly network: string;
  readonly previousStatus: PlanStatus;
  readonly status: PlanStatus;
  /**
   * `replaced`: the plan (an RBF bump) that now carries this plan's outputs. Also on a bump that
   * ends without paying: `cancelled` before it was sent (the plan it would have replaced is
   * `broadcast` again) and `invalidated` because that plan's transaction was mined instead; both
   * name that plan, which pays what the bump would have.
   */
  readonly replacedBy?: string;
  /** `failed`: the provider's refusal or the chain's reason. */
  readonly reason?: string;
  /** `payout` plans: every recipient, in plan order. */
  readonly recipients?: readonly PayoutRecipientOutcome[];
}

/**
 * A plugin that follows plans of some kinds (the payouts plugin follows `payout` plans). The
 * treasury calls `onStatus` inside the transaction that changes the plan's status, after the
 * change, for every change (`awaiting_signature` at creation included, with `previousStatus` equal to
 * `status`): what the observer writes commits with the plan's change or not at all, and an error it
 * throws rolls the change back. It must not call the treasury back.
 */
export interface PlanObserver {
  readonly kinds: readonly PlanKind[];
  onStatus(trx: Knex.Transaction, change: PlanStatusChange): Promise<void>;
}

/** Observers of plans' statuses, contributed by other plugins (`contribute(TREASURY_PLAN_OBSERVERS, …)`, ADR 0011). */
export const TREASURY_PLAN_OBSERVERS = extensionPoint<PlanObserver>('treasury.plan-observers');
