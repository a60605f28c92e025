import { CLI_ACTOR, type CliCommand, coreErrors, ulidFlag } from '@gw/kernel';

/** Operator CLI of the sandbox: one-action provisioning, wallets, reset and deletion. */
export const sandboxCommands: CliCommand[] = [
  {
    noun: 'sandbox',
    verb: 'create',
    summary: 'Provision a sandbox project in one action: project, seven generated testnet keys and bindings, an sk_sandbox_ API key and a sandbox:simulate PAT.',
    help: 'The API secret and the PAT are shown once, in this output only. Example: pnpm gateway sandbox create --name demo --json',
    flags: {
      name: { type: 'string', required: true, description: 'Project name (unique per operator).' },
      operator: { type: 'string', description: 'Operator id or name (default: the only operator, created when there is none).' },
    },
    run: async ({ flags, cradle }) => {
      const operator = flags['operator'] as string | undefined;
      return { sandbox: await cradle.sandboxProjects.provision({ name: String(flags['name']), ...(operator ? { operator } : {}) }, CLI_ACTOR) };
    },
  },
  {
    noun: 'sandbox',
    verb: 'wallets',
    summary: "A sandbox project's generated account keys (chain, xpub, bound_at_iso).",
    flags: { project: ulidFlag('Project') },
    run: async ({ flags, cradle }) => {
      await sandboxOnly(cradle, String(flags['project']));
      return { wallets: await cradle.sandboxProjects.wallets(String(flags['project'])) };
    },
  },
  {
    noun: 'sandbox',
    verb: 'reset',
    summary: "Soft-purge a sandbox project: its invoices, transactions, webhook events and address pool go; the project, keys, bindings and PAT stay.",
    flags: { project: ulidFlag('Project') },
    run: async ({ flags, cradle }) => {
      await sandboxOnly(cradle, String(flags['project']));
      return cradle.sandboxProjects.reset(String(flags['project']), CLI_ACTOR);
    },
  },
  {
    noun: 'sandbox',
    verb: 'delete',
    summary: 'Delete a sandbox project and everything of it, API key and PAT included. Irreversible.',
    flags: { project: ulidFlag('Project') },
    run: async ({ flags, cradle }) => {
      await sandboxOnly(cradle, String(flags['project']));
      return cradle.sandboxProjects.delete(String(flags['project']), CLI_ACTOR);
    },
  },
];

async function sandboxOnly(cradle: Parameters<CliCommand['run']>[0]['cradle'], projectId: string): Promise<void> {
  const project = await cradle.tenancyProjects.get(projectId);
  if (project.kind !== 'sandbox') {
    throw coreErrors.sandbox_project_required({ message: `Project ${projectId} is a ${project.kind} project; these commands are for sandbox projects only.` });
  }
}
