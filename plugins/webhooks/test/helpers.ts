import type { KernelRole } from '@gw/kernel';
import { startTestKernel, type TestDatabase, type TestKernel } from '@gw/kernel/testing';
import { addressPoolPlugin } from '@gw/plugin-address-pool';
import { invoicesPlugin } from '@gw/plugin-invoices';
import { ratesPlugin } from '@gw/plugin-rates';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
import { webhooksPlugin } from '../src/index.js';
import { ALL_CHAINS, FAST_RETRIES, FIXED_RATES } from '@gw/testing';

// The shared helpers moved to @gw/testing; the tests importing this plugin's helpers take them from here as before.
export { FAST_RETRIES, invoiceWithEvents, projectWithPools, Receiver, type ReceivedRequest, type Reply, type TestProject } from '@gw/testing';

export const WEBHOOK_PLUGINS = [tenancyPlugin, walletsPlugin, addressPoolPlugin, ratesPlugin, invoicesPlugin, webhooksPlugin];

/**
 * A gateway with workers (role `all`, unless `options.role` says otherwise) whose deliveries may
 * reach the local receivers; on a fresh database unless `options.database` is given.
 */
export function startWebhooksKernel(config: Record<string, unknown> = {}, options: { role?: KernelRole; database?: TestDatabase } = {}): Promise<TestKernel> {
  return startTestKernel({
    plugins: WEBHOOK_PLUGINS,
    chains: ALL_CHAINS,
    role: options.role ?? 'all',
    ...(options.database ? { database: options.database } : {}),
    config: {
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': FIXED_RATES,
      'plugins.address-pool.targetFree': 5,
      'plugins.webhooks.allowPrivateTargets': true,
      // The receivers of these tests are on loopback; the tests read what they answered.
      'plugins.webhooks.privateResponseExcerpts': true,
      'plugins.webhooks.privateAttemptDetails': true,
      ...FAST_RETRIES,
      ...config,
    },
  });
}
