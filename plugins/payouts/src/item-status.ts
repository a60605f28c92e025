/**
 * The statuses of a refund or a payout (issue 37), one table for both kinds:
 *
 * ```
 * refund:  awaiting_claim --(payer claims)--> claimed --(approvals)--> approved
 * payout:                        pending_approval --(approvals)--> approved
 * approved --(a batch's plan is stored)--> batched --(plan broadcast)--> sent --(confirmed)--> completed
 * batched --(plan cancelled, invalidated)--> approved        batched|sent --(plan failed)--> failed
 * sent --(plan invalidated)--> failed
 * awaiting_claim | claimed | pending_approval | approved --(cancel)--> cancelled
 * ```
 * A refund created with the payer's address starts `claimed`. `batched` items are in exactly one
 * unbroadcast plan (`plan_id`); their status changes in the transaction that changes the plan's.
 */
export const ITEM_STATUSES = ['awaiting_claim', 'claimed', 'pending_approval', 'approved', 'batched', 'sent', 'completed', 'failed', 'cancelled'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

export const ITEM_KINDS = ['refund', 'payout'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

/** Statuses waiting for an administrator's approval. */
export const APPROVABLE_STATUSES: readonly ItemStatus[] = ['claimed', 'pending_approval'];
/** Statuses a partner (API, PAT, MCP) may cancel: before approval. */
export const PARTNER_CANCELLABLE_STATUSES: readonly ItemStatus[] = ['awaiting_claim', 'claimed', 'pending_approval'];
/** Statuses an administrator may cancel: before the item joins a plan. */
export const ADMIN_CANCELLABLE_STATUSES: readonly ItemStatus[] = [...PARTNER_CANCELLABLE_STATUSES, 'approved'];
/** Statuses whose amount counts against what an invoice received (every status but `failed` and `cancelled`). */
export const COMMITTED_STATUSES: readonly ItemStatus[] = ['awaiting_claim', 'claimed', 'pending_approval', 'approved', 'batched', 'sent', 'completed'];

/**
 * How a refund's coin amount is found (issue 37).
 * - `coin_amount`: `amount` is in the invoice's coin (default).
 * - `fiat_at_payment`: `amount` is USD, converted at the invoice's rate (its `rate_snapshot`).
 * - `fiat_now`: `amount` is USD, converted at the current rate (rates plugin).
 * Without `amount` the refund takes its natural amount (the excess of an overpaid invoice; all
 * that an expired_paid_late or partially paid expired invoice received; otherwise all received),
 * and `fiat_now` gives the payer that amount's USD value at payment, at today's rate. A
 * `spread_percent` is then taken off the coin amount.
 */
export const RATE_RULES = ['coin_amount', 'fiat_at_payment', 'fiat_now'] as const;
export type RateRule = (typeof RATE_RULES)[number];

/** The webhook events of items of each kind (the wire contract owns the lists). */
export { PAYOUT_EVENT_TYPES, REFUND_EVENT_TYPES } from '@gw/webhook-verify';
