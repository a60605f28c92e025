import { html } from '@gw/kernel';
import { secretsPage, type DashboardActionRequest, type DashboardRequest, type PageServices } from '@gw/plugin-dashboard/contract';
import type { ProjectView } from '@gw/plugin-tenancy/contract';
import type { BtcpayApiKeyView } from '../credentials/api-key-service.js';
import { isStorePolicy } from '../credentials/permissions.js';
import { btcpayErrors } from '../errors.js';
import { grantField } from './approval-view.js';
import { APPLICATION_TEXT_MAX, applicationLabel, type AuthorizeRequest } from './authorize-request.js';
import { grantedPermissions, splitRequested, whyNotGrantable } from './grant.js';
import { handOverPage } from './hand-over.js';

/** What the BTCPay keys pages read (ADR 0011): the plugin contributes them with `dashboardPages(KEYS_PAGE_DEPS, [...])`. */
export const KEYS_PAGE_DEPS = ['btcpayApiKeys', 'btcpayConfig', 'kernelConfig', 'tenancyProjects', 'tenancyUsers'] as const;
export type KeysPageServices = PageServices<typeof KEYS_PAGE_DEPS>;

/** Where the keys are listed (and the approval page lies below). */
export const KEYS_PAGE_PATH = '/dashboard/btcpay-keys';
/** How many keys of the operator the approval page reads to find the earlier keys of an application. */
const EARLIER_SCAN = 1000;

/** Creates the key the person approved and answers with its hand-over (a redirect) or the key shown once. */
export async function approve(req: DashboardActionRequest<KeysPageServices>, request: AuthorizeRequest) {
  const why = whyNotGrantable(request);
  if (why) throw btcpayErrors.btcpay_authorize_choice_invalid({ message: why });
  const { grantable } = splitRequested(request);
  const policies = request.strict ? grantable : grantable.filter((p) => req.form.checked(grantField(p)));
  let storeIds: string[] = [];
  if (policies.some(isStorePolicy)) {
    const projects = await operatorProjects(req);
    if (request.selectiveStores) {
      const picked = req.form.raw('store');
      if (!projects.some((p) => p.id === picked)) throw btcpayErrors.btcpay_authorize_choice_invalid({ message: 'Pick one of your projects for the key.' });
      storeIds = [picked!];
    } else storeIds = projects.map((p) => p.id);
  }
  const permissions = grantedPermissions({ policies, storeIds });
  const application = applicationLabel(request);
  const label = req.form.optional('label', 'The label', { max: APPLICATION_TEXT_MAX }) ?? application;
  const { key, token } = await req.services.btcpayApiKeys.create(
    { operatorId: req.user.operatorId, userId: req.user.id, label, permissions, applicationIdentifier: request.applicationIdentifier },
    req.actor,
  );
  if (request.redirect) return handOverPage({ application, redirect: request.redirect, apiKey: token, permissions: key.permissions, userId: key.user_id });
  return secretsPage(
    'API key created',
    `API key for ${application}`,
    html`<p>The key “${key.label}” was created with these permissions:</p><ul>${key.permissions.map((p) => html`<li><code>${p}</code></li>`)}</ul>`,
    [{ id: 'btcpay-key', label: 'API key', secret: token }],
    html`<p>Paste it into ${application}'s settings. <a href="${KEYS_PAGE_PATH}">Back to the BTCPay keys</a></p>`,
  );
}

/** Every project of the operator (the stores a key may reach), in id order. */
export function operatorProjects(req: DashboardRequest<KeysPageServices>): Promise<ProjectView[]> {
  return req.services.tenancyProjects.list({ operator: req.user.operatorId });
}

/** Live keys of the operator made for the request's `applicationIdentifier` (BTCPay looks them up only when a redirect is given too). */
export async function earlierKeys(req: DashboardRequest<KeysPageServices>, request: AuthorizeRequest): Promise<BtcpayApiKeyView[]> {
  if (request.applicationIdentifier === null || request.redirect === null) return [];
  const found: BtcpayApiKeyView[] = [];
  let after: string | undefined;
  for (let read = 0; read < EARLIER_SCAN;) {
    const keys = await req.services.btcpayApiKeys.list(req.user.operatorId, { limit: 200, ...(after ? { after } : {}) });
    found.push(...keys.filter((k) => k.revoked_at_iso === null && k.application_identifier === request.applicationIdentifier));
    read += keys.length;
    if (keys.length < 200) break;
    after = keys[keys.length - 1]!.id;
  }
  return found;
}
