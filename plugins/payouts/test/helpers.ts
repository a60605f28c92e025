import { watchersPlugin } from '@gw/plugin-watchers';
import { treasuryPlugin } from '@gw/plugin-treasury';
import { createSandboxInvoice, SANDBOX_PLUGINS, sandboxClient, startSandboxKernel, type SandboxClient } from '@gw/plugin-sandbox/testing';
import type { ExecutionContext } from 'ava';
import { signedFetch, waitFor, type TestKernel } from '@gw/kernel/testing';
import type { Receiver, TestProject } from '@gw/testing';
import { verifyWebhook } from '@gw/webhook-verify';
import { payoutsPlugin } from '../src/index.js';

export { sandboxClient, type SandboxClient };
export { approveAndBatch, type BatchSource } from './approve-and-batch.js';

export const PAYOUTS_PLUGINS = [...SANDBOX_PLUGINS, watchersPlugin, treasuryPlugin, payoutsPlugin];

/** A sandbox gateway with the payouts plugin (fixed rates: see @gw/testing FIXED_RATES). */
export function startPayoutsKernel(config: Record<string, unknown> = {}): Promise<TestKernel> {
  return startSandboxKernel(config, PAYOUTS_PLUGINS);
}

/**
 * An invoice of 0.001 BTC in a sandbox project, detected and overpaid 1.5 times over the signed
 * sandbox API (a refund's natural case: the excess); answers its id.
 */
export async function overpaidSandboxInvoice(gw: TestKernel, projectId: string, secret: string): Promise<string> {
  const call = (path: string, body?: unknown) =>
    signedFetch(gw.url, `/api/v1/sandbox${path}`, { projectId, secret, method: 'POST', ...(body === undefined ? {} : { body }) });
  const created = await call('/invoices', { external_id: 'order-1', coin: 'btc', amount_crypto: '0.001' });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  const invoiceId: string = created.body.id;
  if ((await call(`/invoices/${invoiceId}/simulate-detect`)).status !== 200) throw new Error('detect');
  const overpaid = await call(`/invoices/${invoiceId}/simulate-overpaid`, { multiplier: 1.5 });
  if (overpaid.status !== 200) throw new Error(JSON.stringify(overpaid.body));
  return invoiceId;
}

let seq = 0;

/** A sandbox invoice of `amount` `coin` (or a USD amount, priced at the fixed rate), driven by the sandbox's simulations (`paid`, `overpaid`, ...). */
export async function invoiceIn(c: SandboxClient, coin: string, amount: string | { amount_usd: number }, ...simulations: [string, unknown?][]): Promise<any> {
  const priced = typeof amount === 'string' ? { amount_crypto: amount } : amount;
  const created = await createSandboxInvoice(c, { external_id: `refund-order-${++seq}-${Date.now()}`, coin, ...priced });
  for (const [what, body] of simulations) {
    const sim = await c.call('POST', `/invoices/${created.id}/simulate-${what}`, body ?? {});
    if (sim.status !== 200) throw new Error(`simulate-${what} failed: ${sim.status} ${JSON.stringify(sim.body)}`);
  }
  return (await c.call('GET', `/invoices/${created.id}`)).body;
}

/**
 * After a payout plan confirmed: every item reads `completed` in `planId` with its txid, and the
 * receiver got one signed `payout.completed` delivery per item (every delivery verifies).
 */
export async function expectPayoutsCompleted(
  t: ExecutionContext,
  gw: TestKernel,
  project: TestProject,
  items: readonly { readonly id: string }[],
  planId: string,
  receiver: Receiver,
): Promise<void> {
  for (const item of items) {
    const now = await signedFetch(gw.url, `/api/v1/payouts/${item.id}`, project);
    t.like(now.body, { status: 'completed', plan_id: planId });
    t.truthy(now.body.txid);
  }
  await waitFor(
    async () => receiver.requests.filter((r) => r.headers['x-service-event-type'] === 'payout.completed').length === items.length,
    30_000,
    `${items.length} payout.completed deliveries`,
  );
  t.true(receiver.requests.every((r) => verifyWebhook({ header: String(r.headers['x-service-signature']), rawBody: r.body, secrets: [project.secret] }).ok));
}
