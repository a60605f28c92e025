/**
 * A plan's statuses (issue 35):
 *
 * ```
 * waiting_for_fee --(next-block rate <= max_fee_rate)--> awaiting_signature --(signed file verified)--> signed
 *   --(broadcast)--> broadcast --(chain confirmations)--> confirmed
 * ```
 * A reorg drops a confirmed or mined plan back to `broadcast`. `replaced`: a bump took its inputs.
 * `invalidated`: an input was spent by another transaction. `cancelled`: the operator dropped it
 * before broadcast. `failed`: the provider refused the transaction.
 */
export const PLAN_STATUSES = [
  'waiting_for_fee',
  'awaiting_signature',
  'signed',
  'broadcast',
  'confirmed',
  'replaced',
  'invalidated',
  'cancelled',
  'failed',
] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** `payout`: refunds and payouts to their recipients (issue 37). `activation`: a TRON plan that activates pool addresses; `sweeper_deployment`: an EVM plan that deploys the EIP-7702 token sweeper for a destination (issue 36). */
export const PLAN_KINDS = ['sweep', 'bump', 'accelerate', 'activation', 'sweeper_deployment', 'payout'] as const;
export type PlanKind = (typeof PLAN_KINDS)[number];

/** Statuses whose inputs are held: a second plan over them is refused. */
export const HOLDING_STATUSES: readonly PlanStatus[] = ['waiting_for_fee', 'awaiting_signature', 'signed', 'broadcast', 'confirmed'];

/** Statuses before broadcast: an input spent elsewhere invalidates the plan; the operator may cancel. */
export const UNSENT_STATUSES: readonly PlanStatus[] = ['waiting_for_fee', 'awaiting_signature', 'signed'];

/** Queue names. */
export const BROADCAST_JOB = 'treasury.broadcast';
/** Account plans (issue 36): the first stage of a plan signed with `broadcast` asked. */
export const ACCOUNT_BROADCAST_JOB = 'treasury.account-broadcast';
export const TRACK_JOB = 'treasury.track';
export const RECONCILE_JOB = 'treasury.reconcile';
