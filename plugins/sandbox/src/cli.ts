import { CLI_ACTOR, type CliCommand, coreErrors, defineCommand, type Deps, givenFlags, ulidFlag } from '@gw/kernel';

/** Operator CLI of the sandbox: one-action provisioning, wallets, reset and deletion. */
export const sandboxCommands: CliCommand[] = [
  defineCommand(['sandboxProjects'], {
    noun: 'sandbox',
    verb: 'create',
    summary:
      'Provision a sandbox project in one action: project, seven generated testnet keys and bindings, an sk_sandbox_ API key and a sandbox:simulate PAT.',
    help: 'The API secret and the PAT are shown once, in this output only. Example: pnpm gateway sandbox create --name demo --json',
    flags: {
      name: { type: 'string', required: true, description: 'Project name (unique per operator).' },
      operator: { type: 'string', description: 'Operator id or name (default: the only operator, created when there is none).' },
    },
    run: async ({ flags, deps }) => {
      return { sandbox: await deps.sandboxProjects.provision({ name: String(flags['name']), ...givenFlags(flags, 'operator') }, CLI_ACTOR) };
    },
  }),
  defineCommand(['sandboxProjects', 'tenancyProjects'], {
    noun: 'sandbox',
    verb: 'wallets',
    summary: "A sandbox project's generated account keys (chain, xpub, bound_at_iso).",
    flags: { project: ulidFlag('Project') },
    run: async ({ flags, deps }) => {
      await sandboxOnly(deps, String(flags['project']));
      return { wallets: await deps.sandboxProjects.wallets(String(flags['project'])) };
    },
  }),
  defineCommand(['sandboxProjects', 'tenancyProjects'], {
    noun: 'sandbox',
    verb: 'reset',
    summary: 'Soft-purge a sandbox project: its invoices, transactions, webhook events and address pool go; the project, keys, bindings and PAT stay.',
    flags: { project: ulidFlag('Project') },
    run: async ({ flags, deps }) => {
      await sandboxOnly(deps, String(flags['project']));
      return deps.sandboxProjects.reset(String(flags['project']), CLI_ACTOR);
    },
  }),
  defineCommand(['sandboxProjects', 'tenancyProjects'], {
    noun: 'sandbox',
    verb: 'delete',
    summary: 'Delete a sandbox project and everything of it, API key and PAT included. Irreversible.',
    flags: { project: ulidFlag('Project') },
    run: async ({ flags, deps }) => {
      await sandboxOnly(deps, String(flags['project']));
      return deps.sandboxProjects.delete(String(flags['project']), CLI_ACTOR);
    },
  }),
];

async function sandboxOnly(deps: Deps<'tenancyProjects'>, projectId: string): Promise<void> {
  const project = await deps.tenancyProjects.get(projectId);
  if (project.kind !== 'sandbox') {
    throw coreErrors.sandbox_project_required({ message: `Project ${projectId} is a ${project.kind} project; these commands are for sandbox projects only.` });
  }
}
