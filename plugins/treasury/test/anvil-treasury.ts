/**
 * The set-up the treasury's EVM tests share: an anvil node by `EvmTreasuryChain` (@gw/testing)
 * whose gas account is funded, and a gateway of the MCP plugins, the watchers and the treasury
 * watching it as eth/anvil (scans and the treasury's jobs driven by the test), with an operator,
 * a project whose pools are filled and a token with treasury:read and treasury:write.
 */
import { defineChain, type AccountStep, type PluginDefinition } from '@gw/kernel';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { createEvmAdapter } from '@gw/chain-evm';
import { cliRunner, EvmTreasuryChain, FAST_RETRIES, FIXED_RATES, type TestProject } from '@gw/testing';
import { MCP_PLUGINS } from '@gw/plugin-mcp/testing';
import { watchersPlugin } from '@gw/plugin-watchers';
import { treasuryPlugin } from '../src/index.js';
import { type Api, treasuryOperator } from './treasury-helpers.js';

export interface AnvilTreasury {
  chain: EvmTreasuryChain;
  gw: TestKernel;
  project: TestProject;
  token: string;
  /** The operator CLI on the gateway's database and configuration. */
  cli: ReturnType<typeof cliRunner>;
}

/**
 * Starts the node and the gateway. `network` gives the treasury's configuration of eth/anvil
 * (it may deploy contracts first; the gas account is funded after it); `operator` names the
 * operator; the pools hold `poolSize` addresses; `plugins` are added to the gateway's.
 */
export async function startAnvilTreasury(options: {
  operator: string;
  poolSize: number;
  network: (chain: EvmTreasuryChain) => Promise<Record<string, unknown>> | Record<string, unknown>;
  plugins?: readonly PluginDefinition[];
}): Promise<AnvilTreasury> {
  const chain = await EvmTreasuryChain.start();
  const network = await options.network(chain);
  await chain.fundGasAccount();
  const config = {
    'chains.testNetworks': { eth: 'anvil' },
    'plugins.rates.providers': ['fixed'],
    'plugins.rates.fixed': { ETH: FIXED_RATES.ETH, USDT: FIXED_RATES.USDT, USDC: FIXED_RATES.USDC },
    'plugins.watchers.chains': {
      eth: { anvil: { providers: [{ name: 'anvil', url: chain.anvil.url }], startHeight: (await chain.anvil.blockNumber()) + 1 } },
    },
    'plugins.address-pool.targetFree': options.poolSize,
    'plugins.address-pool.hardCap': options.poolSize,
    'plugins.watchers.scanIntervalSeconds': 3600,
    ...FAST_RETRIES,
    'plugins.treasury.trackCron': '0 0 1 1 *',
    'plugins.treasury.reconcileCron': '0 0 1 1 *',
    'plugins.treasury.networks': { eth: { anvil: network } },
  };
  const plugins = [...MCP_PLUGINS, watchersPlugin, treasuryPlugin, ...(options.plugins ?? [])];
  const chains = [defineChain({ definition: chain.definition, createAdapter: createEvmAdapter })];
  const gw = await startTestKernel({ plugins, chains, role: 'all', config });
  const { project, token } = await treasuryOperator(gw, options.operator, 'eth');
  const cli = cliRunner({ plugins, chains, databaseUrl: () => gw.database.url, overrides: () => config });
  return { chain, gw, project, token, cli };
}

/** The treasury network of eth/anvil with the gas account alone (no sweeper configured). */
export const gasAccountOnly = (chain: EvmTreasuryChain) => ({ operatorAccounts: { gas: { address: chain.gasAccount.address, path: chain.gasAccount.path } } });

/** Runs the tracking pass until the account plan is confirmed (anvil mines each transaction at once; one confirmation counts). */
export async function trackUntilConfirmed(gw: TestKernel, chain: EvmTreasuryChain, api: Api, planId: string): Promise<any> {
  for (let i = 0; i < 10; i++) {
    await gw.kernel.cradle.treasuryAccountBroadcaster.track();
    const plan = await api('GET', `/api/v1/treasury/accounts/plans/${planId}`);
    if (plan.body.status !== 'broadcast') return plan.body;
    await chain.anvil.mine(1);
  }
  throw new Error('plan not confirmed');
}

/** A step of an account plan file as `EvmTreasuryChain.sign` takes it: the file's signer in the contract's form. */
export function fileStep(s: any): AccountStep {
  const { kind, role, address, path } = s.signer;
  const signer = kind === 'operator' ? { kind, account: { role, address, path } } : { kind, address, path };
  return { id: s.id, signer, unsigned: s.unsigned } as unknown as AccountStep;
}
