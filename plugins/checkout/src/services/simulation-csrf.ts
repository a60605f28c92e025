import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';

/**
 * The sandbox buttons of a checkout page are forms that change the invoice (issue 33 finding 19).
 * Payers have no session, so the page uses a double-submit token: the page's GET sets a random
 * value in a cookie scoped to the page's path (`HttpOnly`, `SameSite=Strict`) and puts the same
 * value in each form; a simulation is run only when the posted field equals the cookie. Another
 * site can neither read the value nor make the browser send the cookie with its POST, so a
 * forged form (on a gateway only the victim's browser reaches, such as a developer's loopback)
 * does nothing, and nothing is kept in memory or in the database. A browser that sends
 * `Sec-Fetch-Site: cross-site` or `same-site` is refused outright.
 */
const COOKIE = 'gw_checkout_sim';
const VALUE = /^[A-Za-z0-9_-]{22}$/;

/** The page's token: the one its cookie already holds (other tabs of the page keep working), else a new one, set now. */
export function issueSimulationToken(ctx: Context, pagePath: string): string {
  const held = ctx.cookies.get(COOKIE);
  const token = held && VALUE.test(held) ? held : randomBytes(16).toString('base64url');
  ctx.cookies.set(COOKIE, token, { path: pagePath, httpOnly: true, sameSite: 'strict', secure: ctx.protocol === 'https', overwrite: true });
  return token;
}

/** Whether a simulation POST carries the page's token in its form and its cookie, from the page's own site. */
export function simulationTokenValid(ctx: Context): boolean {
  const site = ctx.get('Sec-Fetch-Site');
  if (site === 'cross-site' || site === 'same-site') return false;
  const cookie = ctx.cookies.get(COOKIE);
  const body = ctx.request.body;
  const posted = body !== null && typeof body === 'object' ? (body as Record<string, unknown>)['csrf'] : undefined;
  if (!cookie || typeof posted !== 'string' || !VALUE.test(cookie) || !VALUE.test(posted)) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(posted));
}
