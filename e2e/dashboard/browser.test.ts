import test from 'ava';
import pg from 'pg';
import type { Request, Route } from 'playwright-core';
import { signedFetch } from '@gw/kernel/testing';
import { Receiver } from '@gw/plugin-webhooks/testing';
import { DashboardWorld, PHONE, expectAccessible } from './harness.js';
import { connectApp, refreshWorks } from '@gw/plugin-dashboard/testing';

// The dashboard in a real browser (Debian's chromium through playwright-core) on a gateway started
// as a user starts it, with users invited by the CLI signing in with codes from a local SMTP sink.

let world: DashboardWorld;
test.before(async () => {
  world = await DashboardWorld.start();
});
test.after.always(async () => {
  await world?.close();
});

/** Runs one statement on the gateway's database (to age a session). */
async function sql(text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: world.env['DATABASE_URL'] });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

test.serial(
  'an administrator invited by the CLI signs in with the e-mailed code; the cookie is HttpOnly and SameSite; pages pass axe on a phone; sign-out ends the session',
  async (t) => {
    const user = await world.invite('admin-one@example.test', 'admin');
    t.is(user.role, 'admin');
    const context = await world.context(t, PHONE);
    const page = await context.newPage();
    await page.goto(`${world.url}/dashboard/projects`);
    t.is(new URL(page.url()).pathname, '/dashboard/sign-in');
    t.is(await page.title(), 'Sign in · Gateway dashboard');
    await expectAccessible(t, page);
    await page.getByLabel('E-mail address').fill(user.email);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('One-time code').waitFor();
    await expectAccessible(t, page);
    await page.getByLabel('One-time code').fill(await world.sink.nextCode(user.email));
    await Promise.all([page.waitForURL((u) => u.pathname === '/dashboard/projects'), page.getByRole('button', { name: 'Sign in' }).click()]);
    t.truthy(await page.getByRole('heading', { level: 1, name: 'Projects' }).count());
    await expectAccessible(t, page);
    const cookie = (await context.cookies()).find((c) => c.name === 'gw_dashboard');
    t.like(cookie, { httpOnly: true, sameSite: 'Lax', path: '/dashboard', secure: false });
    await page.goto(`${world.url}/dashboard/account`);
    await expectAccessible(t, page);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL((u) => u.pathname === '/dashboard/sign-in');
    await page.goto(`${world.url}/dashboard/projects`);
    t.is(new URL(page.url()).pathname, '/dashboard/sign-in');
  },
);

test.serial(
  'the administrator creates a sandbox project in one action, copies its secret, creates an invoice through the signed REST API with it, rotates the key (overlap shown) and the old secret still works; every page passes axe with no CSP violation',
  async (t) => {
    const user = await world.invite('admin-two@example.test', 'admin');
    const { context, page, cspViolations } = await world.signedIn(t, user.email);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: world.url });
    await page.getByLabel('Name', { exact: true }).first().fill('Shop sandbox');
    await page.getByRole('button', { name: 'Create sandbox project' }).click();
    await page.getByRole('heading', { name: 'Sandbox project created' }).waitFor();
    t.regex(await page.locator('main').innerText(), /You will not see this again/);
    await expectAccessible(t, page);
    const projectId = (await page.locator('#project-id').innerText()).trim();
    await page.locator('button[data-copy="api-secret"]').click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    const secret = await page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>);
    t.regex(secret, /^sk_sandbox_[0-9a-f]{48}$/);
    t.is(secret, await page.locator('#api-secret').inputValue());
    t.regex(await page.locator('#pat').inputValue(), /^svc_pat_/);

    const created = await signedFetch(world.url, '/api/v1/sandbox/invoices', {
      projectId,
      secret,
      method: 'POST',
      body: { external_id: 'dash-1', coin: 'eth', amount_crypto: '0.01' },
    });
    t.is(created.status, 201, JSON.stringify(created.body));

    // The project page and its key page; the project is in the switcher.
    await page.goto(`${world.url}/dashboard/projects/${projectId}`);
    await expectAccessible(t, page);
    t.is(await page.getByRole('combobox', { name: 'Project' }).inputValue(), projectId);
    await page.getByRole('navigation', { name: 'Project sections' }).getByRole('link', { name: 'API key' }).click();
    await page.getByRole('heading', { name: 'API key' }).waitFor();
    await expectAccessible(t, page);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('heading', { name: 'Secret rotated' }).waitFor();
    const rotated = await page.locator('#api-secret').inputValue();
    t.not(rotated, secret);
    t.regex(await page.locator('main').innerText(), /previous secret keeps working until/);
    await expectAccessible(t, page);
    for (const [key, id] of [
      [secret, 'dash-2'],
      [rotated, 'dash-3'],
    ] as const) {
      const res = await signedFetch(world.url, '/api/v1/sandbox/invoices', {
        projectId,
        secret: key,
        method: 'POST',
        body: { external_id: id, coin: 'eth', amount_crypto: '0.01' },
      });
      t.is(res.status, 201);
    }
    await page.goto(`${world.url}/dashboard/projects/${projectId}/key`);
    t.is(await page.locator('table tbody tr').count(), 2, 'both secrets listed while the overlap lasts');

    // A default webhook URL and a test event to a local receiver.
    const receiver = await Receiver.start();
    t.teardown(() => receiver.close());
    await page.goto(`${world.url}/dashboard/projects/${projectId}/webhook-url`);
    await page.getByLabel('New URL').fill(`${receiver.url}/hooks`);
    await page.getByRole('button', { name: 'Save URL' }).click();
    await page.getByText('The webhook URL is saved.').waitFor();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByRole('heading', { name: 'Test event delivered' }).waitFor();
    t.is(receiver.requests.at(-1)?.headers['x-service-event-type'], 'webhook.test');
    await expectAccessible(t, page);

    // A personal access token, shown once. The answer is held back 400 ms (a slow network) and the
    // button clicked again meanwhile: the page's script sends the single-use form once, so the page
    // that shows the token is the one the browser keeps (a second send would answer 409 and the
    // browser would show that instead).
    await page.goto(`${world.url}/dashboard/tokens`);
    await page.getByLabel('Name').fill('Reporting');
    await page.getByLabel(/invoices:read/).check();
    const slowAnswer = async (route: Route) => {
      if (route.request().method() !== 'POST') return route.continue();
      const response = await route.fetch();
      await new Promise((resolve) => setTimeout(resolve, 400));
      await route.fulfill({ response }).catch(() => undefined); // a navigation the browser abandoned
    };
    await page.route('**/dashboard/tokens', slowAnswer);
    let posts = 0;
    const countPost = (request: Request) => void (request.method() === 'POST' && request.url().endsWith('/dashboard/tokens') && posts++);
    page.on('request', countPost);
    // Two clicks 100 ms apart, inside the page (a locator would wait for the pending navigation).
    await page.getByRole('button', { name: 'Create token' }).evaluate((element) => {
      const button = element as unknown as { click(): void };
      button.click();
      setTimeout(() => button.click(), 100);
    });
    await page.getByRole('heading', { name: 'Token created' }).waitFor({ timeout: 5000 });
    page.off('request', countPost);
    await page.unroute('**/dashboard/tokens', slowAnswer);
    t.is(posts, 1, 'the second click sent nothing');
    t.regex(await page.locator('#pat').inputValue(), /^svc_pat_/);
    t.deepEqual((await sql(`select count(*)::int as n from tenancy_personal_access_tokens where name = 'Reporting'`)).rows, [{ n: 1 }]);
    await expectAccessible(t, page);

    // The other pages of the administrator pass axe too.
    for (const path of [
      '/dashboard/tokens',
      '/dashboard/users',
      '/dashboard/operator',
      `/dashboard/projects/${projectId}/webhook-url`,
      `/dashboard/projects/${projectId}/sandbox`,
      `/dashboard/projects/${projectId}/branding`,
      `/dashboard/users/${user.id}/apps`,
    ]) {
      await page.goto(`${world.url}${path}`);
      await expectAccessible(t, page);
    }
    t.deepEqual(cspViolations, []);
    const audit = await sql(`select action from kernel_audit_log where actor = $1 and channel = 'dashboard' order by id`, [`user:${user.id}`]);
    t.deepEqual(
      audit.rows.map((r) => r.action).filter((a) => a !== 'wallet.generate' && a !== 'pat.create'),
      ['dashboard.sign_in', 'project.create', 'key.issue', 'key.rotate', 'project.webhook_url.set', 'webhook.test'],
    );
  },
);

// The spec's "within 5 seconds" is timed by bench/revocation/run.ts; here, revocation holds at the
// app's next request.
test.serial('an administrator revokes a connected OAuth app: its refresh token stops working at its next use', async (t) => {
  const user = await world.invite('admin-apps@example.test', 'admin');
  await connectApp(world.url, user.email, world.sink, 'Agent <b>X</b>');
  const { page } = await world.signedIn(t, user.email);
  await page.goto(`${world.url}/dashboard/users/${user.id}/apps`);
  t.regex(await page.locator('main').innerText(), /Agent <b>X<\/b>/);
  await expectAccessible(t, page);
  const later = await connectApp(world.url, user.email, world.sink, 'Agent <b>X</b> again');
  await page.reload();
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Revoke Agent <b>X</b> again' }).click();
  await page.getByRole('status').waitFor();
  t.false(await refreshWorks(world.url, later.clientId, later.refreshToken));
  t.regex(await page.getByRole('status').innerText(), /The app is revoked/);
});

test.serial('a read-only member sees the pages without write forms, and a forged write from their session is refused with nothing written', async (t) => {
  await world.invite('member-one@example.test', 'member');
  const { page } = await world.signedIn(t, 'member-one@example.test');
  t.regex(await page.locator('header').innerText(), /read-only member/);
  t.is(await page.getByRole('button', { name: 'Create sandbox project' }).count(), 0);
  await expectAccessible(t, page);
  const before = await sql('select count(*)::int as n from tenancy_projects');
  // The member posts the form anyway (their own valid CSRF token, from the account page).
  await page.goto(`${world.url}/dashboard/account`);
  const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
  const answer = await page.evaluate(async (token) => {
    const res = await fetch('/dashboard/sandbox', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: token, name: 'by member' }).toString(),
    });
    return { status: res.status, text: await res.text() };
  }, csrf);
  t.is(answer.status, 403);
  t.regex(answer.text, /role_forbidden/);
  t.deepEqual((await sql('select count(*)::int as n from tenancy_projects')).rows, before.rows);

  // The CLI makes them an administrator; the same session sees it on the next page.
  const promoted = await world.cli('user', 'role', 'set', '--user', 'member-one@example.test', '--role', 'admin');
  t.like(promoted.user, { email: 'member-one@example.test', role: 'admin' });
  await page.goto(`${world.url}/dashboard/projects`);
  t.regex(await page.locator('header').innerText(), /\(administrator\)/);
  t.is(await page.getByRole('button', { name: 'Create sandbox project' }).count(), 1);
});

test.serial(
  "an expired session leads back to the sign-in page; another operator's project id is a 404 page; script in a project name is shown as text",
  async (t) => {
    const user = await world.invite('admin-three@example.test', 'admin');
    const { page } = await world.signedIn(t, user.email);
    const operator = await world.cli('operator', 'create', '--name', 'Other operator');
    const foreign = await world.cli('project', 'create', '--kind', 'testnet', '--name', 'Foreign secret project', '--operator', operator.operator.id);
    const missing = await page.goto(`${world.url}/dashboard/projects/${foreign.project.id}`);
    t.is(missing?.status(), 404);
    t.notRegex(await page.locator('main').innerText(), /Foreign secret project/);
    await expectAccessible(t, page);

    let dialogs = 0;
    page.on('dialog', (dialog) => {
      dialogs += 1;
      void dialog.dismiss();
    });
    const name = `<img src=x onerror="alert(1)"><script>alert(2)</script>`;
    await page.goto(`${world.url}/dashboard/projects`);
    await page.locator('#project-name').fill(name);
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Project created' }).waitFor();
    await page.goto(`${world.url}/dashboard/projects`);
    t.true((await page.locator('main').innerText()).includes(name));
    t.is(await page.locator('main img').count(), 0);
    t.is(dialogs, 0);

    // Forged and missing CSRF tokens from the signed-in browser: refused, nothing written.
    const count = await sql('select count(*)::int as n from tenancy_projects');
    for (const token of ['forged-token', undefined]) {
      const status = await page.evaluate(async (csrf) => {
        const fields: Record<string, string> = { name: 'forged', kind: 'testnet', ...(csrf ? { _csrf: csrf } : {}) };
        return (
          await fetch('/dashboard/projects', {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams(fields).toString(),
          })
        ).status;
      }, token);
      t.is(status, 403);
    }
    t.deepEqual((await sql('select count(*)::int as n from tenancy_projects')).rows, count.rows);

    await sql(`update dashboard_sessions set last_seen_at = now() - interval '2 hours' where user_id = $1`, [user.id]);
    await page.goto(`${world.url}/dashboard/projects`);
    t.is(new URL(page.url()).pathname, '/dashboard/sign-in');
  },
);
