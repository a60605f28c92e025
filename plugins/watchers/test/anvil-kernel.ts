import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { ALL_CHAINS, FIXED_RATES } from '../../invoices/test/helpers.js';
import { WEBHOOK_PLUGINS } from '../../webhooks/test/helpers.js';
import { watchersPlugin } from '../src/index.js';
import type { Anvil } from './anvil.js';

/**
 * A gateway kernel (role `all`, every chain, fixed rates) on a fresh database whose watchers scan
 * `anvil` as eth/sepolia from block 0; `config` adds or overrides dotted keys.
 */
export function startAnvilKernel(anvil: Anvil, config: Record<string, unknown> = {}): Promise<TestKernel> {
  return startTestKernel({
    plugins: [...WEBHOOK_PLUGINS, watchersPlugin],
    chains: ALL_CHAINS,
    role: 'all',
    config: {
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': FIXED_RATES,
      'plugins.watchers.chains': { eth: { sepolia: { providers: [{ name: 'anvil', url: anvil.url }], startHeight: 0 } } },
      ...config,
    },
  });
}
