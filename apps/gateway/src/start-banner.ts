import { API_REFERENCE_PATH, isDevelopment, trimTrailing, type Kernel } from '@gw/kernel';
import type {} from '@gw/plugin-oauth/contract';

/** How a dashboard user gets a sign-in code on this gateway. */
export type SignInCodes = 'mailed' | 'logged' | 'unavailable';

/** What the start message names besides the listening address. */
export interface StartBannerFacts {
  /** Where links point: http.baseUrl when set, else the address listened on. */
  readonly baseUrl: string;
  /** The dashboard plugin is enabled (absent: `/` leads to the API reference). */
  readonly dashboard: boolean;
  readonly signInCodes: SignInCodes;
}

/**
 * The lines printed under "listening on": where the dashboard and the API reference are, and where
 * a sign-in code turns up (a newcomer opening the bare address got a JSON 404 and never learnt of
 * either, issue 33 finding 7).
 */
export function startBanner(facts: StartBannerFacts): string {
  const base = trimTrailing(facts.baseUrl, '/');
  const lines = [`  API reference  ${base}${API_REFERENCE_PATH}`];
  if (facts.dashboard) {
    lines.unshift(`  Dashboard      ${base}/dashboard`);
    lines.push(
      facts.signInCodes === 'logged'
        ? '  Sign-in codes  written to this log (the line "oauth sign-in code"; development without plugins.oauth.smtp.url); invite yourself first: gateway user invite --email <you>'
        : facts.signInCodes === 'mailed'
          ? '  Sign-in codes  mailed through plugins.oauth.smtp.url; invite yourself first: gateway user invite --email <you>'
          : '  Sign-in codes  none can be sent: no mail server (plugins.oauth.smtp.url) and production rules, so nobody can sign in to the dashboard',
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The banner's facts for a started gateway. */
export function startBannerFacts(kernel: Kernel): StartBannerFacts {
  const config = kernel.cradle.kernelConfig;
  const enabled = (id: string) => kernel.plugins.some(({ plugin }) => plugin.id === id);
  const smtp = enabled('oauth') ? kernel.cradle.oauthConfig.smtp.url : undefined;
  return {
    baseUrl: config.http.baseUrl ?? kernel.url!,
    dashboard: enabled('dashboard'),
    signInCodes: smtp ? 'mailed' : isDevelopment(config) ? 'logged' : 'unavailable',
  };
}
