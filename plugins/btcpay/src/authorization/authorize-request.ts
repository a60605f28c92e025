import { BTCPAY_POLICIES, isBtcpayPolicy, type BtcpayPolicy } from '../credentials/permissions.js';
import { btcpayErrors } from '../errors.js';

/**
 * An application's request for a Greenfield API key (`GET {prefix}/api-keys/authorize`), as BTCPay
 * Server takes it: the permissions it asks for, its name, whether the person may untick some
 * (`strict=false`) or pick the store (`selectiveStores=true`), where the key goes (`redirect`), and
 * the application's identifier.
 */
export interface AuthorizeRequest {
  /** The policies asked for, lower case, each once, in the order asked. */
  readonly permissions: readonly BtcpayPolicy[];
  readonly applicationName: string | null;
  readonly applicationIdentifier: string | null;
  /** Every permission or none (default); `false` lets the person untick some. */
  readonly strict: boolean;
  /** The person picks the one store the store permissions bind to (default: every project). */
  readonly selectiveStores: boolean;
  /** Where the browser POSTs the key (`apiKey`, `permissions[]`, `userId`): an absolute http(s) URL. */
  readonly redirect: string | null;
}

/** The longest application name or identifier taken. */
export const APPLICATION_TEXT_MAX = 200;
/** The longest redirect URL taken (the whole request must fit in a sign-in's return path). */
export const REDIRECT_MAX = 1000;
/** The most `permissions` values read (BTCPay has fewer policies than this). */
const PERMISSIONS_MAX = 64;
/** C0 and C1 control characters and DEL: never part of a name a page shows. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const SINGLE = ['applicationName', 'applicationIdentifier', 'strict', 'selectiveStores', 'redirect'] as const;

function invalid(message: string) {
  return btcpayErrors.btcpay_authorize_request_invalid({ message });
}

/** A value as a person may read it back in an error message: cut short, control characters shown as `?`. */
function quoted(value: string): string {
  const cut = value.length > 80 ? `${value.slice(0, 80)}…` : value;
  return `"${[...cut].map((c) => (CONTROL.test(c) ? '?' : c)).join('')}"`;
}

/**
 * Reads an authorization request from its query string.
 * @throws AppError 400 `btcpay_authorize_request_invalid` naming what is wrong: an unknown
 *   permission (or one bound to a store: the person approving picks stores), a parameter given
 *   twice, a boolean that is not `true`/`false`, a name with control characters or over
 *   {@link APPLICATION_TEXT_MAX} characters, a redirect that is not an absolute http(s) URL
 *   (or carries a user name or password, or is over {@link REDIRECT_MAX} characters).
 */
export function parseAuthorizeRequest(query: URLSearchParams): AuthorizeRequest {
  for (const name of SINGLE) if (query.getAll(name).length > 1) throw invalid(`The parameter ${name} is given more than once.`);
  const given = query.getAll('permissions');
  if (given.length > PERMISSIONS_MAX) throw invalid(`At most ${PERMISSIONS_MAX} permissions may be asked for.`);
  const permissions: BtcpayPolicy[] = [];
  for (const raw of given) {
    const value = raw.trim();
    if (value === '') continue;
    if (value.includes(':'))
      throw invalid(
        `The permission ${quoted(value)} names a store: ask for "${value.slice(0, value.indexOf(':'))}" and the person approving picks the stores.`,
      );
    const policy = value.toLowerCase();
    if (!isBtcpayPolicy(policy)) throw invalid(`The permission ${quoted(value)} is not a BTCPay permission. Known permissions: ${BTCPAY_POLICIES.join(', ')}.`);
    if (!permissions.includes(policy)) permissions.push(policy);
  }
  return {
    permissions,
    applicationName: applicationText(query, 'applicationName'),
    applicationIdentifier: applicationText(query, 'applicationIdentifier'),
    strict: flag(query, 'strict', true),
    selectiveStores: flag(query, 'selectiveStores', false),
    redirect: redirectUrl(query.get('redirect')),
  };
}

/** The request as a query string in one canonical form (what the approval page carries and reads back). */
export function authorizeQuery(request: AuthorizeRequest): string {
  const query = new URLSearchParams();
  for (const policy of request.permissions) query.append('permissions', policy);
  if (request.applicationName !== null) query.set('applicationName', request.applicationName);
  query.set('strict', String(request.strict));
  query.set('selectiveStores', String(request.selectiveStores));
  if (request.redirect !== null) query.set('redirect', request.redirect);
  if (request.applicationIdentifier !== null) query.set('applicationIdentifier', request.applicationIdentifier);
  return query.toString();
}

/** How the request names the application to a person: its name, else its identifier, else the redirect's host. */
export function applicationLabel(request: AuthorizeRequest): string {
  return request.applicationName ?? request.applicationIdentifier ?? (request.redirect ? new URL(request.redirect).host : 'An application');
}

function applicationText(query: URLSearchParams, name: 'applicationName' | 'applicationIdentifier'): string | null {
  const value = query.get(name)?.trim();
  if (value === undefined || value === '') return null;
  if (value.length > APPLICATION_TEXT_MAX) throw invalid(`The parameter ${name} is longer than ${APPLICATION_TEXT_MAX} characters.`);
  if (CONTROL.test(value)) throw invalid(`The parameter ${name} contains control characters.`);
  return value;
}

/** A boolean parameter as BTCPay reads it: `true` or `false` in any case; absent or empty, the default. */
function flag(query: URLSearchParams, name: 'strict' | 'selectiveStores', fallback: boolean): boolean {
  const value = query.get(name)?.trim().toLowerCase();
  if (value === undefined || value === '') return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw invalid(`The parameter ${name} must be true or false, not ${quoted(query.get(name)!)}.`);
}

function redirectUrl(raw: string | null): string | null {
  const value = raw?.trim();
  if (value === undefined || value === '') return null;
  if (value.length > REDIRECT_MAX) throw invalid(`The redirect URL is longer than ${REDIRECT_MAX} characters.`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`The redirect ${quoted(value)} is not an absolute URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(`The redirect ${quoted(value)} is not an http or https URL.`);
  if (url.username !== '' || url.password !== '') throw invalid('The redirect URL must not carry a user name or password.');
  if (url.href.length > REDIRECT_MAX) throw invalid(`The redirect URL is longer than ${REDIRECT_MAX} characters.`);
  return url.href;
}
