import { type ReadinessCheck, withDeps } from '@gw/kernel';
import type {} from '@gw/plugin-oauth/contract';

/**
 * Dashboard: signing in takes an e-mailed code, so under production rules without a mail server
 * nobody can sign in, which nothing said until someone tried (issue 33 finding 9). A warning, not an
 * error: payments do not need the dashboard.
 */
export const dashboardReadiness = withDeps(['oauthMailer', 'oauthConfig'], (deps): ReadinessCheck[] => [
  {
    name: 'dashboard.sign-in',
    summary: 'Dashboard sign-in codes can reach their users: a mail server is configured (plugins.oauth.smtp.url), or development writes them to the log.',
    run: async () => {
      if (deps.oauthConfig.smtp.url) return { ok: true, detail: 'sign-in codes are mailed through plugins.oauth.smtp.url.' };
      // Without SMTP the mailer is available only in development, where it logs the codes.
      if (deps.oauthMailer.available) {
        return { ok: true, detail: 'no mail server: in development the sign-in code is written to the gateway\'s log (the line "oauth sign-in code").' };
      }
      return {
        ok: false,
        severity: 'warning',
        detail:
          'plugins.oauth.smtp.url is not set: under production rules no sign-in code can be sent, so nobody can sign in to the dashboard (or authorize an MCP client).',
        fix: 'Set plugins.oauth.smtp.url (e.g. smtps://user:pass@mail.example.com:465) and plugins.oauth.smtp.from; or GW_ENV=development for a local trial, which writes the codes to the log.',
      };
    },
  },
]);
