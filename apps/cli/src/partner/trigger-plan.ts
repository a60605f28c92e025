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
