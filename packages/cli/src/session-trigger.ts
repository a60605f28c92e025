import type { GatewayClient } from '@gw/client';
import { PartnerUsageError } from './credentials.js';
import { sessionTriggerPlan, type SessionStep } from './trigger-plan.js';

/** One step of a session trigger and the session's (or its invoice's) status after it. */
export interface SessionTriggerStep {
  readonly step: 'create' | SessionStep;
  readonly id: string;
  readonly status: string;
}

interface SessionAnswer {
  readonly id: string;
  readonly status: string;
  readonly invoice_id: string | null;
}

/**
 * Produces `eventType` (a checkout session event) in the sandbox: a new session of 0.01 `coin`
 * (priced in the coin, so no exchange rate is needed), then the payer's pick and the sandbox
 * payment of its invoice (`checkout_session.completed`), or the partner's end of it (`expired`).
 */
export async function triggerSession(
  gateway: GatewayClient,
  eventType: string,
  coin: string,
  onStep: (step: SessionTriggerStep) => void,
): Promise<{ readonly id: string; readonly invoice_id: string | null; readonly status: string }> {
  const plan = sessionTriggerPlan(eventType);
  if (!plan) throw new PartnerUsageError(`unknown event type "${eventType}"`);
  const base = '/api/v1/sandbox/checkout-sessions';
  let session = (await gateway.call('POST', base, { body: { price_currency: coin, price_amount: '0.01', description: `gateway trigger ${eventType}` } }))
    .body as SessionAnswer;
  onStep({ step: 'create', id: session.id, status: session.status });
  for (const step of plan) {
    if (step === 'pick') session = (await gateway.call('POST', `${base}/${session.id}/simulate-pick`, { body: { coin } })).body as SessionAnswer;
    if (step === 'expire') session = (await gateway.call('POST', `${base}/${session.id}/expire`)).body as SessionAnswer;
    if (step === 'detect' || step === 'paid') {
      await gateway.call('POST', `/api/v1/sandbox/invoices/${session.invoice_id}/simulate-${step}`, { body: {} });
      session = (await gateway.call('GET', `${base}/${session.id}`)).body as SessionAnswer;
    }
    onStep({ step, id: session.id, status: session.status });
  }
  return { id: session.id, invoice_id: session.invoice_id, status: session.status };
}
