import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { createTestDatabase, spawnGroup, type ProcessGroup, type TestDatabase } from '@gw/kernel/testing';
import { baseEnv, CHROMIUM, ROOT, runProcess, watchCsp } from '@gw/testing';
import { MailSink } from '@gw/plugin-oauth/testing';
import { axeViolations } from '../axe.js';

// Shared with the checkout plugin's browser tests.
export { CHROMIUM, watchCsp };
export { axeViolations };
/** A phone's viewport, for the responsive checks. */
export const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

export { MailSink };

/**
 * A gateway started as a user starts it (`pnpm start`: `apps/all` on this Node, in its own
 * process group) on a fresh database, mailing sign-in codes to a local SMTP sink; the CLI runs as
 * separate processes with the same environment.
 */
export class DashboardWorld {
  private constructor(
    readonly url: string,
    readonly env: Record<string, string>,
    readonly sink: MailSink,
    readonly browser: Browser,
    /** The first-start credentials file (sandbox project provisioned on the first start). */
    readonly firstStart: string,
    private readonly app: ProcessGroup,
    private readonly database: TestDatabase,
    private readonly dir: string,
    private readonly output: () => string,
  ) {}

  /** Starts database, SMTP sink, gateway and browser. `config`: extra `GW__...` variables. */
  static async start(config: Record<string, string> = {}): Promise<DashboardWorld> {
    const database = await createTestDatabase();
    const sink = await MailSink.start();
    const dir = mkdtempSync(join(tmpdir(), 'gw-dashboard-'));
    const env: Record<string, string> = {
      DATABASE_URL: database.url,
      PORT: '0',
      HOST: '127.0.0.1',
      GW_MASTER_KEY: 'ab'.repeat(32),
      LOG_LEVEL: 'warn',
      GW__plugins__oauth__smtp__url: sink.url,
      GW__plugins__oauth__smtp__from: 'Gateway <gw@example.test>',
      // Every test of a file signs in from 127.0.0.1: the per-address limits are raised here.
      GW__plugins__oauth__emailCode__sendsPerHourPerIp: '1000',
      GW__plugins__dashboard__signInsPerHourPerIp: '1000',
      GW__plugins__webhooks__allowPrivateTargets: 'true',
      GW__plugins__sandbox__firstStartCredentialsFile: join(dir, 'first-start.txt'),
      ...config,
    };
    const app = spawnGroup(process.execPath, ['--import', 'tsx', 'apps/all/src/main.ts'], {
      cwd: ROOT,
      env: { ...baseEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    app.child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
    app.child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
    let browser: Browser | undefined;
    try {
      const url = await waitForListening(
        () => text,
        () => app.child.exitCode !== null,
      );
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
      return new DashboardWorld(url, env, sink, browser, join(dir, 'first-start.txt'), app, database, dir, () => text);
    } catch (error) {
      await browser?.close();
      await app.stop();
      await sink.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The gateway's output so far (for failure messages). */
  log(): string {
    return this.output();
  }

  /** Runs `pnpm gateway <args> --json` as its own process; the parsed JSON, or throws with the output. */
  async cli(...args: string[]): Promise<any> {
    const { code, stdout, stderr } = await runProcess(process.execPath, ['--import', 'tsx', 'apps/cli/src/main.ts', ...args, '--json'], {
      cwd: ROOT,
      env: { ...baseEnv(), ...this.env },
    });
    if (code !== 0) throw new Error(`gateway ${args.join(' ')} exited ${code}:\n${stdout}\n${stderr}`);
    return JSON.parse(stdout);
  }

  /** Invites a user with the CLI (`user invite --role`); returns the user. */
  async invite(
    email: string,
    role: 'admin' | 'member' = 'admin',
    operator?: string,
  ): Promise<{ id: string; email: string; operator_id: string; role: string }> {
    const result = await this.cli('user', 'invite', '--email', email, '--role', role, ...(operator ? ['--operator', operator] : []));
    return result.user;
  }

  /** A fresh browser context (cookies of its own), closed by the test's teardown. */
  async context(t: { teardown(fn: () => Promise<void>): void }, options: BrowserContextOptions = {}): Promise<BrowserContext> {
    const context = await this.browser.newContext({ baseURL: this.url, ...options });
    t.teardown(() => context.close());
    return context;
  }

  /**
   * Signs `email` in on `page` through the sign-in pages, with the code read from the SMTP sink;
   * the page is then on the dashboard's home.
   */
  async signIn(page: Page, email: string): Promise<void> {
    await page.goto(`${this.url}/dashboard/sign-in`);
    await page.getByLabel('E-mail address').fill(email);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page
      .getByLabel('One-time code')
      .waitFor({ timeout: 15_000 })
      .catch(async (error: unknown) => {
        throw new Error(`no code form after sending the address; the page says: ${await page.locator('body').innerText()}`, { cause: error });
      });
    await page.getByLabel('One-time code').fill(await this.sink.nextCode(email));
    await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/dashboard/sign-in')), page.getByRole('button', { name: 'Sign in' }).click()]);
  }

  /** A new context and page with `email` signed in. */
  async signedIn(
    t: { teardown(fn: () => Promise<void>): void },
    email: string,
    options: BrowserContextOptions = {},
  ): Promise<{ context: BrowserContext; page: Page; cspViolations: string[] }> {
    const context = await this.context(t, options);
    const page = await context.newPage();
    const cspViolations = watchCsp(page);
    await this.signIn(page, email);
    return { context, page, cspViolations };
  }

  async close(): Promise<void> {
    await this.browser.close();
    await this.app.stop();
    await this.sink.close();
    await this.database.drop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Fails the test unless axe-core finds nothing on the page. */
export async function expectAccessible(t: { deepEqual(a: unknown, b: unknown, message?: string): void }, page: Page): Promise<void> {
  t.deepEqual(await axeViolations(page), [], `axe-core on ${page.url()}`);
}

async function waitForListening(output: () => string, exited: () => boolean, timeoutMs = 90_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = /listening on (http:\/\/\S+)/.exec(output());
    if (match) return match[1]!;
    if (exited()) throw new Error(`gateway exited early:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`no start-up line within ${timeoutMs} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
