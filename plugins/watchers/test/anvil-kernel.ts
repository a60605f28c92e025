import type { ChainId } from '@gw/kernel';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { ALL_CHAINS, FIXED_RATES } from '@gw/testing';
import { WEBHOOK_PLUGINS, type Receiver, type TestProject } from '@gw/plugin-webhooks/testing';
import { watchedProject } from './scenario.js';
import { watchersPlugin } from '../src/index.js';
import type { Anvil } from '@gw/testing';

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

/**
 * What an anvil end-to-end test pays into: a testnet project of a new operator named `operator`
 * with a verified wallet and pool on `chain`, its webhook URL at `receiver`'s `/hooks`, and the
 * payer (anvil's first account) holding 10^12 base units of a real ERC-20 installed at `token`.
 */
export async function anvilProject(
  gw: TestKernel,
  anvil: Anvil,
  receiver: Receiver,
  options: { operator: string; chain: ChainId; token: string },
): Promise<{ project: TestProject; payer: string }> {
  const project = await watchedProject(gw, receiver, options.operator, options.chain);
  const payer = (await anvil.accounts())[0]!;
  await anvil.installErc20(options.token, payer, 10n ** 12n);
  return { project, payer };
}
