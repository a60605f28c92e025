import { html } from '@gw/kernel';
import type { IssuedSecret } from '@gw/plugin-tenancy/contract';
import { actionButton, badge, csrfField, onceField, table } from '../web/components.js';
import { definePage, page, redirect, type DashboardRequest } from '../web/dashboard-page.js';
import { secretsPage } from '../web/secrets-page.js';

const base = (req: DashboardRequest) => `/dashboard/projects/${req.project!.id}/key`;
const shown = (req: DashboardRequest, title: string, issued: IssuedSecret) =>
  secretsPage(
    title,
    title,
    html`<p>Project <strong>${req.project!.name}</strong> (<code>${req.project!.id}</code>).</p>`,
    [{ id: 'api-secret', label: 'New API secret', secret: issued.api_secret }],
    html`${issued.previous_secret_expires_at_iso ? html`<p>The previous secret keeps working until <time datetime="${issued.previous_secret_expires_at_iso}">${issued.previous_secret_expires_at_iso}</time>, so partners can switch without downtime.</p>` : null}
<p><a href="${base(req)}">Back to the API key</a></p>`,
  );

/**
 * A project's API key: its state and the secrets that still work (a rotation's overlap shown with
 * its end), issue, rotate (optionally without overlap), suspend, resume, revoke. A new secret is
 * shown once.
 */
export const apiKeysPage = definePage({
  nav: { label: 'API key', scope: 'project', path: '/key', order: 10 },
  summary: "The project's API key: state, working secrets and their ends, actions.",
  render: async (req) => {
    const view = await req.services.tenancyApiKeys.view(req.project!.id);
    const secrets = view && view.state !== 'revoked' ? await req.services.tenancyApiKeys.secretLifetimes(req.project!.id) : [];
    const overlap = req.services.kernelConfig.security.keyRotationOverlapSeconds;
    const admin = req.user.role === 'admin';
    return page(
      'API key',
      html`<h1>API key</h1>
<p>Requests of project <strong>${req.project!.name}</strong> are signed with the secret of its one API key (<code>X-Project-Id: ${req.project!.id}</code>).</p>
${
  view
    ? html`<dl class="facts"><dt>Key id</dt><dd><code>${view.api_key_id}</code></dd><dt>State</dt><dd>${badge(view.state)}</dd><dt>Secret kind</dt><dd>${view.secret_kind}</dd><dt>Created</dt><dd>${view.created_at_iso}</dd></dl>
${table(
  'Secrets that work now',
  ['Secret id', 'Created', 'Works until'],
  secrets.map((s) => [html`<code>${s.id}</code>`, s.created_at_iso, s.expires_at_iso ?? 'the next rotation']),
  'No working secret.',
)}`
    : html`<p>The project has no live API key.</p>`
}
${admin ? actions(req, view?.state, overlap) : null}`,
    );
  },
  actions: {
    '/issue': {
      summary: 'Issue the API key when the project has none live (secret shown once).',
      cli: ['key issue'],
      once: true,
      handle: async (req) => shown(req, 'API key issued', await req.services.tenancyApiKeys.issue(req.project!.id, req.actor)),
    },
    '/rotate': {
      summary: 'Rotate the secret (the previous one works for the overlap, or ends now with "immediate"); secret shown once.',
      cli: ['key rotate'],
      once: true,
      handle: async (req) =>
        shown(req, 'Secret rotated', await req.services.tenancyApiKeys.rotate(req.project!.id, req.actor, { immediate: req.form.checked('immediate') })),
    },
    ...Object.fromEntries(
      (['suspend', 'resume', 'revoke'] as const).map((verb) => [
        `/${verb}`,
        {
          cli: [`key ${verb}`],
          summary: {
            suspend: 'Suspend the API key (requests get 403 key_suspended).',
            resume: 'Resume a suspended API key.',
            revoke: 'Revoke the API key for good (requests get 403 key_revoked).',
          }[verb],
          handle: async (req: DashboardRequest) => {
            await req.services.tenancyApiKeys[verb](req.project!.id, req.actor);
            return redirect(
              base(req),
              { suspend: 'The API key is suspended.', resume: 'The API key is active again.', revoke: 'The API key is revoked. Issue a new one when needed.' }[
                verb
              ],
            );
          },
        },
      ]),
    ),
  },
});

function actions(req: DashboardRequest, state: string | undefined, overlapSeconds: number) {
  const base = `/dashboard/projects/${req.project!.id}/key`;
  if (state === undefined || state === 'revoked') return html`<h2>Actions</h2>${actionButton(req, `${base}/issue`, 'Issue API key', { once: true })}`;
  return html`<h2>Rotate</h2>
<form method="post" action="${base}/rotate" data-confirm="Rotate the secret of this project?">${csrfField(req)}${onceField()}
<p>A new secret is shown once. The current one keeps working for ${Math.round(overlapSeconds / 3600)} hours (${overlapSeconds} s) unless you end it now.</p>
<label class="choice"><input type="checkbox" name="immediate" value="on"> End every previous secret now (a leaked secret)</label>
<div><button type="submit">Rotate secret</button></div>
</form>
<h2>State</h2>
${state === 'active' ? actionButton(req, `${base}/suspend`, 'Suspend key', { confirm: 'Suspend the key? Requests will be refused until resumed.' }) : actionButton(req, `${base}/resume`, 'Resume key')}
${actionButton(req, `${base}/revoke`, 'Revoke key', { confirm: 'Revoke the key for good? Requests will be refused.', danger: true })}`;
}
