import type { ExecutionContext } from 'ava';
import { chromium, type Page } from 'playwright-core';
import type { TestKernel } from '@gw/kernel/testing';
import { CHROMIUM } from '@gw/testing';
import { checkoutPlugin } from '@gw/plugin-checkout';
import { oauthPlugin } from '@gw/plugin-oauth';
import { CLI_ACTOR, type AnyPlugin } from '@gw/kernel';
import type { UserView } from '@gw/plugin-tenancy/contract';
import { watchersPlugin } from '@gw/plugin-watchers';
import { MailSink } from '@gw/plugin-oauth/testing';
import { SANDBOX_PLUGINS, startSandboxKernel } from '@gw/plugin-sandbox/testing';
import { dashboardPlugin } from '@gw/plugin-dashboard';
import { DashboardClient } from './http-client.js';

export { MailSink };

/**
 * A kernel with every plugin the dashboard's pages use (and `morePlugins`, whose pages a test file
 * reads), mailing codes to `sink`; sign-in limits raised (all tests share 127.0.0.1).
 */
export function startDashboardKernel(sink: MailSink, config: Record<string, unknown> = {}, morePlugins: readonly AnyPlugin[] = []): Promise<TestKernel> {
  return startSandboxKernel(
    {
      'plugins.oauth.smtp.url': sink.url,
      'plugins.oauth.emailCode.sendsPerHourPerIp': 1000,
      'plugins.dashboard.signInsPerHourPerIp': 1000,
      ...config,
    },
    [...SANDBOX_PLUGINS, watchersPlugin, checkoutPlugin, oauthPlugin, dashboardPlugin, ...morePlugins],
  );
}

let seq = 0;

/** A new user of `operator` (default: the only one) with `role`, signed in over HTTP. */
export async function signedInUser(
  gw: TestKernel,
  sink: MailSink,
  role: 'admin' | 'member',
  operator?: string,
): Promise<{ client: DashboardClient; user: UserView; csrf: string }> {
  const email = `u${++seq}-${role}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const user = await gw.kernel.cradle.tenancyUsers.invite({ email, role, ...(operator ? { operator } : {}) }, CLI_ACTOR);
  const client = new DashboardClient(gw.url);
  await client.signIn(sink, email);
  return { client, user, csrf: await client.csrf() };
}

/** A Chromium page signed in as a new administrator of `operator`, with JavaScript on or off; the browser closes when `t` ends. */
export async function signedInPage(t: ExecutionContext, gw: TestKernel, sink: MailSink, operator: string, javaScriptEnabled: boolean): Promise<Page> {
  const admin = await signedInUser(gw, sink, 'admin', operator);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  t.teardown(() => browser.close());
  const context = await browser.newContext({ baseURL: gw.url, javaScriptEnabled });
  await context.addCookies([{ name: 'gw_dashboard', value: admin.client.cookie!, url: gw.url }]);
  return context.newPage();
}
