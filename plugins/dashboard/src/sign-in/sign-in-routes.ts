import type { DashboardServices } from '../web/services.js';
import { html, withRetryAfter, type RouteDefinition, type RouteResult, type StaticAssets, type SafeHtml } from '@gw/kernel';
import { MAX_EMAIL_LENGTH } from '@gw/plugin-tenancy/contract';
import { dashboardErrors } from '../errors.js';
import { DASHBOARD_COOKIE, type DashboardSession } from '../services/session-service.js';
import { FormFields } from '../web/form.js';
import { layout } from '../web/layout.js';
import { DASHBOARD_ROUTE, FORM_BODY, SIGN_IN_PATH, htmlResult, seeOther } from '../web/mount.js';
import { sameOrigin, secureCookie } from '../web/request-checks.js';
import { RETURN_TO_PARAM, safeReturnPath } from './return-path.js';
import { codeForm, emailForm, lockedMessage } from './sign-in-pages.js';

/** The sentence of the code mail saying what the code is for. */
const MAIL_PURPOSE = 'Someone (hopefully you) is signing in to the operator dashboard of your payment gateway.';

/**
 * The sign-in pages: e-mail, then the one-time code (the OAuth plugin's invited users, mail and
 * limits), then a fresh signed-in session. No account is ever created here. A sign-in opened with
 * `?return_to=<dashboard path>` leads there once signed in (at once when already signed in): the
 * path is checked by `safeReturnPath` and kept with the sign-in session, server-side.
 */
export function signInRoutes(services: DashboardServices, assets: StaticAssets, scripts: readonly string[]): RouteDefinition[] {
  const { dashboardSessions: sessions, oauthSignIn, dashboardConfig: config } = services;
  const show = (title: string, body: SafeHtml, status = 200, setCookie?: string): RouteResult =>
    htmlResult(layout(title, body, { assets, scripts }), status, setCookie);

  /** The sign-in session of a POST, with Origin and CSRF checked; refused with 403 otherwise. */
  async function postPrelude(ctx: Parameters<RouteDefinition['handler']>[0]['ctx']): Promise<{ session: DashboardSession; form: FormFields } | RouteResult> {
    const session = await sessions.find(ctx.cookies.get(DASHBOARD_COOKIE));
    if (!session) return seeOther(SIGN_IN_PATH);
    const form = FormFields.of(ctx);
    if (!sameOrigin(ctx, services.kernelConfig.http.baseUrl) || !sessions.checkCsrf(session, form.raw('_csrf'))) throw dashboardErrors.csrf_invalid();
    if (session.row.user_id) return seeOther('/dashboard');
    return { session, form };
  }

  /** A POST of the sign-in pages: `handle` runs once `postPrelude` passed. */
  function signInForm(
    path: string,
    summary: string,
    handle: (input: Parameters<RouteDefinition['handler']>[0], prelude: { session: DashboardSession; form: FormFields }) => Promise<RouteResult>,
  ): RouteDefinition {
    return {
      method: 'POST',
      path,
      summary,
      ...DASHBOARD_ROUTE,
      body: FORM_BODY,
      handler: async (input) => {
        const prelude = await postPrelude(input.ctx);
        return 'session' in prelude ? handle(input, prelude) : prelude;
      },
    };
  }

  return [
    {
      method: 'GET',
      path: SIGN_IN_PATH,
      summary: 'Dashboard sign-in: the e-mail form.',
      ...DASHBOARD_ROUTE,
      handler: async ({ ctx }) => {
        const existing = await sessions.find(ctx.cookies.get(DASHBOARD_COOKIE));
        const returnTo = safeReturnPath(ctx.query[RETURN_TO_PARAM]);
        if (existing?.row.user_id) return seeOther(returnTo ?? '/dashboard');
        if (existing && returnTo !== undefined) await sessions.setReturnTo(existing, returnTo);
        if (existing && existing.row.challenge_id && ctx.query['again'] === undefined) return seeOther(`${SIGN_IN_PATH}/code`);
        // Each new sign-in writes a session row: bounded per client address, in PostgreSQL.
        let session = existing;
        if (!session) {
          const limit = await services.rateLimiter.hit({ key: `dashboard.sign-in:ip:${ctx.ip}`, limit: config.signInsPerHourPerIp, windowSeconds: 3600 });
          if (!limit.allowed) {
            const refused = show(
              'Too many requests',
              html`<h1>Too many requests</h1><p role="alert" class="error">Too many sign-ins were started from this address. Try again in ${Math.ceil(limit.retryAfter / 60)} minutes.</p>`,
              429,
            );
            return withRetryAfter(refused, limit.retryAfter);
          }
          session = await sessions.begin(secureCookie(ctx), returnTo ?? null);
        }
        return show('Sign in', emailForm(sessions.csrfToken(session)), 200, session.setCookie);
      },
    },
    signInForm(`${SIGN_IN_PATH}/email`, 'Dashboard sign-in step 1: send a one-time code to an invited address.', async ({ ctx }, { session, form }) => {
      const csrf = sessions.csrfToken(session);
      const email = (form.raw('email') ?? '').trim();
      const started = await oauthSignIn.startFor(`dashboard:${session.row.id}`, email, MAIL_PURPOSE, ctx.ip);
      if ('challengeId' in started) {
        await sessions.setChallenge(session, started.challengeId);
        return seeOther(`${SIGN_IN_PATH}/code`);
      }
      const shown = email.slice(0, MAX_EMAIL_LENGTH);
      if (started.problem === 'invalid_email') return show('Sign in', emailForm(csrf, { error: 'Enter a valid e-mail address.', email: shown }), 400);
      if (started.problem === 'unavailable')
        return show(
          'Sign in',
          emailForm(csrf, {
            error: 'Sign-in by e-mail is not available on this gateway: no mail server is configured (plugins.oauth.smtp.url).',
            email: shown,
          }),
          503,
        );
      const wait = 'retryAfter' in started ? started.retryAfter : 3600;
      const refused = show(
        'Sign in',
        emailForm(csrf, { error: `Too many codes were requested. Try again in ${Math.max(1, Math.ceil(wait / 60))} minutes.`, email: shown }),
        429,
      );
      return withRetryAfter(refused, wait);
    }),
    {
      method: 'GET',
      path: `${SIGN_IN_PATH}/code`,
      summary: 'Dashboard sign-in step 2: the code form.',
      ...DASHBOARD_ROUTE,
      handler: async ({ ctx }) => {
        const session = await sessions.find(ctx.cookies.get(DASHBOARD_COOKIE));
        if (session?.row.user_id) return seeOther('/dashboard');
        if (!session?.row.challenge_id) return seeOther(SIGN_IN_PATH);
        return show('Enter your code', codeForm(sessions.csrfToken(session)));
      },
    },
    signInForm(`${SIGN_IN_PATH}/code`, 'Dashboard sign-in step 2: check the one-time code and sign in.', async ({ ctx, requestId }, { session, form }) => {
      if (!session.row.challenge_id) return seeOther(SIGN_IN_PATH);
      const result = await oauthSignIn.verifyFor(`dashboard:${session.row.id}`, session.row.challenge_id, form.raw('code'), form.raw('operator'));
      const csrf = sessions.csrfToken(session);
      if ('problem' in result) {
        if (result.problem === 'invalid')
          return show('Enter your code', codeForm(csrf, { error: 'That code is not valid. Check the latest e-mail and try again.' }), 400);
        if (result.problem === 'choose_operator') {
          return show(
            'Enter your code',
            codeForm(csrf, { error: 'Your address is a user of several operators. Choose one and enter the code again.', operators: result.operators }),
            400,
          );
        }
        if (result.problem === 'locked') {
          await sessions.setChallenge(session, null);
          const locked = show('Sign in', emailForm(csrf, { error: lockedMessage(result.retryAfter) }), 429);
          return withRetryAfter(locked, result.retryAfter);
        }
        await sessions.setChallenge(session, null);
        return show(
          'Sign in',
          emailForm(csrf, { error: result.problem === 'expired' ? 'The code has expired. Request a new one.' : 'Too many wrong codes. Request a new one.' }),
          400,
        );
      }
      const signed = await sessions.signIn(session, result.userId, secureCookie(ctx));
      await services.audit.record({
        actor: `user:${result.userId}`,
        channel: 'dashboard',
        action: 'dashboard.sign_in',
        target: `user:${result.userId}`,
        requestId,
      });
      // Checked again as it is followed: the stored path is a redirect target.
      return seeOther(safeReturnPath(session.row.return_to) ?? '/dashboard', signed.setCookie);
    }),
  ];
}
