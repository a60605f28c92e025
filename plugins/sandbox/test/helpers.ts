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

/**
 * Provisions a sandbox project (webhooks to `receiver` when given; owned by `operator` when given,
 * else by the default operator) and a signed client for it.
 */
export async function sandboxClient(gw: TestKernel, receiver?: Receiver, operator?: string): Promise<SandboxClient> {
  const name = `sb-${Math.random().toString(36).slice(2)}`;
  const sandbox = await gw.kernel.cradle.sandboxProjects.provision(operator === undefined ? { name } : { name, operator }, CLI_ACTOR);
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

/** `startSandboxKernel` with `config`, and a client of one sandbox project on it. */
export async function startSandboxAccount(config: Record<string, unknown> = {}): Promise<{ gw: TestKernel; account: SandboxClient }> {
  const gw = await startSandboxKernel(config);
  return { gw, account: await sandboxClient(gw) };
}
