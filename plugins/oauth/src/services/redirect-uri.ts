/** Hosts whose plain-http redirect URIs are allowed (spec 5.4 rule 3, RFC 8252 section 7.3). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export const MAX_REDIRECT_URIS = 10;
export const MAX_REDIRECT_URI_LENGTH = 2048;

/**
 * Why a redirect URI is refused, or undefined when it is acceptable: an absolute URL, https, or
 * http on a loopback host (any port); no fragment, no credentials, no wildcard.
 */
export function redirectUriProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0) return 'must be a non-empty string';
  if (value.length > MAX_REDIRECT_URI_LENGTH) return `must be at most ${MAX_REDIRECT_URI_LENGTH} characters`;
  if (/[\u0000-\u0020\u007f]/.test(value)) return 'must not contain spaces or control characters';
  if (value.includes('#')) return 'must not contain a fragment';
  if (value.includes('*')) return 'must not contain wildcards';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not embed credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') {
    if (LOOPBACK_HOSTS.has(url.hostname)) return undefined;
    return 'plain http is allowed only on loopback (127.0.0.1, localhost, [::1])';
  }
  return 'must use https, or http on a loopback host';
}

/** Whether `uri` is a loopback http redirect URI (its port may vary, RFC 8252 section 7.3). */
function isLoopback(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/** Whether `uri` (a valid URL) is a loopback http redirect URI. */
export function isLoopbackRedirect(uri: string): boolean {
  return isLoopback(new URL(uri));
}

/**
 * Whether a requested redirect URI matches a registered one. Exact string match, except that a
 * loopback http URI may use any port (native apps get an ephemeral port from the OS); scheme,
 * host, path and query must still be identical (docs/decisions.md, "OAuth").
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  if (redirectUriProblem(requested) !== undefined) return false;
  const wanted = new URL(requested);
  if (!isLoopback(wanted)) return false;
  return registered.some((candidate) => {
    let url: URL;
    try {
      url = new URL(candidate);
    } catch {
      return false;
    }
    if (!isLoopback(url)) return false;
    // Compare everything but the port, on the caller's own spelling (no normalisation beyond URL's).
    url.port = wanted.port;
    return url.href === wanted.href && sameSpelling(candidate, requested);
  });
}

/** The requested string is the registered one with only the port changed (no case or escaping games). */
function sameSpelling(registered: string, requested: string): boolean {
  const strip = (s: string) => s.replace(/^(http:\/\/(?:\[::1\]|[^/:?#]+))(?::\d+)?/, '$1');
  return strip(registered) === strip(requested);
}
