import { watchersPlugin } from '@gw/plugin-watchers';
import { treasuryPlugin } from '@gw/plugin-treasury';
import { SANDBOX_PLUGINS, sandboxClient, startSandboxKernel, type SandboxClient } from '@gw/plugin-sandbox/testing';
import type { TestKernel } from '@gw/kernel/testing';
import { payoutsPlugin } from '../src/index.js';

export { sandboxClient, type SandboxClient };

export const PAYOUTS_PLUGINS = [...SANDBOX_PLUGINS, watchersPlugin, treasuryPlugin, payoutsPlugin];

/** A sandbox gateway with the payouts plugin (fixed rates: see @gw/testing FIXED_RATES). */
export function startPayoutsKernel(config: Record<string, unknown> = {}): Promise<TestKernel> {
  return startSandboxKernel(config, PAYOUTS_PLUGINS);
}

let seq = 0;

/** A sandbox invoice of `amount` `coin`, driven by the sandbox's simulations (`paid`, `overpaid`, ...). */
export async function invoiceIn(c: SandboxClient, coin: string, amount: string, ...simulations: [string, unknown?][]): Promise<any> {
  const res = await c.call('POST', '/invoices', { external_id: `refund-order-${++seq}-${Date.now()}`, coin, amount_crypto: amount });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  for (const [what, body] of simulations) {
    const sim = await c.call('POST', `/invoices/${res.body.id}/simulate-${what}`, body ?? {});
    if (sim.status !== 200) throw new Error(`simulate-${what} failed: ${sim.status} ${JSON.stringify(sim.body)}`);
  }
  return (await c.call('GET', `/invoices/${res.body.id}`)).body;
}

/** The event types the project's outbox holds, oldest first. */
export async function eventTypes(gw: TestKernel, projectId: string, prefix: string): Promise<string[]> {
  const rows = await gw.kernel.cradle
    .db('webhooks_events')
    .where('project_id', projectId)
    .andWhereLike('event_type', `${prefix}%`)
    .orderBy('id')
    .select('event_type');
  return rows.map((r: { event_type: string }) => r.event_type);
}
