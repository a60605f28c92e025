import type { TestFn } from 'ava';
import { chromium, type Browser } from 'playwright-core';
import type { AnyPlugin } from '@gw/kernel';
import { freePort, type TestKernel } from '@gw/kernel/testing';
import { checkoutPlugin } from '@gw/plugin-checkout';
import { oauthPlugin } from '@gw/plugin-oauth';
import { MailSink } from '@gw/plugin-oauth/testing';
import { SANDBOX_PLUGINS, sandboxClient, startSandboxKernel, type SandboxClient } from '@gw/plugin-sandbox/testing';
import { watchersPlugin } from '@gw/plugin-watchers';
import { CHROMIUM } from '@gw/testing';

/** What {@link mailingBrowserSandbox} starts for a test file; its fields are set once `test.before` has run. */
export interface MailingBrowserSandbox {
  /** A sandbox gateway on a fixed port whose base URL is its own (the links it mails open in the browser). */
  gw: TestKernel;
  /** Debian's Chromium. */
  browser: Browser;
  /** The local SMTP server the gateway mails to. */
  sink: MailSink;
  /** A sandbox project on the gateway. */
  c: SandboxClient;
}

/**
 * Starts, for a test file of pages a payer sees, a local SMTP sink, a sandbox gateway with the
 * payer pages' plugins and `morePlugins` (with `config` on top), Chromium and a sandbox project;
 * stops them after the file's tests.
 */
export function mailingBrowserSandbox(test: TestFn, morePlugins: readonly AnyPlugin[], config: Record<string, unknown> = {}): MailingBrowserSandbox {
  const fixture = {} as MailingBrowserSandbox;
  test.before(async () => {
    fixture.sink = await MailSink.start();
    const port = await freePort();
    fixture.gw = await startSandboxKernel(
      {
        'http.port': port,
        'http.baseUrl': `http://127.0.0.1:${port}`,
        'plugins.oauth.smtp.url': fixture.sink.url,
        'plugins.oauth.smtp.from': 'Gateway <gw@example.test>',
        ...config,
      },
      [...SANDBOX_PLUGINS, watchersPlugin, checkoutPlugin, oauthPlugin, ...morePlugins],
    );
    fixture.browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    fixture.c = await sandboxClient(fixture.gw);
  });
  test.after.always(async () => {
    await fixture.browser?.close();
    await fixture.gw?.close();
    await fixture.sink?.close();
  });
  return fixture;
}
