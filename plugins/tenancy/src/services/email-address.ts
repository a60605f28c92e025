/** Longest e-mail address accepted (the RFC 5321 path limit); checked before any pattern runs. */
export const MAX_EMAIL_LENGTH = 254;

// Pragmatic address check: one @, no spaces, a dot in the domain; delivery proves the rest. The
// domain is split into labels at their dots so every character has one way to match: the pattern
// is linear (e2e/regex-safety.test.ts), and the length check bounds it before it runs anyway.
const EMAIL = /^[^\s@]{1,64}@(?:[^\s@.]+\.)+[^\s@.]{2,}$/;

/** The address trimmed and in lower case, or undefined when it is not a plausible address. */
export function normaliseEmail(raw: unknown): string | undefined {
  // Padding beyond this is not an address either; no need to trim a megabyte first.
  if (typeof raw !== 'string' || raw.length > 4 * MAX_EMAIL_LENGTH) return undefined;
  const email = raw.trim().toLowerCase();
  if (email.length > MAX_EMAIL_LENGTH || !EMAIL.test(email)) return undefined;
  return email;
}
