import test from 'ava';
import { PAYOUT_EVENT_TYPES, REFUND_EVENT_TYPES, SESSION_EVENT_TYPES } from '@gw/client';
import { moneyOutTriggerPlan, sessionTriggerPlan, triggerPlan, type MoneyOutStep } from './trigger-plan.js';

test('every refund and payout event has a plan from a new item, ending in the step that emits it', (t) => {
  const last: Record<string, MoneyOutStep | undefined> = {
    created: undefined,
    claimed: 'claim',
    approved: 'approve',
    sent: 'send',
    completed: 'confirm',
    failed: 'fail',
    cancelled: 'cancel',
  };
  for (const type of [...REFUND_EVENT_TYPES, ...PAYOUT_EVENT_TYPES]) {
    const plan = moneyOutTriggerPlan(type);
    t.truthy(plan, type);
    t.is(plan!.at(-1), last[type.split('.')[1]!], type);
  }
});

test('a payout has no claim step; a refund is claimed before it is approved', (t) => {
  for (const type of PAYOUT_EVENT_TYPES) t.false(moneyOutTriggerPlan(type)!.includes('claim'), type);
  for (const type of ['refund.approved', 'refund.sent', 'refund.completed', 'refund.failed']) t.is(moneyOutTriggerPlan(type)![0], 'claim', type);
});

test('invoice events have no money-out plan and money-out events no invoice plan', (t) => {
  t.is(moneyOutTriggerPlan('invoice.paid'), undefined);
  t.is(triggerPlan('refund.created', 'pending'), undefined);
});

test('every checkout session event has a plan from a new session: paid after the pick for completed, the end for expired', (t) => {
  for (const type of SESSION_EVENT_TYPES) t.truthy(sessionTriggerPlan(type), type);
  t.deepEqual(sessionTriggerPlan('checkout_session.completed'), ['pick', 'detect', 'paid']);
  t.deepEqual(sessionTriggerPlan('checkout_session.expired'), ['expire']);
  t.is(sessionTriggerPlan('refund.created'), undefined);
  t.is(moneyOutTriggerPlan('checkout_session.completed'), undefined);
});
