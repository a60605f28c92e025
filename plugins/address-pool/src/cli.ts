import { CLI_ACTOR, defineCommand, ulidFlag } from '@gw/kernel';
import type { ChainId, CliCommand, CliFlag, CliRunContext, Deps } from '@gw/kernel';

const projectFlag = ulidFlag('Project');
/** The flags of the pools a command reads: one project's, or one chain's of it. */
const POOL_SCOPE_FLAGS: Readonly<Record<string, CliFlag>> = { project: projectFlag, chain: { type: 'string', description: 'Only this chain.' } };

/** The pools `--project` (checked to exist) and `--chain` (optional, checked to be enabled) name. */
async function poolScope(flags: CliRunContext['flags'], deps: Deps<'tenancyProjects' | 'chains'>): Promise<{ projectId: string; chain?: ChainId }> {
  await deps.tenancyProjects.get(String(flags['project']));
  const chain = flags['chain'] ? deps.chains.get(String(flags['chain']) as ChainId).definition.id : undefined;
  return { projectId: String(flags['project']), ...(chain ? { chain } : {}) };
}

/** Operator CLI commands of the address pool. */
export const addressPoolCommands: CliCommand[] = [
  defineCommand(['tenancyProjects', 'chains', 'addressPoolStatus'], {
    noun: 'pool',
    verb: 'status',
    summary: "Address pool counts per state, overlay, activation (derived, activated, available for invoices) and gap of a project's verified wallets.",
    flags: POOL_SCOPE_FLAGS,
    run: async ({ flags, deps }) => deps.addressPoolStatus.status(await poolScope(flags, deps)),
  }),
  defineCommand(['tenancyProjects', 'chains', 'addressPoolReplenisher'], {
    noun: 'pool',
    verb: 'replenish',
    summary: 'Derive addresses up to the free target now (the worker does this every minute).',
    flags: POOL_SCOPE_FLAGS,
    run: async ({ flags, deps }) => deps.addressPoolReplenisher.replenish(await poolScope(flags, deps)),
  }),
  defineCommand(['addressPoolService'], {
    noun: 'pool',
    verb: 'activate',
    summary: 'Mark a TRON pool address as activated by hand (the watchers do it themselves once it exists on chain).',
    flags: {
      project: projectFlag,
      chain: { type: 'string', required: true, description: 'Chain whose addresses need activation (tron).' },
      address: { type: 'string', required: true, description: 'A pool address (see pool status: awaiting_activation).' },
    },
    help: 'Only activated TRON addresses are handed out. Where a watcher follows the network it marks an address activated once it exists on chain (an activation plan, or TRX from any wallet), and this is not needed. Otherwise send at least 1 TRX to the address, wait until it is confirmed, then run this command.',
    run: async ({ flags, deps }) => ({
      activated: await deps.addressPoolService.activate(
        { projectId: String(flags['project']), chain: String(flags['chain']), address: String(flags['address']) },
        CLI_ACTOR,
      ),
    }),
  }),
];
