/**
 * Which sandbox simulations produce a webhook event from an invoice's current status (spec 3.1),
 * for `gateway trigger`. Each step is one simulate-* call; the last one emits the event.
 */
export type SimulationStep = 'detect' | 'paid' | 'overpaid' | 'partial' | 'expire' | 'latePayment' | 'reorg' | 'reconfirm';

const PLANS: Readonly<Record<string, Readonly<Record<string, readonly SimulationStep[]>>>> = {
  'invoice.detected': { pending: ['detect'] },
  'invoice.paid': { pending: ['detect', 'paid'], detected: ['paid'], reverted: ['reconfirm'] },
  'invoice.overpaid': { pending: ['detect', 'overpaid'], detected: ['overpaid'] },
  'invoice.partial': { pending: ['detect', 'partial'], detected: ['partial'] },
  'invoice.expired': { pending: ['expire'], detected: ['expire'] },
  'invoice.expired_paid_late': { pending: ['expire', 'latePayment'], detected: ['expire', 'latePayment'], expired: ['latePayment'] },
  'invoice.reverted': { pending: ['detect', 'paid', 'reorg'], detected: ['paid', 'reorg'], paid: ['reorg'], overpaid: ['reorg'], partial: ['reorg'] },
};

/** The steps from `status` to `eventType`, or undefined when the lifecycle has no such path. */
export function triggerPlan(eventType: string, status: string): readonly SimulationStep[] | undefined {
  return PLANS[eventType]?.[status];
}

/** The statuses an invoice may be in for `eventType` to be produced. */
export function triggerableFrom(eventType: string): string[] {
  return Object.keys(PLANS[eventType] ?? {});
}

/**
 * The steps that produce a refund or payout event (issue 37) from a new item: `cancel` is the
 * partner's cancel, the others are sandbox simulations. A refund starts `awaiting_claim` (its
 * `refund.created` needs no step), a payout `pending_approval`.
 */
export type MoneyOutStep = 'claim' | 'approve' | 'send' | 'confirm' | 'fail' | 'cancel';

const MONEY_OUT_PLANS: Readonly<Record<string, readonly MoneyOutStep[]>> = {
  'refund.created': [],
  'refund.claimed': ['claim'],
  'refund.approved': ['claim', 'approve'],
  'refund.sent': ['claim', 'approve', 'send'],
  'refund.completed': ['claim', 'approve', 'send', 'confirm'],
  'refund.failed': ['claim', 'approve', 'send', 'fail'],
  'refund.cancelled': ['cancel'],
  'payout.created': [],
  'payout.approved': ['approve'],
  'payout.sent': ['approve', 'send'],
  'payout.completed': ['approve', 'send', 'confirm'],
  'payout.failed': ['approve', 'send', 'fail'],
  'payout.cancelled': ['cancel'],
};

/** The steps from a new refund or payout to `eventType`, or undefined when it is not a refund or payout event. */
export function moneyOutTriggerPlan(eventType: string): readonly MoneyOutStep[] | undefined {
  return MONEY_OUT_PLANS[eventType];
}

/**
 * The steps that produce a checkout session event (issue 38) from a new sandbox session priced in
 * a coin: `pick` is the payer's coin choice (sandbox simulate-pick), `detect` and `paid` the sandbox
 * payment of its invoice, `expire` the partner's end of the session.
 */
export type SessionStep = 'pick' | 'detect' | 'paid' | 'expire';

const SESSION_PLANS: Readonly<Record<string, readonly SessionStep[]>> = {
  'checkout_session.completed': ['pick', 'detect', 'paid'],
  'checkout_session.expired': ['expire'],
};

/** The steps from a new session to `eventType`, or undefined when it is not a checkout session event. */
export function sessionTriggerPlan(eventType: string): readonly SessionStep[] | undefined {
  return SESSION_PLANS[eventType];
}
