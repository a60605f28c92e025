import { coreErrors, html } from '@gw/kernel';
import { oauthErrors } from '@gw/plugin-oauth/contract';
import { USER_ROLES, type UserRole, type UserView } from '@gw/plugin-tenancy/contract';
import { dashboardErrors } from '../errors.js';
import { actionButton, badge, csrfField, nextPageLink, pageOf, table } from '../web/components.js';
import { definePage, page, redirect, type DashboardActionRequest, type DashboardRequest, type PageAction } from '../web/dashboard-page.js';

const ROLE_LABEL: Record<UserRole, string> = { admin: 'administrator', member: 'read-only member' };

/** The user of the path, when it is of the signed-in user's operator (and, for a member, themselves). */
const scopedUser = async (req: DashboardRequest): Promise<UserView> => {
  const id = req.params['userId']!;
  const user = await req.services.tenancyUsers.find(id);
  if (!user || user.operator_id !== req.user.operatorId) throw coreErrors.not_found({ message: 'There is no user with that id among your users.' });
  if (req.user.role !== 'admin' && user.id !== req.user.id)
    throw dashboardErrors.role_forbidden({ message: 'A read-only member sees only their own connected apps. Nothing was changed.' });
  return user;
};
/** An administrator's action on the user of the path (`/:userId/…` below the users page): its message is shown on the users page. */
const onUser = (summary: string, cli: string, act: (req: DashboardActionRequest, user: UserView) => Promise<string>): PageAction => ({
  summary,
  cli: [cli],
  handle: async (req) => redirect('/dashboard/users', await act(req, await scopedUser(req))),
});

/**
 * Users of the operator: list, invite with a role, change roles, disable and enable, end a user's
 * sessions (issue 33 item 12); each user's connected OAuth apps with revoke (every token and the
 * consent at once, spec 3.3). A member sees only their own apps and may revoke them.
 */
export const usersPage = definePage({
  nav: { label: 'Users', scope: 'operator', path: '/dashboard/users', order: 40 },
  summary: "The operator's users with their roles; invite and role forms for administrators.",
  cli: ['user list'],
  render: async (req) => {
    const cursor = pageOf(req);
    const list = await req.services.tenancyUsers.listForOperator(req.user.operatorId, cursor);
    const admin = req.user.role === 'admin';
    return page(
      'Users',
      html`<h1>Users</h1>
${table(
  'Users',
  ['E-mail', 'Status', 'Role', 'Connected apps', ...(admin ? ['Change role', 'Access'] : [])],
  list.map((u) => [
    u.email,
    badge(u.status),
    ROLE_LABEL[u.role],
    admin || u.id === req.user.id ? html`<a href="/dashboard/users/${u.id}/apps">Apps of ${u.email}</a>` : '',
    ...(admin && u.id !== req.user.id ? [roleForm(req, u), accessForms(req, u)] : admin ? ['(you)', '(you)'] : []),
  ]),
)}
${nextPageLink(req, '/dashboard/users', list, cursor.limit)}
${admin ? inviteForm(req) : null}`,
    );
  },
  views: {
    '/:userId/apps': {
      summary: "A user's connected OAuth apps: consent, scopes, live token lineages; revoke.",
      cli: ['oauth apps list'],
      render: async (req) => {
        const user = await scopedUser(req);
        const apps = await req.services.oauthTokens.listApps(user.id);
        return page(
          'Connected apps',
          html`<h1>Connected apps of ${user.email}</h1>
<p>Applications the user allowed to read the gateway through OAuth (MCP clients). Revoking one ends every token it holds and its consent at once.</p>
${table(
  'Connected apps',
  ['Application', 'Scopes', 'Consented', 'Live lineages', 'Last token', 'Action'],
  apps.map((a) => [
    html`${a.client_name ?? 'Unnamed application'}<br><code>${a.client_id}</code>`,
    a.scopes.join(' '),
    a.consent_revoked_at_iso ? html`revoked ${a.consent_revoked_at_iso}` : (a.consented_at_iso ?? 'no'),
    a.active_grants,
    a.last_token_at_iso ?? 'never',
    a.active_grants > 0 || (a.consented_at_iso && !a.consent_revoked_at_iso)
      ? actionButton(req, `/dashboard/users/${user.id}/apps/revoke`, `Revoke ${a.client_name ?? a.client_id}`, {
          confirm: 'Revoke this app? Every token of it stops working now.',
          danger: true,
          hidden: { client: a.client_id },
        })
      : 'revoked',
  ]),
  'No connected apps.',
)}
<p><a href="/dashboard/users">Back to the users</a></p>`,
        );
      },
    },
  },
  actions: {
    '': {
      summary: 'Invite a user by e-mail with a role (default read-only member).',
      cli: ['user invite'],
      handle: async (req) => {
        const email = req.form.text('email', 'E-mail address', { max: 254 });
        const role = req.form.choice<UserRole>('role', 'Role', USER_ROLES);
        const invited = await req.services.tenancyUsers.invite({ email, role, operator: req.user.operatorId }, req.actor);
        return redirect(
          '/dashboard/users',
          `${invited.email} is invited as ${ROLE_LABEL[invited.role]}. They sign in at /dashboard with a code sent to that address.`,
        );
      },
    },
    '/:userId/apps/revoke': {
      summary: 'Revoke a connected app: every token of (user, client) and the consent, at once.',
      cli: ['oauth apps revoke'],
      // A member may revoke their own apps (scopedUser refuses anyone else's).
      role: 'member',
      handle: async (req) => {
        const user = await scopedUser(req);
        const client = req.form.text('client', 'Client id', { max: 2048 });
        const result = await req.services.oauthTokens.revokeApp(user.id, client, req.actor as { actor: string; channel: 'dashboard' });
        if (!result) throw oauthErrors.oauth_app_not_found();
        return redirect(
          `/dashboard/users/${user.id}/apps`,
          `The app is revoked: ${result.access_tokens_revoked} access and ${result.refresh_tokens_revoked} refresh tokens ended, consent ${result.consent_revoked ? 'withdrawn' : 'already gone'}.`,
        );
      },
    },
    '/:userId/role': onUser("Set a user's role (administrator or read-only member).", 'user role set', async (req, user) => {
      if (user.id === req.user.id)
        throw dashboardErrors.invalid_form({ message: 'You cannot change your own role; ask another administrator (or use the CLI).' });
      const role = req.form.choice<UserRole>('role', 'Role', USER_ROLES);
      const updated = await req.services.tenancyUsers.setRole(user.id, role, req.actor, { operatorId: req.user.operatorId });
      return `${updated.email} is now ${ROLE_LABEL[updated.role]}.`;
    }),
    '/:userId/disable': onUser(
      'Disable a user: no more sign-in; their sessions, personal access tokens and OAuth grants end at once.',
      'user disable',
      async (req, user) => {
        const { ended } = await req.services.tenancyUsers.disable(user.id, req.actor, { operatorId: req.user.operatorId });
        return `${user.email} is disabled: ${describeEnded(ended)}.`;
      },
    ),
    '/:userId/enable': onUser('Enable a disabled user: they may sign in again (ended sessions and tokens stay ended).', 'user enable', async (req, user) => {
      const enabled = await req.services.tenancyUsers.enable(user.id, req.actor, { operatorId: req.user.operatorId });
      return `${enabled.email} is enabled and may sign in again.`;
    }),
    '/:userId/sessions/end': onUser('End every browser session of a user (dashboard and OAuth sign-in) at once.', 'user sessions end', async (req, user) => {
      const { ended } = await req.services.tenancyUsers.endSessions(user.id, req.actor, { operatorId: req.user.operatorId });
      return `The sessions of ${user.email} are ended: ${describeEnded(ended)}.`;
    }),
  },
});

function roleForm(req: DashboardRequest, user: UserView) {
  return html`<form class="inline" method="post" action="/dashboard/users/${user.id}/role">${csrfField(req)}
<label class="visually-hidden" for="role-${user.id}">Role of ${user.email}</label>
<select id="role-${user.id}" name="role">${USER_ROLES.map((r) => html`<option value="${r}"${r === user.role ? html` selected` : null}>${ROLE_LABEL[r]}</option>`)}</select>
<button type="submit">Set role</button>
</form>`;
}

/** Disable or enable, and end sessions: an administrator's buttons for another user. */
function accessForms(req: DashboardRequest, user: UserView) {
  const toggle =
    user.status === 'disabled'
      ? actionButton(req, `/dashboard/users/${user.id}/enable`, `Enable ${user.email}`)
      : actionButton(req, `/dashboard/users/${user.id}/disable`, `Disable ${user.email}`, {
          confirm: `Disable ${user.email}? Their sessions, access tokens and OAuth apps stop working now; enabling them again does not bring those back.`,
          danger: true,
        });
  return html`${toggle} ${actionButton(req, `/dashboard/users/${user.id}/sessions/end`, `End sessions of ${user.email}`, { confirm: `Sign ${user.email} out of every browser now?` })}`;
}

/** "2 dashboard sessions, 1 personal access token ended" from the counts by kind. */
function describeEnded(ended: Record<string, number>): string {
  const label: Record<string, string> = {
    pats: 'personal access tokens',
    dashboard_sessions: 'dashboard sessions',
    oauth_sessions: 'OAuth sign-in sessions',
    oauth_grants: 'OAuth grants',
  };
  const parts = Object.entries(ended)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${label[kind] ?? kind.replace(/_/g, ' ')}`);
  return parts.length ? `${parts.join(', ')} ended` : 'nothing was open';
}

function inviteForm(req: DashboardRequest) {
  return html`<h2 id="invite">Invite a user</h2>
<form method="post" action="/dashboard/users">${csrfField(req)}
<label for="invite-email">E-mail address</label>
<input id="invite-email" name="email" type="email" required maxlength="254">
<fieldset><legend>Role</legend>
<label class="choice"><input type="radio" name="role" value="member" checked> read-only member</label>
<label class="choice"><input type="radio" name="role" value="admin"> administrator (every action)</label>
</fieldset>
<button type="submit">Invite</button>
</form>`;
}
