import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { addressPoolPlugin } from '@gw/plugin-address-pool';
import { ratesPlugin } from '@gw/plugin-rates';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
import { invoicesPlugin } from '../src/index.js';
import { ALL_CHAINS, FIXED_RATES } from '@gw/testing';

// The shared helpers moved to @gw/testing; this plugin's tests take them from here as before.
export { ALL_CHAINS, FIXED_RATES, projectWithPools, saturatePools, type TestProject } from '@gw/testing';

export async function startInvoicesKernel(config: Record<string, unknown> = {}): Promise<TestKernel> {
  return startTestKernel({
    plugins: [tenancyPlugin, walletsPlugin, addressPoolPlugin, ratesPlugin, invoicesPlugin],
    chains: ALL_CHAINS,
    role: 'gateway',
    config: { 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': FIXED_RATES, 'plugins.address-pool.targetFree': 5, ...config },
  });
}
