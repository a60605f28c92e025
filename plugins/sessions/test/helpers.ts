import { checkoutPlugin } from '@gw/plugin-checkout';
import { oauthPlugin } from '@gw/plugin-oauth';
import { SANDBOX_PLUGINS, sandboxClient, startSandboxKernel, type SandboxClient } from '@gw/plugin-sandbox/testing';
import { watchersPlugin } from '@gw/plugin-watchers';
import { signedFetch, type TestKernel } from '@gw/kernel/testing';
import { sessionsPlugin } from '../src/index.js';

export { sandboxClient, type SandboxClient };

export const SESSIONS_PLUGINS = [...SANDBOX_PLUGINS, watchersPlugin, checkoutPlugin, oauthPlugin, sessionsPlugin];

/** A sandbox gateway with the sessions plugin (fixed rates: see @gw/testing FIXED_RATES; 1 EUR = 1.08 USD, no other fiat rate). */
export function startSessionsKernel(config: Record<string, unknown> = {}): Promise<TestKernel> {
  return startSandboxKernel({ 'plugins.rates.fixedFiat': { EUR: '1.08' }, ...config }, SESSIONS_PLUGINS);
}

/** A sandbox POST of `body` under an Idempotency-Key. */
export function withKey(gw: TestKernel, c: SandboxClient, path: string, body: unknown, key: string) {
  return signedFetch(gw.url, `/api/v1/sandbox${path}`, { projectId: c.projectId, secret: c.secret, method: 'POST', body, headers: { 'Idempotency-Key': key } });
}

/** The data of the mail jobs `name` enqueued for a session, oldest first. */
export async function mailJobs(gw: TestKernel, name: string, sessionId: string): Promise<unknown[]> {
  const rows = await gw.kernel.cradle.db.raw(`select data from pgboss.job where name = ? and data->>'sessionId' = ? order by created_on`, [name, sessionId]);
  return rows.rows.map((r: { data: unknown }) => r.data);
}

/** A sandbox simulation (`detect`, `paid`, `event`, ...) of the invoice; throws unless it answers 200. */
export async function simulated(c: SandboxClient, invoiceId: string, what: string, body?: unknown): Promise<void> {
  const res = await c.call('POST', `/invoices/${invoiceId}/simulate-${what}`, body);
  if (res.status !== 200) throw new Error(`simulate-${what}: ${res.status} ${JSON.stringify(res.body)}`);
}

/** A sandbox payment of the invoice: seen, then confirmed. */
export async function paidInSandbox(c: SandboxClient, invoiceId: string): Promise<void> {
  await simulated(c, invoiceId, 'detect');
  await simulated(c, invoiceId, 'paid');
}
