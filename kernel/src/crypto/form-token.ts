import { createHmac, timingSafeEqual } from 'node:crypto';

/** Whether two secrets are equal, in time that does not depend on where they differ. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The CSRF token of a browser session's forms: an HMAC of the forms' `label` keyed with the
 * session's cookie value, so it is stored nowhere and differs per session and per kind of form.
 */
export function formToken(sessionToken: string, label: string): string {
  return createHmac('sha256', sessionToken).update(label).digest('base64url');
}

/** Whether `presented` is the session's {@link formToken} for `label` (constant time). */
export function formTokenMatches(sessionToken: string, label: string, presented: unknown): boolean {
  return typeof presented === 'string' && sameSecret(presented, formToken(sessionToken, label));
}
