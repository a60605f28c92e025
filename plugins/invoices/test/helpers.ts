import { CLI_ACTOR, type ProjectPrincipal } from '@gw/kernel';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { addressPoolPlugin } from '@gw/plugin-address-pool';
import { ratesPlugin } from '@gw/plugin-rates';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
import { invoicesPlugin } from '../src/index.js';
import { ALL_CHAINS, FIXED_RATES, projectWithPools, type TestProject } from '@gw/testing';

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

/**
 * A kernel of this plugin with one operator named `operator` and one testnet project with an ETH
 * pool: the scene of the tests about one project's invoices.
 */
export async function startWithEthProject(operator: string): Promise<{ gw: TestKernel; project: TestProject; principal: ProjectPrincipal }> {
  const gw = await startInvoicesKernel();
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create(operator, CLI_ACTOR)).id;
  const project = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  return { gw, project, principal: (await gw.kernel.cradle.tenancyProjects.principal(project.projectId))! };
}
