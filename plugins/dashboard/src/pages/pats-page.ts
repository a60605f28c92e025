import { html, isUlid } from '@gw/kernel';
import { PAT_SCOPES, type PatScope } from '@gw/plugin-tenancy/contract';
import { dashboardErrors } from '../errors.js';
import { actionButton, badge, csrfField, nextPageLink, onceField, pageOf, table } from '../web/components.js';
import { definePage, page, redirect, type DashboardRequest } from '../web/dashboard-page.js';
import { SWITCHER_LIMIT } from '../web/mount.js';
import { secretsPage } from '../web/secrets-page.js';

const NAME_MAX = 128;

/** Personal access tokens of the operator: list (never the secrets), create with scopes (shown once), revoke. */
export const patsPage = definePage({
  nav: { label: 'Access tokens', scope: 'operator', path: '/dashboard/tokens', order: 30 },
  summary: "The operator's personal access tokens; a form to create one.",
  cli: ['pat list'],
  render: async (req) => {
    const cursor = pageOf(req);
    const list = await req.services.tenancyPats.listForOperator(req.user.operatorId, cursor);
    const admin = req.user.role === 'admin';
    return page(
      'Access tokens',
      html`<h1>Personal access tokens</h1>
<p>Tokens for the REST and MCP endpoints, sent as <code>Authorization: Bearer svc_pat_...</code>. Only their hash is stored.</p>
${table(
  'Tokens',
  ['Name', 'Scopes', 'Project', 'Created', 'State', ...(admin ? ['Action'] : [])],
  list.map((p) => [
    p.name,
    p.scopes.join(' '),
    p.project_id ? html`<code>${p.project_id}</code>` : 'every project',
    p.created_at_iso,
    badge(p.revoked_at_iso ? 'revoked' : 'active'),
    ...(admin
      ? [
          p.revoked_at_iso
            ? ''
            : actionButton(req, `/dashboard/tokens/${p.id}/revoke`, `Revoke ${p.name}`, {
                confirm: `Revoke the token ${p.name}? Requests with it will be refused.`,
                danger: true,
              }),
        ]
      : []),
  ]),
  'No tokens yet.',
)}
${nextPageLink(req, '/dashboard/tokens', list, cursor.limit)}
${admin ? await createForm(req) : null}`,
    );
  },
  actions: {
    '': {
      summary: 'Create a personal access token with scopes (shown once).',
      cli: ['pat create'],
      once: true,
      handle: async (req) => {
        const scopes = PAT_SCOPES.filter((s) => req.form.checked(`scope.${s}`));
        if (scopes.length === 0) throw dashboardErrors.invalid_form({ message: 'Choose at least one scope.' });
        const name = req.form.text('name', 'Name', { max: NAME_MAX });
        const projectId = req.form.optional('project', 'Project', { max: 26 });
        if (projectId !== undefined) {
          // Only a project of the user's operator can be named.
          const project = isUlid(projectId) ? await req.services.tenancyProjects.get(projectId).catch(() => undefined) : undefined;
          if (!project || project.operator_id !== req.user.operatorId)
            throw dashboardErrors.invalid_form({ message: 'Choose one of your projects, or every project.' });
        }
        const created = await req.services.tenancyPats.create(
          { scopes: [...scopes], name, userId: req.user.id, ...(projectId ? { project: projectId } : { operator: req.user.operatorId }) },
          req.actor,
        );
        return secretsPage(
          'Token created',
          'Token created',
          html`<p>Token <strong>${created.name}</strong> with scopes <code>${created.scopes.join(' ')}</code>${created.project_id ? html` for project <code>${created.project_id}</code>` : ' for every project of the operator'}.</p>`,
          [{ id: 'pat', label: 'Personal access token', secret: created.token }],
          html`<p><a href="/dashboard/tokens">Back to the tokens</a></p>`,
        );
      },
    },
    '/:tokenId/revoke': {
      summary: 'Revoke a personal access token.',
      cli: ['pat revoke'],
      handle: async (req) => {
        const revoked = await req.services.tenancyPats.revoke(req.params['tokenId']!, req.actor, { operatorId: req.user.operatorId });
        return redirect('/dashboard/tokens', `The token ${revoked.name} is revoked.`);
      },
    },
  },
});

async function createForm(req: DashboardRequest) {
  const projects = await req.services.tenancyProjects.listForOperator(req.user.operatorId, { limit: SWITCHER_LIMIT });
  const described: Record<PatScope, string> = {
    'projects:read': 'read projects',
    'invoices:read': 'read invoices',
    'transactions:read': 'read transactions',
    'webhooks:read': 'read webhook events',
    'invoices:write': 'create and cancel invoices',
    'webhooks:manage': 'resend and replay webhook events',
    'admin:all': 'everything',
    'sandbox:simulate': 'sandbox simulations',
    'treasury:read': 'read treasury balances and plans',
    'treasury:write': 'plan, import, broadcast and bump treasury transactions (moves money once signed)',
    'refunds:read': 'read refunds',
    'refunds:write': 'propose and cancel refunds (an administrator approves them)',
    'payouts:read': 'read payouts',
    'payouts:write': 'propose and cancel payouts (an administrator approves them)',
  };
  return html`<h2 id="new-token">New token</h2>
<form method="post" action="/dashboard/tokens">${csrfField(req)}${onceField()}
<label for="token-name">Name</label>
<input id="token-name" name="name" type="text" required maxlength="${NAME_MAX}">
<fieldset><legend>Scopes</legend>
${PAT_SCOPES.map((s) => html`<label class="choice"><input type="checkbox" name="scope.${s}" value="on"> <code>${s}</code> (${described[s]})</label>`)}
</fieldset>
<label for="token-project">Project</label>
<select id="token-project" name="project">
<option value="">Every project of the operator</option>
${projects.map((p) => html`<option value="${p.id}">${p.name} (${p.kind})</option>`)}
</select>
<div><button type="submit">Create token</button></div>
</form>`;
}
