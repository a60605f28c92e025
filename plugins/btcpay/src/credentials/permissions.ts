import { coreErrors, type ProjectPrincipal } from '@gw/kernel';
import type { Context } from 'koa';
import type { BtcpayPrincipal } from '../contract.js';
import { btcpayErrors } from '../errors.js';

/**
 * BTCPay Server's API-key permissions (its `Policies`), as the strings BTCPay sends and accepts.
 * A store permission may be bound to one store (`btcpay.store.cancreateinvoice:<storeId>`); here a
 * store is a project of the key's operator, so the bound form names a project id.
 */
export const BTCPAY_POLICIES = [
  'unrestricted',
  'btcpay.server.canmodifyserversettings',
  'btcpay.server.canuseinternallightningnode',
  'btcpay.server.canviewlightninginvoiceinternalnode',
  'btcpay.server.cancreatelightninginvoiceinternalnode',
  'btcpay.server.canviewusers',
  'btcpay.server.cancreateuser',
  'btcpay.server.canmanageusers',
  'btcpay.user.canmodifyprofile',
  'btcpay.user.canviewprofile',
  'btcpay.user.canmanagenotificationsforuser',
  'btcpay.user.canviewnotificationsforuser',
  'btcpay.user.candeleteuser',
  'btcpay.store.canmodifystoresettings',
  'btcpay.store.canviewstoresettings',
  'btcpay.store.webhooks.canmodifywebhooks',
  'btcpay.store.canviewreports',
  'btcpay.store.canviewinvoices',
  'btcpay.store.cancreateinvoice',
  'btcpay.store.canmodifyinvoices',
  'btcpay.store.canviewpaymentrequests',
  'btcpay.store.canmodifypaymentrequests',
  'btcpay.store.canuselightningnode',
  'btcpay.store.canviewlightninginvoice',
  'btcpay.store.cancreatelightninginvoice',
  'btcpay.store.canmanagepullpayments',
  'btcpay.store.canarchivepullpayments',
  'btcpay.store.cancreatepullpayments',
  'btcpay.store.cancreatenonapprovedpullpayments',
  'btcpay.store.canviewpullpayments',
  'btcpay.store.canmanagepayouts',
  'btcpay.store.canviewpayouts',
  'btcpay.store.canviewofferings',
  'btcpay.store.canmodifyofferings',
] as const;

/** One of BTCPay's permission names (without a store). */
export type BtcpayPolicy = (typeof BTCPAY_POLICIES)[number];

/**
 * Which policies a policy includes directly (BTCPay's permission tree); `unrestricted` includes
 * every policy. Inclusion is transitive: `canmodifystoresettings` ⊇ `canmodifyinvoices` ⊇
 * `canviewinvoices`.
 */
const INCLUDES: Readonly<Partial<Record<BtcpayPolicy, readonly BtcpayPolicy[]>>> = {
  'btcpay.store.canmodifystoresettings': [
    'btcpay.store.canmanagepullpayments',
    'btcpay.store.canmodifyinvoices',
    'btcpay.store.canviewstoresettings',
    'btcpay.store.webhooks.canmodifywebhooks',
    'btcpay.store.canmodifypaymentrequests',
    'btcpay.store.canmanagepayouts',
    'btcpay.store.canmodifyofferings',
    'btcpay.store.canuselightningnode',
  ],
  'btcpay.server.canmanageusers': ['btcpay.server.cancreateuser'],
  'btcpay.store.canmanagepullpayments': ['btcpay.store.cancreatepullpayments', 'btcpay.store.canarchivepullpayments'],
  'btcpay.store.cancreatepullpayments': ['btcpay.store.cancreatenonapprovedpullpayments'],
  'btcpay.store.cancreatenonapprovedpullpayments': ['btcpay.store.canviewpullpayments'],
  'btcpay.store.canmodifypaymentrequests': ['btcpay.store.canviewpaymentrequests'],
  'btcpay.user.canmodifyprofile': ['btcpay.user.canviewprofile'],
  'btcpay.store.canmodifyofferings': ['btcpay.store.canviewofferings'],
  'btcpay.store.canuselightningnode': ['btcpay.store.canviewlightninginvoice', 'btcpay.store.cancreatelightninginvoice'],
  'btcpay.user.canmanagenotificationsforuser': ['btcpay.user.canviewnotificationsforuser'],
  'btcpay.server.canmodifyserversettings': ['btcpay.server.canuseinternallightningnode', 'btcpay.server.canmanageusers'],
  'btcpay.server.canuseinternallightningnode': ['btcpay.server.cancreatelightninginvoiceinternalnode', 'btcpay.server.canviewlightninginvoiceinternalnode'],
  'btcpay.store.canmodifyinvoices': ['btcpay.store.canviewinvoices', 'btcpay.store.cancreateinvoice', 'btcpay.store.cancreatelightninginvoice'],
  'btcpay.store.canviewstoresettings': [
    'btcpay.store.canviewinvoices',
    'btcpay.store.canviewpaymentrequests',
    'btcpay.store.canviewreports',
    'btcpay.store.canviewpullpayments',
    'btcpay.store.canviewpayouts',
  ],
  'btcpay.store.canmanagepayouts': ['btcpay.store.canviewpayouts'],
};

const POLICY_SET: ReadonlySet<string> = new Set(BTCPAY_POLICIES);

/** Whether `policy` is one of BTCPay's permission names (lower case, as BTCPay compares them). */
export function isBtcpayPolicy(policy: string): policy is BtcpayPolicy {
  return POLICY_SET.has(policy);
}

/** Whether the policy is about stores (only those may be bound to a store). */
export function isStorePolicy(policy: BtcpayPolicy): boolean {
  return policy.startsWith('btcpay.store.');
}

/** Whether holding `policy` grants `wanted` (itself, or through the tree). */
export function policyIncludes(policy: BtcpayPolicy, wanted: BtcpayPolicy): boolean {
  if (policy === 'unrestricted' || policy === wanted) return true;
  return (INCLUDES[policy] ?? []).some((child) => policyIncludes(child, wanted));
}

/** A granted permission: a policy, bound to one store or to every store of the operator. */
export interface ParsedPermission {
  readonly policy: BtcpayPolicy;
  /** The store (project id) it is bound to; null: every store. */
  readonly storeId: string | null;
}

/**
 * Parses a permission string as BTCPay does: the policy case-insensitively, an optional
 * `:<storeId>` only after a store policy. Undefined when it is not a permission.
 */
export function parsePermission(text: string): ParsedPermission | undefined {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(':');
  const policy = (colon === -1 ? trimmed : trimmed.slice(0, colon)).toLowerCase();
  if (!isBtcpayPolicy(policy)) return undefined;
  if (colon === -1) return { policy, storeId: null };
  const storeId = trimmed.slice(colon + 1);
  if (storeId.length === 0 || !isStorePolicy(policy)) return undefined;
  return { policy, storeId };
}

/** The canonical string of a permission (`policy` or `policy:storeId`). */
export function permissionText(permission: ParsedPermission): string {
  return permission.storeId === null ? permission.policy : `${permission.policy}:${permission.storeId}`;
}

/**
 * Whether `granted` (permission strings) grant `wanted`: for a store policy and a `storeId`, a
 * grant for every store or for that store; without a `storeId` (listing stores), a grant for any
 * store will do, and the caller shows only the stores it reaches ({@link reachableStores}).
 */
export function grants(granted: readonly string[], wanted: BtcpayPolicy, storeId?: string): boolean {
  return granted.some((text) => {
    const permission = parsePermission(text);
    if (!permission || !policyIncludes(permission.policy, wanted)) return false;
    if (!isStorePolicy(wanted) || storeId === undefined) return true;
    return permission.storeId === null || permission.storeId === storeId;
  });
}

/**
 * Which stores `granted` reach with `wanted`: `all` when a grant covers every store, else the
 * store ids named by the grants that include it.
 */
export function reachableStores(granted: readonly string[], wanted: BtcpayPolicy): 'all' | ReadonlySet<string> {
  const stores = new Set<string>();
  for (const text of granted) {
    const permission = parsePermission(text);
    if (!permission || !policyIncludes(permission.policy, wanted)) continue;
    if (permission.storeId === null) return 'all';
    stores.add(permission.storeId);
  }
  return stores;
}

/** The caller of a Greenfield route: its key's principal and how to find a project it names. */
export interface BtcpayCaller extends BtcpayPrincipal {
  /** The project with that id (of any operator), or undefined: `requireStore` checks ownership. */
  findProject(projectId: string): Promise<ProjectPrincipal | undefined>;
}

/** Where the `btcpay_token` authenticator leaves the caller on the request. */
export const CALLER_STATE_KEY = 'btcpayCaller';

/**
 * The caller the `btcpay_token` authenticator set on this request. A route using another
 * authenticator (or none) has no caller: that is a wiring mistake, so it fails loudly.
 */
export function principalOf(ctx: Context): BtcpayCaller {
  const caller = ctx.state[CALLER_STATE_KEY] as BtcpayCaller | undefined;
  if (!caller) throw new Error('principalOf: the route does not authenticate with btcpay_token');
  return caller;
}

/** 403 `missing-permission` naming the policy the call needs, as BTCPay answers it. */
export function missingPermission(policy: BtcpayPolicy, message?: string) {
  return btcpayErrors.btcpay_missing_permission({
    message:
      message ??
      `Insufficient API Permissions. Please use an API key with permission "${policy}". You can create an API key in your account's settings / Api Keys.`,
    details: { missingPermission: policy },
  });
}

/** Throws 403 `missing-permission` unless the caller's key grants `policy` (on any store for a store policy). */
export function requirePermission(caller: BtcpayPrincipal, policy: BtcpayPolicy): void {
  if (!grants(caller.permissions, policy)) throw missingPermission(policy);
}

/**
 * The project `projectId` names when it belongs to the caller's key's operator; otherwise (no id, no
 * such project, or another operator's) the error `notFound` makes: another operator's project, or a
 * resource of it, is not one this key can know of.
 */
export async function operatorProject(caller: BtcpayCaller, projectId: string | undefined, notFound: () => Error): Promise<ProjectPrincipal> {
  const project = projectId === undefined ? undefined : await caller.findProject(projectId);
  if (!project || project.operatorId !== caller.operatorId) throw notFound();
  return project;
}

/**
 * The project `storeId` names, when the caller may act on it with `policy`: its key grants the
 * policy for that store (or every store) and the project belongs to the key's operator. Anything
 * else, a store that does not exist included, is 403 `missing-permission`, as BTCPay answers a
 * store its user cannot reach (so the answer reveals nothing about other operators' projects). A
 * suspended project is 403 `project_suspended`; with `write`, a production or testnet project of
 * an operator whose subscription is not active is 402 `subscription_expired`, as on the REST API.
 */
export async function requireStore(caller: BtcpayCaller, storeId: string, policy: BtcpayPolicy, options: { write?: boolean } = {}): Promise<ProjectPrincipal> {
  if (!grants(caller.permissions, policy, storeId)) throw missingPermission(policy);
  const project = await operatorProject(caller, storeId, () => missingPermission(policy));
  if (project.status !== 'active') throw coreErrors.project_suspended();
  if (options.write && project.kind !== 'sandbox' && !project.subscriptionActive) throw coreErrors.subscription_expired();
  return project;
}
