import { networkFor, toBaseUnits, type ChainRegistry, type McpToolDefinition } from '@gw/kernel';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { Logger } from 'pino';
import type { X402Config } from '../config.js';
import type { X402Networks } from '../services/x402-networks.js';

/** The services the start-up check of `plugins.x402.paidTools` reads. */
export const PAID_TOOLS_CHECK_DEPS = ['x402Config', 'x402Networks', 'mcpTools', 'tenancyProjects', 'chains', 'logger'] as const;

interface CheckDeps {
  readonly x402Config: X402Config;
  readonly x402Networks: X402Networks;
  readonly mcpTools: readonly McpToolDefinition[];
  readonly tenancyProjects: Pick<ProjectService, 'principal'>;
  readonly chains: ChainRegistry;
  readonly logger: Logger;
}

/**
 * Checks `plugins.x402.paidTools` at start-up: every entry names a tool this deployment serves, a
 * production or testnet project, and a coin x402 can be paid in on that project's network, at a
 * price above zero in the coin's precision; and settlement is on. A mistake there would otherwise
 * make a tool free (a name that matches no tool) or impossible to call (a price no agent can pay),
 * so it stops the start with every problem named. The coin's EIP-3009 is read from the chain: a
 * chain that does not answer at start is logged, not fatal (the first call finds out again).
 *
 * @throws Error naming each entry's problem.
 */
export async function checkPaidTools(deps: CheckDeps): Promise<void> {
  const entries = Object.entries(deps.x402Config.paidTools);
  if (entries.length === 0) return;
  const problems: string[] = [];
  if (deps.x402Config.settlement === 'off') problems.push('x402 is off (plugins.x402.settlement), so no paid tool could be paid');
  const tools = new Set(deps.mcpTools.map((tool) => tool.name));
  for (const [tool, price] of entries) {
    const where = `paidTools.${tool}`;
    if (!tools.has(tool)) problems.push(`${where}: this gateway serves no MCP tool ${tool} (\`gateway mcp tools\` lists them)`);
    const project = await deps.tenancyProjects.principal(price.projectId);
    if (!project) {
      problems.push(`${where}: no project ${price.projectId}`);
      continue;
    }
    if (project.kind === 'sandbox') {
      problems.push(`${where}: project ${project.id} is a sandbox project, whose invoices are never paid on chain`);
      continue;
    }
    if (!(deps.chains.coinIds() as readonly string[]).includes(price.coin)) {
      problems.push(`${where}: no enabled chain has the coin ${price.coin}`);
      continue;
    }
    const { adapter, coin } = deps.chains.coin(price.coin);
    const network = networkFor(adapter.definition, project.kind).id;
    if (!positive(price.amount, coin.decimals)) {
      problems.push(`${where}: the amount ${price.amount} is not above zero in ${price.coin}'s ${coin.decimals} decimals`);
      continue;
    }
    if (deps.x402Config.settlement === 'off') continue;
    try {
      if (!(await deps.x402Networks.asset(price.coin, network))) {
        problems.push(
          `${where}: ${price.coin} cannot be paid with x402 on ${adapter.definition.id} ${network} (a token implementing EIP-3009 on a watched network` +
            `${deps.x402Config.settlement === 'gas_wallet' ? ' with a gas wallet in plugins.x402.gasWallets' : ''})`,
        );
      }
    } catch (error) {
      deps.logger.warn({ err: error, tool, coin: price.coin, network }, 'x402: could not read whether a paid tool’s coin is payable; the first call will tell');
    }
  }
  if (problems.length > 0) throw new Error(`plugins.x402.paidTools: ${problems.join('; ')}`);
}

function positive(amount: string, decimals: number): boolean {
  try {
    return toBaseUnits(amount, decimals) > 0n;
  } catch {
    return false;
  }
}
