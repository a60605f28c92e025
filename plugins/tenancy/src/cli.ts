import { CLI_ACTOR, type CliCommand, type CliFlag, defineCommand, type Deps, givenFlags, isUlid, PROJECT_KINDS, ulidFlag, type ProjectKind } from '@gw/kernel';
import { tenancyErrors } from './errors.js';
import { USER_ROLES, type UserRole } from './models/user.js';
import { PAT_SCOPES } from './scopes.js';

const projectFlag = ulidFlag('Project');
const roleFlag: CliFlag = {
  type: 'string',
  description: 'admin or member.',
  validate: (v) => ((USER_ROLES as readonly string[]).includes(v) ? undefined : `must be one of ${USER_ROLES.join(', ')}`),
};
const operatorFlag: CliFlag = { type: 'string', description: 'Operator id or name (default: the only operator).' };
const userFlag: CliFlag = { type: 'string', required: true, description: 'User id or e-mail.' };
const userOperatorFlag: CliFlag = {
  type: 'string',
  description: 'Operator id or name of the user (needed for an e-mail that users of several operators have).',
};

/** `--operator` of a user command, resolved to the operator's id (a name is looked up). */
async function userScope(flags: Record<string, unknown>, deps: Deps<'tenancyOperators'>): Promise<{ operatorId?: string }> {
  return flags['operator'] ? { operatorId: (await deps.tenancyOperators.find(String(flags['operator']))).id } : {};
}

/** Operator CLI commands of the tenancy plugin. */
export const tenancyCommands: CliCommand[] = [
  defineCommand(['tenancyOperators'], {
    noun: 'operator',
    verb: 'create',
    summary: 'Create an operator (the party that runs this gateway and owns projects).',
    flags: {
      name: {
        type: 'string',
        required: true,
        description: 'Unique operator name.',
        validate: (v) => (v.trim().length >= 1 && v.length <= 128 ? undefined : 'must be 1 to 128 characters'),
      },
    },
    run: ({ flags, deps }) => deps.tenancyOperators.create(String(flags['name']).trim(), CLI_ACTOR).then((o) => ({ operator: o })),
  }),
  defineCommand(['tenancyOperators'], {
    noun: 'operator',
    verb: 'list',
    summary: 'List operators with their subscription status.',
    run: async ({ deps }) => deps.tenancyOperators.list(),
  }),
  defineCommand(['tenancyOperators'], {
    noun: 'subscription',
    verb: 'set',
    summary: "Set an operator's subscription status; while not active, REST writes of production and testnet projects get 402.",
    flags: { status: { type: 'string', required: true, choices: ['active', 'expired'], description: 'New status.' }, operator: operatorFlag },
    run: async ({ flags, deps }) => {
      const operators = await deps.tenancyOperators.list();
      const target = flags['operator'] ? String(flags['operator']) : operators.length === 1 ? operators[0]!.id : undefined;
      if (!target) {
        throw operators.length === 0 ? tenancyErrors.operator_not_found({ message: 'No operator exists yet.' }) : tenancyErrors.operator_required();
      }
      return { operator: await deps.tenancyOperators.setSubscription(target, flags['status'] as 'active' | 'expired', CLI_ACTOR) };
    },
  }),
  defineCommand(['tenancyProjects'], {
    noun: 'project',
    verb: 'create',
    summary: 'Create a project of a fixed kind and issue its API key (the secret is shown once).',
    flags: {
      kind: { type: 'string', required: true, choices: PROJECT_KINDS, description: 'production, testnet or sandbox; fixed for ever.' },
      name: {
        type: 'string',
        required: true,
        description: 'Project name, unique per operator.',
        validate: (v) => (v.trim().length >= 1 && v.length <= 128 ? undefined : 'must be 1 to 128 characters'),
      },
      operator: operatorFlag,
    },
    help: 'Sign requests with X-Project-Id = project.id and the printed api_secret (see docs/getting-started.md).',
    run: async ({ flags, deps }) => {
      return deps.tenancyProjects.create(
        { name: String(flags['name']).trim(), kind: flags['kind'] as ProjectKind, ...givenFlags(flags, 'operator') },
        CLI_ACTOR,
      );
    },
  }),
  defineCommand(['tenancyProjects'], {
    noun: 'project',
    verb: 'list',
    summary: 'List projects.',
    flags: { operator: operatorFlag, kind: { type: 'string', choices: PROJECT_KINDS, description: 'Only this kind.' } },
    run: async ({ flags, deps }) => {
      return deps.tenancyProjects.list(givenFlags(flags, 'operator', 'kind') as { operator?: string; kind?: ProjectKind });
    },
  }),
  ...(['suspend', 'resume'] as const).map((verb): CliCommand =>
    defineCommand(['tenancyProjects'], {
      noun: 'project',
      verb,
      summary: { suspend: 'Suspend a project: its requests get 403 project_suspended.', resume: 'Resume a suspended project.' }[verb],
      flags: { project: projectFlag },
      run: async ({ flags, deps }) => ({ project: await deps.tenancyProjects[verb](String(flags['project']), CLI_ACTOR) }),
    }),
  ),
  ...(['issue', 'rotate', 'revoke', 'suspend', 'resume'] as const).map((verb): CliCommand =>
    defineCommand(['tenancyApiKeys'], {
      noun: 'key',
      verb,
      summary: {
        issue: "Issue the project's API key when it has none live (after a revoke). Secret shown once.",
        rotate:
          'Rotate the secret; the previous one stays valid for security.keyRotationOverlapSeconds, or ends at once with --immediate (a leaked secret). Secret shown once.',
        revoke: 'Revoke the API key for good: requests get 403 key_revoked.',
        suspend: 'Suspend the API key: requests get 403 key_suspended until resumed.',
        resume: 'Resume a suspended API key.',
      }[verb],
      flags:
        verb === 'rotate'
          ? {
              project: projectFlag,
              immediate: { type: 'boolean', description: 'End every previous secret now, for requests and webhook signatures alike (no overlap).' },
            }
          : { project: projectFlag },
      run: async ({ flags, deps }) => {
        const project = String(flags['project']);
        const keys = deps.tenancyApiKeys;
        switch (verb) {
          case 'issue':
            return keys.issue(project, CLI_ACTOR);
          case 'rotate':
            return keys.rotate(project, CLI_ACTOR, { immediate: flags['immediate'] === true });
          case 'revoke':
            return keys.revoke(project, CLI_ACTOR);
          case 'suspend':
            return keys.suspend(project, CLI_ACTOR);
          case 'resume':
            return keys.resume(project, CLI_ACTOR);
        }
      },
    }),
  ),
  defineCommand(['tenancyPats'], {
    noun: 'pat',
    verb: 'create',
    summary: 'Create a personal access token (shown once; stored only as a SHA-256 hash).',
    flags: {
      scopes: {
        type: 'string',
        required: true,
        description: `Comma-separated scopes: ${PAT_SCOPES.join(', ')}.`,
        validate: (v) => {
          const bad = v
            .split(',')
            .map((s) => s.trim())
            .filter((s) => !(PAT_SCOPES as readonly string[]).includes(s));
          return bad.length ? `unknown scope(s): ${bad.join(', ')}` : undefined;
        },
      },
      project: { ...projectFlag, required: false, description: 'Bind the token to one project (ULID).' },
      operator: operatorFlag,
      name: { type: 'string', description: 'A label for the token.' },
    },
    help: 'Send as "Authorization: Bearer svc_pat_...".',
    run: async ({ flags, deps }) => {
      const scopes = String(flags['scopes'])
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      return deps.tenancyPats.create({ scopes, ...givenFlags(flags, 'project', 'operator', 'name') }, CLI_ACTOR);
    },
  }),
  defineCommand(['tenancyPats'], {
    noun: 'pat',
    verb: 'revoke',
    summary: 'Revoke a personal access token.',
    flags: {
      id: {
        ...projectFlag,
        description: 'Token id (ULID), as printed by pat create or pat list.',
        validate: (v) => (isUlid(v) ? undefined : 'must be a token id (ULID)'),
      },
    },
    run: async ({ flags, deps }) => ({ pat: await deps.tenancyPats.revoke(String(flags['id']), CLI_ACTOR) }),
  }),
  defineCommand(['tenancyPats'], {
    noun: 'pat',
    verb: 'list',
    summary: 'List personal access tokens (never their secrets).',
    flags: { project: { ...projectFlag, required: false } },
    run: async ({ flags, deps }) => deps.tenancyPats.list(flags['project'] ? { project: String(flags['project']) } : {}),
  }),
  defineCommand(['tenancyUsers'], {
    noun: 'user',
    verb: 'invite',
    summary: 'Invite a user by e-mail (sign-in is invite-only).',
    flags: {
      email: { type: 'string', required: true, description: 'E-mail address.' },
      operator: operatorFlag,
      role: { ...roleFlag, description: 'Dashboard role: admin (every action, the default here) or member (read-only).' },
    },
    run: async ({ flags, deps }) => {
      // The CLI's user has the database credentials; the one they invite first must be able to act.
      const role = (flags['role'] ? String(flags['role']) : 'admin') as UserRole;
      return { user: await deps.tenancyUsers.invite({ email: String(flags['email']), role, ...givenFlags(flags, 'operator') }, CLI_ACTOR) };
    },
  }),
  defineCommand(['tenancyUsers'], {
    noun: 'user',
    verb: 'list',
    summary: 'List users.',
    run: async ({ deps }) => deps.tenancyUsers.list(),
  }),
  defineCommand(['tenancyUsers', 'tenancyOperators'], {
    noun: 'user role',
    verb: 'set',
    summary: "Set a user's dashboard role: admin (every action) or member (read-only). The last administrator who is not disabled keeps the role.",
    flags: { user: userFlag, role: { ...roleFlag, required: true }, operator: userOperatorFlag },
    run: async ({ flags, deps }) => ({
      user: await deps.tenancyUsers.setRole(String(flags['user']), String(flags['role']), CLI_ACTOR, await userScope(flags, deps)),
    }),
  }),
  defineCommand(['tenancyUsers', 'tenancyOperators'], {
    noun: 'user',
    verb: 'disable',
    summary:
      "Disable a user: no more sign-in, and their sessions, personal access tokens and OAuth grants end at once. Refused for the operator's last administrator.",
    flags: { user: userFlag, operator: userOperatorFlag },
    run: async ({ flags, deps }) => deps.tenancyUsers.disable(String(flags['user']), CLI_ACTOR, await userScope(flags, deps)),
  }),
  defineCommand(['tenancyUsers', 'tenancyOperators'], {
    noun: 'user',
    verb: 'enable',
    summary: 'Enable a disabled user: they may sign in again (what disabling ended stays ended).',
    flags: { user: userFlag, operator: userOperatorFlag },
    run: async ({ flags, deps }) => ({ user: await deps.tenancyUsers.enable(String(flags['user']), CLI_ACTOR, await userScope(flags, deps)) }),
  }),
  defineCommand(['tenancyUsers', 'tenancyOperators'], {
    noun: 'user sessions',
    verb: 'end',
    summary: 'End every browser session of a user (dashboard and OAuth sign-in) at once; their tokens and OAuth apps are left alone.',
    flags: { user: userFlag, operator: userOperatorFlag },
    run: async ({ flags, deps }) => deps.tenancyUsers.endSessions(String(flags['user']), CLI_ACTOR, await userScope(flags, deps)),
  }),
  defineCommand(['tenancyProjects'], {
    noun: 'webhook',
    verb: 'set',
    summary: "Set a project's default webhook URL (used when an invoice has no callback_url).",
    flags: { project: projectFlag, url: { type: 'string', required: true, description: 'https URL (http allowed for testnet and sandbox projects).' } },
    run: async ({ flags, deps }) => ({ project: await deps.tenancyProjects.setWebhookUrl(String(flags['project']), String(flags['url']), CLI_ACTOR) }),
  }),
  defineCommand(['tenancyProjects'], {
    noun: 'webhook',
    verb: 'clear',
    summary: "Remove a project's default webhook URL.",
    flags: { project: projectFlag },
    run: async ({ flags, deps }) => ({ project: await deps.tenancyProjects.setWebhookUrl(String(flags['project']), null, CLI_ACTOR) }),
  }),
];
