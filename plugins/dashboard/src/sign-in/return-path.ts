/** The query parameter of the sign-in page naming where to go once signed in. */
export const RETURN_TO_PARAM = 'return_to';

/** The longest return path kept (a request carried in a query string fits well below it). */
export const RETURN_PATH_MAX = 2048;

/** Printable ASCII without white space: what a path and query of a URL the gateway built consists of. */
const PRINTABLE = /^[\x21-\x7e]*$/;
/** A base no real request has, to resolve a path against and see whether it stays on it. */
const PROBE_BASE = 'http://return-path.invalid';
/** Paths of the sign-in itself: going back to them after signing in would go round in circles. */
const SIGN_IN_PAGES = ['/dashboard/sign-in', '/dashboard/sign-out'];

/**
 * `value` when it is a safe place to send a browser after sign-in: a path of this site's dashboard
 * (`/dashboard`, `/dashboard/...`, with an optional query), never another site (`//host`, a scheme,
 * a backslash that browsers read as a slash, `..` climbing out of `/dashboard`), never the sign-in
 * pages, at most {@link RETURN_PATH_MAX} characters; otherwise undefined. The answer is the path as
 * a URL parser normalises it (its fragment dropped), so what is checked is what the browser follows.
 */
export function safeReturnPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > RETURN_PATH_MAX) return undefined;
  if (!PRINTABLE.test(value) || value.includes('\\')) return undefined;
  if (value !== '/dashboard' && !value.startsWith('/dashboard/') && !value.startsWith('/dashboard?')) return undefined;
  let url: URL;
  try {
    url = new URL(value, PROBE_BASE);
  } catch {
    return undefined;
  }
  if (url.origin !== PROBE_BASE) return undefined;
  if (url.pathname !== '/dashboard' && !url.pathname.startsWith('/dashboard/')) return undefined;
  if (SIGN_IN_PAGES.some((p) => url.pathname === p || url.pathname.startsWith(`${p}/`))) return undefined;
  const normalised = `${url.pathname}${url.search}`;
  return normalised.length > RETURN_PATH_MAX ? undefined : normalised;
}

/**
 * The address of the sign-in page that, once the person signed in (or at once, when they already
 * are), leads to `path`: a dashboard path with its query, as {@link safeReturnPath} accepts it.
 * @throws Error when `path` is not one (a programming error of the caller).
 */
export function signInReturningTo(path: string): string {
  const safe = safeReturnPath(path);
  if (safe === undefined) throw new Error(`signInReturningTo: ${path.slice(0, 80)} is not a dashboard path`);
  return `/dashboard/sign-in?${new URLSearchParams({ [RETURN_TO_PARAM]: safe }).toString()}`;
}
