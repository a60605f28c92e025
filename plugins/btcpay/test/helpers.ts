import { CLI_ACTOR } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { checkoutPlugin } from '@gw/plugin-checkout';
import { dashboardPlugin } from '@gw/plugin-dashboard';
import { oauthPlugin } from '@gw/plugin-oauth';
import { payoutsPlugin } from '@gw/plugin-payouts';
import { SANDBOX_PLUGINS, startSandboxKernel, type SandboxClient } from '@gw/plugin-sandbox/testing';
import { sessionsPlugin } from '@gw/plugin-sessions';
import { treasuryPlugin } from '@gw/plugin-treasury';
import { watchersPlugin } from '@gw/plugin-watchers';
import { btcpayPlugin } from '../src/index.js';

export type { SandboxClient };
export { sandboxClient } from '@gw/plugin-sandbox/testing';

/** The permissions BTCPay's WooCommerce plugin asks for (its GreenfieldApiAuthorization's required and optional ones). */
export const WOO_PERMISSIONS = [
  'btcpay.store.canviewinvoices',
  'btcpay.store.cancreateinvoice',
  'btcpay.store.canviewstoresettings',
  'btcpay.store.canmodifyinvoices',
  'btcpay.store.cancreatenonapprovedpullpayments',
  'btcpay.store.webhooks.canmodifywebhooks',
];

/** The events BTCPay's WooCommerce plugin registers its webhook for (its GreenfieldApiWebhook::WEBHOOK_EVENTS). */
export const WOO_EVENTS = ['InvoiceReceivedPayment', 'InvoicePaymentSettled', 'InvoiceProcessing', 'InvoiceExpired', 'InvoiceSettled', 'InvoiceInvalid'];

/** Every plugin the btcpay plugin needs, in the composition's order, the dashboard included (the authorization flow's pages). */
export const BTCPAY_PLUGINS = [
  ...SANDBOX_PLUGINS,
  watchersPlugin,
  treasuryPlugin,
  payoutsPlugin,
  checkoutPlugin,
  oauthPlugin,
  sessionsPlugin,
  btcpayPlugin,
  dashboardPlugin,
];

/**
 * A gateway with workers, fixed rates (see @gw/testing FIXED_RATES; 1 EUR = 1.08 USD), deliveries
 * to local receivers and the btcpay plugin enabled under its default prefix `/btcpay`.
 */
export function startBtcpayKernel(config: Record<string, unknown> = {}): Promise<TestKernel> {
  return startSandboxKernel({ 'plugins.btcpay.enabled': true, 'plugins.rates.fixedFiat': { EUR: '1.08' }, ...config }, BTCPAY_PLUGINS);
}

/** An operator and one of its users (an administrator), who approves its keys. */
export interface Owner {
  readonly operatorId: string;
  readonly userId: string;
  readonly email: string;
}

let sequence = 0;
const unique = (what: string) => `${what}-${process.pid}-${++sequence}-${Math.random().toString(36).slice(2, 8)}`;

/** A new operator with an administrator (named uniquely, so a test may make several). */
export async function newOwner(gw: TestKernel): Promise<Owner> {
  const { tenancyOperators, tenancyUsers } = gw.kernel.cradle;
  const operator = await tenancyOperators.create(unique('operator'), CLI_ACTOR);
  const user = await tenancyUsers.invite({ email: `${unique('owner')}@shop.example`, operator: operator.id, role: 'admin' }, CLI_ACTOR);
  return { operatorId: operator.id, userId: user.id, email: user.email };
}

/** A production project of `owner` (no wallet: it has no payment method until one is verified). */
export async function productionStore(gw: TestKernel, owner: Owner): Promise<{ readonly projectId: string }> {
  const { project } = await gw.kernel.cradle.tenancyProjects.create({ name: unique('store'), kind: 'production', operator: owner.operatorId }, CLI_ACTOR);
  return { projectId: project.id };
}

/** A Greenfield API key of `owner` with `permissions` (BTCPay strings, e.g. `btcpay.store.cancreateinvoice:<projectId>`). */
export async function issueKey(
  gw: TestKernel,
  owner: Owner,
  permissions: readonly string[],
  label = 'test shop',
): Promise<{ readonly token: string; readonly keyId: string }> {
  const { key, token } = await gw.kernel.cradle.btcpayApiKeys.create({ operatorId: owner.operatorId, userId: owner.userId, label, permissions }, CLI_ACTOR);
  return { token, keyId: key.id };
}

/** A Greenfield answer: status, headers, the raw text and the JSON body (undefined when the text is not JSON). */
export interface GreenfieldAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: any;
}

/**
 * Calls `{pathPrefix}{path}` (`path` starts with `/api/v1/`) as BTCPay's PHP client does:
 * `Authorization: token <key>` (omitted when `token` is undefined), JSON in and out. `headers`
 * are added or, with undefined, removed.
 */
export async function greenfield(
  gw: TestKernel,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string | undefined> = {},
): Promise<GreenfieldAnswer> {
  const sent: Record<string, string> = { Accept: 'application/json', 'Content-Type': 'application/json' };
  if (token !== undefined) sent['Authorization'] = `token ${token}`;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) delete sent[name];
    else sent[name] = value;
  }
  const response = await fetch(`${gw.url}${gw.kernel.cradle.btcpayConfig.pathPrefix}${path}`, {
    method,
    headers: sent,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

export { btcpayPeersDir, GreenfieldDocument, greenfieldDocument, assertGreenfieldAnswer } from './greenfield-document.js';
