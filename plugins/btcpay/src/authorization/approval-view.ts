import { html, type SafeHtml } from '@gw/kernel';
import { csrfField, onceField, type DashboardRequest } from '@gw/plugin-dashboard/contract';
import type { ProjectView } from '@gw/plugin-tenancy/contract';
import { isStorePolicy, type BtcpayPolicy } from '../credentials/permissions.js';
import type { BtcpayApiKeyView } from '../credentials/api-key-service.js';
import { APPLICATION_TEXT_MAX, applicationLabel, authorizeQuery, type AuthorizeRequest } from './authorize-request.js';
import { APPROVAL_PATH } from './authorize-route.js';
import { splitRequested, whyNotGrantable } from './grant.js';
import { PERMISSION_DESCRIPTIONS } from './permission-descriptions.js';

/** The name of the checkbox that keeps `policy` (a request with `strict=false`). */
export function grantField(policy: BtcpayPolicy): string {
  return `grant.${policy}`;
}

/** What the approval page shows besides the request. */
export interface ApprovalContext {
  /** The operator's projects (the stores a key may reach). */
  readonly projects: readonly ProjectView[];
  /** Live keys made earlier for the same `applicationIdentifier`. */
  readonly earlier: readonly BtcpayApiKeyView[];
}

/**
 * The approval page's content: who asks, for which permissions (in words, with BTCPay's names),
 * for which of the operator's projects, where the key goes; the form to approve (administrators)
 * or deny. A request that cannot be granted says why and offers Deny only.
 */
export function approvalView(req: Pick<DashboardRequest<unknown>, 'csrf' | 'user'>, request: AuthorizeRequest, context: ApprovalContext): SafeHtml {
  const app = applicationLabel(request);
  const { grantable, refused } = splitRequested(request);
  const storeAsked = grantable.some(isStorePolicy);
  const reason =
    whyNotGrantable(request) ??
    (storeAsked && context.projects.length === 0 ? 'You have no project yet: create one first, then open the request again.' : undefined);
  const admin = req.user.role === 'admin';
  return html`<h1>Authorize ${app}</h1>
<p><strong>${app}</strong> asks for an API key to your projects on this gateway (BTCPay Server's Greenfield API).${request.applicationIdentifier && request.applicationName ? html` Application identifier: <code>${request.applicationIdentifier}</code>.` : null}</p>
${request.redirect ? html`<p>If you approve, the key is handed to <code>${request.redirect}</code>.</p>` : html`<p>If you approve, the key is shown to you once, to copy into the application.</p>`}
${earlierNote(context.earlier)}
${reason ? html`<div class="error" role="alert"><p>${reason}</p></div>` : null}
${admin ? null : html`<p class="warning">Only an administrator of your operator can approve this request. Ask one to open the application's request.</p>`}
<form method="post" action="${APPROVAL_PATH}">${csrfField(req)}${onceField()}
<input type="hidden" name="request" value="${authorizeQuery(request)}">
${
  reason || !admin
    ? null
    : html`<label for="key-label">Label of the key</label>
<input id="key-label" name="label" type="text" maxlength="${APPLICATION_TEXT_MAX}" value="${app}">
${storeAsked ? storeChoice(request, context.projects) : null}`
}
${permissionList(request, grantable, refused, !reason && admin)}
<div>${reason || !admin ? null : html`<button type="submit" name="decision" value="approve">Approve</button> `}<button type="submit" name="decision" value="deny" class="danger">Deny</button></div>
</form>`;
}

/** The store the store permissions apply to: picked (`selectiveStores`), else every project, named. */
function storeChoice(request: AuthorizeRequest, projects: readonly ProjectView[]): SafeHtml {
  if (!request.selectiveStores)
    return html`<p>The store permissions apply to each of your ${projects.length} project${projects.length === 1 ? '' : 's'}: ${projects.map((p, i) => html`${i > 0 ? ', ' : ''}<strong>${p.name}</strong>`)}. Projects created later are not included.</p>`;
  return html`<label for="key-store">Store (project) the key applies to</label>
<select id="key-store" name="store" required>
${projects.map((p) => html`<option value="${p.id}">${p.name} (${p.kind}${p.status === 'active' ? '' : `, ${p.status}`})</option>`)}
</select>`;
}

/** The permissions asked for: checkboxes when the person may untick some, a list otherwise; refused ones marked. */
function permissionList(request: AuthorizeRequest, grantable: readonly BtcpayPolicy[], refused: readonly BtcpayPolicy[], choosing: boolean): SafeHtml {
  if (request.permissions.length === 0) return html``;
  const item = (policy: BtcpayPolicy, extra: SafeHtml | null) => {
    const d = PERMISSION_DESCRIPTIONS[policy];
    return html`<strong>${d.title}</strong> <code>${policy}</code>: ${d.description}${extra}`;
  };
  const untickable = choosing && !request.strict;
  return html`<fieldset><legend>Permissions</legend>
${request.strict ? null : html`<p class="note">The application lets you untick permissions it can do without.</p>`}
<ul>
${grantable.map((p) =>
  untickable
    ? html`<li><label class="choice"><input type="checkbox" name="${grantField(p)}" value="on" checked> ${item(p, null)}</label></li>`
    : html`<li>${item(p, null)}</li>`,
)}
${refused.map((p) => html`<li>${item(p, html` <span class="warning">Not available on this gateway: not granted.</span>`)}</li>`)}
</ul>
</fieldset>`;
}

/**
 * BTCPay hands back an earlier key of the same application; this gateway keeps only a fingerprint of
 * each key, so it says so and issues a new one (docs/decisions.md).
 */
function earlierNote(earlier: readonly BtcpayApiKeyView[]): SafeHtml | null {
  if (earlier.length === 0) return null;
  return html`<div class="warning"><p>This application was given ${earlier.length === 1 ? 'a key' : `${earlier.length} keys`} before (${earlier.map((k, i) => html`${i > 0 ? ', ' : ''}“${k.label}”, created <time datetime="${k.created_at_iso}">${k.created_at_iso.slice(0, 10)}</time>`)}). This gateway keeps only a fingerprint of its keys and cannot hand an earlier one back: approving issues a new key. Revoke the earlier one on the <a href="/dashboard/btcpay-keys">BTCPay keys</a> page once the application uses the new one.</p></div>`;
}
