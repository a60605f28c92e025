/** Extra sources a page may use beyond `'self'` (e.g. an operator's logo host). */
export interface PageSecurityOptions {
  /** Extra `img-src` sources (the page's own origin and `data:` are always allowed). */
  readonly imgSrc?: readonly string[];
  /** Extra `form-action` targets. */
  readonly formAction?: readonly string[];
  /**
   * `same-origin` keeps the referrer (and the `Origin` of form posts) within the gateway, for pages
   * whose forms are checked by their Origin (the dashboard): under `no-referrer`, the default,
   * browsers send `Origin: null` with a form post.
   */
  readonly referrerPolicy?: 'no-referrer' | 'same-origin';
  /** Whether the page may be cached by the browser (default no: pages carry session state). */
  readonly cacheable?: boolean;
}

/**
 * Response headers of every HTML page the gateway serves to a person: a Content Security Policy
 * that allows only the gateway's own scripts, styles, images and connections (no inline script or
 * style, no framing, no plugins), no MIME sniffing, no referrer leaking page URLs (checkout tokens,
 * OAuth request ids) to other sites, and no caching unless asked.
 */
export function pageHeaders(options: PageSecurityOptions = {}): Record<string, string> {
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data:${(options.imgSrc ?? []).map((s) => ` ${s}`).join('')}`,
    "font-src 'self'",
    "connect-src 'self'",
    `form-action 'self'${(options.formAction ?? []).map((s) => ` ${s}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': options.referrerPolicy ?? 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    ...(options.cacheable ? {} : { 'Cache-Control': 'no-store', Pragma: 'no-cache' }),
  };
}
