import { randomBytes } from 'node:crypto';
import { sameSecret } from '@gw/kernel';
import type { Context } from 'koa';

/**
 * The claim form's double-submit token, as the checkout's panel forms have it: payers have no
 * session, so the page's GET sets a random value in a cookie scoped to the page's path
 * (`HttpOnly`, `SameSite=Strict`) and puts the same value in the form; a claim is taken only when
 * the posted field equals the cookie. Another site can neither read the value nor make the browser
 * send the cookie with its POST, and nothing is kept on the server. A browser that sends
 * `Sec-Fetch-Site: cross-site` or `same-site` is refused outright.
 */
const COOKIE = 'gw_refund_claim';
const VALUE = /^[A-Za-z0-9_-]{22}$/;

/** The page's token: the one its cookie already holds (other tabs keep working), else a new one, set now. */
export function issueClaimFormToken(ctx: Context, pagePath: string): string {
  const held = ctx.cookies.get(COOKIE);
  const token = held && VALUE.test(held) ? held : randomBytes(16).toString('base64url');
  ctx.cookies.set(COOKIE, token, { path: pagePath, httpOnly: true, sameSite: 'strict', secure: ctx.protocol === 'https', overwrite: true });
  return token;
}

/** Whether a claim POST carries the page's token in its form (`posted`) and its cookie, from the page's own site. */
export function claimFormTokenValid(ctx: Context, posted: unknown): boolean {
  const site = ctx.get('Sec-Fetch-Site');
  if (site === 'cross-site' || site === 'same-site') return false;
  const cookie = ctx.cookies.get(COOKIE);
  if (!cookie || typeof posted !== 'string' || !VALUE.test(cookie) || !VALUE.test(posted)) return false;
  return sameSecret(cookie, posted);
}
