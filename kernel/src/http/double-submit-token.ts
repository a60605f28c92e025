import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { sameSecret } from '../crypto/form-token.js';

/**
 * The CSRF token of a page's forms for visitors without a session (a checkout's sandbox buttons, a
 * refund's claim form): a double-submit token. The page's GET sets a random value in a cookie
 * scoped to the page's path (`HttpOnly`, `SameSite=Strict`) and puts the same value in the form; a
 * POST is taken only when the posted field equals the cookie. Another site can neither read the
 * value nor make the browser send the cookie with its POST, and nothing is kept on the server. A
 * browser that sends `Sec-Fetch-Site: cross-site` or `same-site` is refused outright.
 */
export interface DoubleSubmitToken {
  /** The page's token: the one its cookie already holds (other tabs of the page keep working), else a new one, set now. */
  issue(ctx: Context, pagePath: string): string;
  /** Whether a POST carries the page's token in its form (`posted`) and its cookie, from the page's own site. */
  valid(ctx: Context, posted: unknown): boolean;
}

const VALUE = /^[A-Za-z0-9_-]{22}$/;

/** The double-submit token kept in the cookie named `cookie`. */
export function doubleSubmitToken(cookie: string): DoubleSubmitToken {
  return {
    issue(ctx, pagePath) {
      const held = ctx.cookies.get(cookie);
      const token = held && VALUE.test(held) ? held : randomBytes(16).toString('base64url');
      ctx.cookies.set(cookie, token, { path: pagePath, httpOnly: true, sameSite: 'strict', secure: ctx.protocol === 'https', overwrite: true });
      return token;
    },
    valid(ctx, posted) {
      const site = ctx.get('Sec-Fetch-Site');
      if (site === 'cross-site' || site === 'same-site') return false;
      const held = ctx.cookies.get(cookie);
      if (!held || typeof posted !== 'string' || !VALUE.test(held) || !VALUE.test(posted)) return false;
      return sameSecret(held, posted);
    },
  };
}
