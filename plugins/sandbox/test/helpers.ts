import { type AnyPlugin, CLI_ACTOR } from '@gw/kernel';
import { signedFetch, startTestKernel, type TestDatabase, type TestKernel } from '@gw/kernel/testing';
import { WEBHOOK_PLUGINS, FAST_RETRIES, type Receiver } from '@gw/plugin-webhooks/testing';
import { ALL_CHAINS, FIXED_RATES } from '@gw/testing';
import { sandboxPlugin, type ProvisionedSandbox } from '../src/index.js';

export { Receiver } from '@gw/plugin-webhooks/testing';

export const SANDBOX_PLUGINS = [...WEBHOOK_PLUGINS, sandboxPlugin];

/**
 * A gateway with workers (role `all`), fixed rates, small pools and deliveries to local receivers;
 * on `database` when given (a second process on the same data), else on a fresh one.
 */
export function startSandboxKernel(
  config: Record<string, unknown> = {},
  plugins: readonly AnyPlugin[] = SANDBOX_PLUGINS,
  database?: TestDatabase,
): Promise<TestKernel> {
  return startTestKernel({
    plugins,
    chains: ALL_CHAINS,
    role: 'all',
    ...(database ? { database } : {}),
    config: {
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': FIXED_RATES,
      'plugins.address-pool.targetFree': 3,
      'plugins.webhooks.allowPrivateTargets': true,
      'plugins.sandbox.simulateRateLimitPerMinute': 1000,
      'plugins.sandbox.writeRateLimitPerMinute': 1000,
      ...FAST_RETRIES,
      ...config,
    },
  });
}

export interface SandboxClient {
  readonly sandbox: ProvisionedSandbox;
  readonly projectId: string;
  readonly secret: string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; headers: Headers; body: any }>;
}

/** Per gateway, the end of the last provisioning asked for: the next one starts after it. */
const provisioning = new WeakMap<TestKernel, Promise<unknown>>();

/**
 * Provisions a sandbox project (webhooks to `receiver` when given; owned by `operator` when given,
 * else by the default operator) and a signed client for it.
 *
 * Provisionings on one gateway run one at a time. Ava starts every test of a file at once, and
 * sandbox.test.ts alone asks for 22 projects in its first second: each is one transaction of about
 * forty statements with seven key generations, then seven pool fills (0.4 to 0.9 s measured
 * alone on the shared 2-core machine), and twenty at once took 5.7 to 7.9 s each there at load 6,
 * with or without Solana composed. With the other tests' kernels starting meanwhile the last ones
 * waited more than the pool's 10 s acquire timeout for one of its ten connections. An operator
 * creates sandboxes one at a time (CLI, dashboard); a burst like this is the tests', not the product's.
 */
export async function sandboxClient(gw: TestKernel, receiver?: Receiver, operator?: string): Promise<SandboxClient> {
  const name = `sb-${Math.random().toString(36).slice(2)}`;
  const turn = (provisioning.get(gw) ?? Promise.resolve()).then(() =>
    gw.kernel.cradle.sandboxProjects.provision(operator === undefined ? { name } : { name, operator }, CLI_ACTOR),
  );
  provisioning.set(
    gw,
    turn.catch(() => undefined),
  );
  const sandbox = await turn;
  if (receiver) await gw.kernel.cradle.tenancyProjects.setWebhookUrl(sandbox.project.id, `${receiver.url}/hooks`, CLI_ACTOR);
  const projectId = sandbox.project.id;
  const secret = sandbox.api_key.api_secret;
  return {
    sandbox,
    projectId,
    secret,
    call: (method, path, body) => signedFetch(gw.url, `/api/v1/sandbox${path}`, { projectId, secret, method, ...(body === undefined ? {} : { body }) }),
  };
}

/** Creates an invoice over the sandbox API: the invoice as answered (anything but 201 throws). */
export async function createSandboxInvoice(c: SandboxClient, body: Record<string, unknown>): Promise<any> {
  const res = await c.call('POST', '/invoices', body);
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** `startSandboxKernel` with `config`, and a client of one sandbox project on it. */
export async function startSandboxAccount(config: Record<string, unknown> = {}): Promise<{ gw: TestKernel; account: SandboxClient }> {
  const gw = await startSandboxKernel(config);
  return { gw, account: await sandboxClient(gw) };
}
