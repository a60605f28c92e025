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
  onSandboxProject('wallets', "A sandbox project's generated account keys (chain, xpub, bound_at_iso).", async (deps, projectId) => ({
    wallets: await deps.sandboxProjects.wallets(projectId),
  })),
  onSandboxProject(
    'reset',
    'Soft-purge a sandbox project: its invoices, transactions, webhook events and address pool go; the project, keys, bindings and PAT stay.',
    (deps, projectId) => deps.sandboxProjects.reset(projectId, CLI_ACTOR),
  ),
  onSandboxProject('delete', 'Delete a sandbox project and everything of it, API key and PAT included. Irreversible.', (deps, projectId) =>
    deps.sandboxProjects.delete(projectId, CLI_ACTOR),
  ),
];

/** A command on the sandbox project of `--project`; any other kind of project is refused before `act` runs. */
function onSandboxProject(verb: string, summary: string, act: (deps: Deps<'sandboxProjects'>, projectId: string) => Promise<object>): CliCommand {
  return defineCommand(['sandboxProjects', 'tenancyProjects'], {
    noun: 'sandbox',
    verb,
    summary,
    flags: { project: ulidFlag('Project') },
    run: async ({ flags, deps }) => {
      const projectId = String(flags['project']);
      await sandboxOnly(deps, projectId);
      return act(deps, projectId);
    },
  });
}

async function sandboxOnly(deps: Deps<'tenancyProjects'>, projectId: string): Promise<void> {
  const project = await deps.tenancyProjects.get(projectId);
  if (project.kind !== 'sandbox') {
    throw coreErrors.sandbox_project_required({ message: `Project ${projectId} is a ${project.kind} project; these commands are for sandbox projects only.` });
  }
}
