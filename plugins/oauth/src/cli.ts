import { CLI_ACTOR, type CliCommand, type CliFlag, defineCommand, type Deps } from '@gw/kernel';
import { tenancyErrors, type UserView } from '@gw/plugin-tenancy/contract';
import { oauthErrors } from './errors.js';

const userFlag: CliFlag = { type: 'string', required: true, description: 'User id (ULID) or e-mail address.' };
const operatorFlag: CliFlag = { type: 'string', description: 'Operator id or name of the user (needed for an e-mail that users of several operators have).' };

async function findUser(deps: Deps<'tenancyOperators' | 'tenancyUsers'>, value: string, operator: unknown): Promise<UserView> {
  const scope = typeof operator === 'string' && operator ? { operatorId: (await deps.tenancyOperators.find(operator)).id } : {};
  const user = await deps.tenancyUsers.find(value, scope);
  if (!user) throw tenancyErrors.user_not_found({ message: `No user "${value}".` });
  return user;
}

/** Operator CLI: a user's connected apps (the dashboard's connected-apps page, spec 3.3). */
export const oauthCommands: CliCommand[] = [
  defineCommand(['oauthTokens', 'tenancyOperators', 'tenancyUsers'], {
    noun: 'oauth apps',
    verb: 'list',
    summary: "A user's connected OAuth apps: consent, scopes, live token lineages.",
    flags: { user: userFlag, operator: operatorFlag },
    run: async ({ flags, deps }) => {
      const user = await findUser(deps, String(flags['user']), flags['operator']);
      return { user: { id: user.id, email: user.email }, apps: await deps.oauthTokens.listApps(user.id) };
    },
  }),
  defineCommand(['oauthTokens', 'tenancyOperators', 'tenancyUsers'], {
    noun: 'oauth apps',
    verb: 'revoke',
    summary: 'Revoke a connected app: every token of (user, client) and the consent, at once; the next authorization asks for consent again.',
    flags: {
      user: userFlag,
      operator: operatorFlag,
      client: {
        type: 'string',
        required: true,
        description: 'client_id: a registered client (ULID) or a metadata-document URL.',
        validate: (v) => (v.length >= 1 && v.length <= 2048 ? undefined : 'must be 1 to 2048 characters'),
      },
    },
    run: async ({ flags, deps }) => {
      const user = await findUser(deps, String(flags['user']), flags['operator']);
      const result = await deps.oauthTokens.revokeApp(user.id, String(flags['client']), CLI_ACTOR as { actor: string; channel: 'cli' });
      if (!result) throw oauthErrors.oauth_app_not_found({ message: `User ${user.email} has no consent or tokens for client ${String(flags['client'])}.` });
      return { revoked: result };
    },
  }),
];
