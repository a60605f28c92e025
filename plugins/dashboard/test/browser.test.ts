import test from 'ava';
import { DashboardWorld, PHONE, expectAccessible } from './harness.js';

// The dashboard in a real browser (Debian's chromium through playwright-core) on a gateway started
// as a user starts it, with users invited by the CLI signing in with codes from a local SMTP sink.

let world: DashboardWorld;
test.before(async () => {
  world = await DashboardWorld.start();
});
test.after.always(async () => {
  await world?.close();
});

test.serial('an administrator invited by the CLI signs in with the e-mailed code; the cookie is HttpOnly and SameSite; pages pass axe on a phone; sign-out ends the session', async (t) => {
  const user = await world.invite('admin-one@example.test', 'admin');
  t.is(user.role, 'admin');
  const context = await world.context(t, PHONE);
  const page = await context.newPage();
  await page.goto(`${world.url}/dashboard/projects`);
  t.regex(new URL(page.url()).pathname, /^\/dashboard\/sign-in/);
  t.is(await page.title(), 'Sign in · Gateway dashboard');
  await expectAccessible(t, page);
  await world.signIn(page, user.email);
  t.is(new URL(page.url()).pathname, '/dashboard/projects');
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
});
