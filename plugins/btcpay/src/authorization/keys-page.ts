import { html, isUlid, publicBaseUrl, type SafeHtml } from '@gw/kernel';
import {
  actionButton,
  badge,
  dashboardErrors,
  definePage,
  nextPageLink,
  page,
  pageOf,
  redirect,
  table,
  type DashboardRequest,
} from '@gw/plugin-dashboard/contract';
import type { ProjectView } from '@gw/plugin-tenancy/contract';
import type { BtcpayApiKeyView } from '../credentials/api-key-service.js';
import { isStorePolicy, parsePermission } from '../credentials/permissions.js';
import { btcpayErrors } from '../errors.js';
import { approve, earlierKeys, KEYS_PAGE_PATH, operatorProjects, type KeysPageServices } from './approval.js';
import { approvalView } from './approval-view.js';
import { applicationLabel, parseAuthorizeRequest } from './authorize-request.js';
import { deniedPage } from './hand-over.js';
import { PERMISSION_DESCRIPTIONS } from './permission-descriptions.js';

type Services = KeysPageServices;
type Request = DashboardRequest<Services>;

const BASE = KEYS_PAGE_PATH;

/**
 * The operator's Greenfield API keys (label, permissions, stores, created, last used, approving
 * user; revoke), and the approval page of the API-key authorization flow (`/authorize`, reached
 * from `{prefix}/api-keys/authorize` through the sign-in): approve (administrators) or deny.
 */
export const btcpayKeysPage = definePage<Services>({
  nav: { label: 'BTCPay keys', scope: 'operator', path: BASE, order: 35 },
  cli: ['btcpay-key list'],
  summary: "The operator's BTCPay Greenfield API keys: label, permissions, stores, created, last used, approving user; revoke.",
  render: async (req) => {
    const keys = await req.services.btcpayApiKeys.list(req.user.operatorId, pageOf(req));
    const projects = new Map((await operatorProjects(req)).map((p) => [p.id, p]));
    const users = await approvers(req, keys);
    // The configured public address, else the one this page was reached at.
    const base = req.services.kernelConfig.http.baseUrl ? publicBaseUrl(req.services.kernelConfig) : `${req.ctx.protocol}://${req.ctx.host}`;
    const serverUrl = `${base}${req.services.btcpayConfig.pathPrefix}`;
    return page(
      'BTCPay keys',
      html`<h1>BTCPay keys</h1>
<p>Shop plugins written for BTCPay Server (WooCommerce, PrestaShop, Magento, WHMCS, Odoo…) connect here: give the plugin <code>${serverUrl}</code> as its BTCPay Server URL. It opens a request for an API key, which an administrator approves; the keys are listed here.</p>
${table(
  'Greenfield API keys',
  ['Label', 'Permissions', 'Stores', 'Created', 'Last used', 'Approved by', 'State', ''],
  keys.map((k) => [
    html`${k.label} <span class="note">(…${k.token_hint})</span>`,
    permissionTitles(k),
    storeNames(k, projects),
    k.created_at_iso,
    k.last_used_at_iso ?? 'never',
    users.get(k.user_id) ?? k.user_id,
    k.revoked_at_iso ? html`${badge('revoked')} <span class="note">${k.revoked_at_iso}</span>` : badge('active'),
    k.revoked_at_iso || req.user.role !== 'admin'
      ? null
      : actionButton(req, `${BASE}/revoke`, 'Revoke', {
          hidden: { key: k.id },
          danger: true,
          confirm: `Revoke the key “${k.label}”? The application using it loses access at once.`,
        }),
  ]),
  'No key yet: connect a shop plugin to create one.',
)}
${nextPageLink(req, BASE, keys, pageOf(req).limit)}`,
    );
  },
  views: {
    '/authorize': {
      summary: 'The approval page of a BTCPay API-key authorization request: who asks, which permissions, which stores; approve or deny.',
      render: async (req) => {
        const request = parseAuthorizeRequest(req.query);
        const earlier = await earlierKeys(req, request);
        return page(`Authorize ${applicationLabel(request)}`, approvalView(req, request, { projects: await operatorProjects(req), earlier }));
      },
    },
  },
  actions: {
    '/authorize': {
      summary: 'Approve (administrators: the key is created, then handed to the application or shown once) or deny a BTCPay API-key authorization request.',
      // Anyone signed in may deny (nothing is written); approving checks the role itself.
      role: 'member',
      once: true,
      handle: async (req) => {
        const request = parseAuthorizeRequest(new URLSearchParams(req.form.raw('request') ?? ''));
        const decision = req.form.choice('decision', 'Decision', ['approve', 'deny'] as const);
        if (decision === 'deny') return deniedPage(applicationLabel(request), request.redirect);
        if (req.user.role !== 'admin') throw dashboardErrors.role_forbidden();
        return approve(req, request);
      },
    },
    '/revoke': {
      summary: 'Revoke a BTCPay API key of the operator: the application using it loses access at once (audited).',
      cli: ['btcpay-key revoke'],
      handle: async (req) => {
        const id = req.form.raw('key') ?? '';
        if (!isUlid(id)) throw btcpayErrors.btcpay_api_key_not_found();
        const key = await req.services.btcpayApiKeys.revoke(id, req.actor, { operatorId: req.user.operatorId });
        return redirect(BASE, `The key “${key.label}” is revoked: the application using it loses access.`);
      },
    },
  },
});

/** The e-mail address of each approving user of `keys`. */
async function approvers(req: Request, keys: readonly BtcpayApiKeyView[]): Promise<Map<string, string>> {
  const users = new Map<string, string>();
  for (const id of new Set(keys.map((k) => k.user_id))) {
    const user = await req.services.tenancyUsers.find(id, { operatorId: req.user.operatorId });
    if (user) users.set(id, user.email);
  }
  return users;
}

/** A key's permissions in words, each policy once. */
function permissionTitles(key: BtcpayApiKeyView): SafeHtml {
  const policies = [...new Set(key.permissions.map((p) => parsePermission(p)?.policy).filter((p) => p !== undefined))];
  return html`${policies.map((p, i) => html`${i > 0 ? ', ' : ''}<span title="${p}">${PERMISSION_DESCRIPTIONS[p].title}</span>`)}`;
}

/** The projects a key's store permissions reach, by name; `every project` for a grant to all. */
function storeNames(key: BtcpayApiKeyView, projects: ReadonlyMap<string, ProjectView>): string {
  const parsed = key.permissions.map(parsePermission).filter((p) => p !== undefined);
  if (parsed.some((p) => p.policy === 'unrestricted' || (isStorePolicy(p.policy) && p.storeId === null))) return 'every project';
  const stores = [...new Set(parsed.map((p) => p.storeId).filter((s) => s !== null))];
  if (stores.length === 0) return 'none';
  return stores.map((s) => projects.get(s)?.name ?? s).join(', ');
}
