/**
 * Writes the screenshots of docs/dashboard.md (not a test: run it by hand after a visible change):
 * `DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx e2e/dashboard/screenshots.ts`
 * A gateway started as `pnpm start` starts it, an administrator invited by the CLI, Debian's
 * chromium on a desktop and a phone, light and dark.
 */
import { fileURLToPath } from 'node:url';
import { DashboardWorld, PHONE } from './harness.js';

const OUT = fileURLToPath(new URL('../../docs/images/', import.meta.url));
const world = await DashboardWorld.start();
try {
  const admin = await world.invite('owner@example.test', 'admin');
  await world.invite('accountant@example.test', 'member');
  const desktop = await world.browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  const page = await desktop.newPage();
  const shot = async (file: string) => {
    await page.screenshot({ path: `${OUT}${file}`, fullPage: true });
    console.log(`wrote docs/images/${file}`);
  };
  await page.goto(`${world.url}/dashboard/sign-in`);
  await shot('dashboard-sign-in.png');
  await world.signIn(page, admin.email);
  await page.getByLabel('Name', { exact: true }).first().fill('Shop sandbox');
  await page.getByRole('button', { name: 'Create sandbox project' }).click();
  await page.getByRole('heading', { name: 'Sandbox project created' }).waitFor();
  await shot('dashboard-sandbox-created.png');
  const projectId = (await page.locator('#project-id').innerText()).trim();
  await page.goto(`${world.url}/dashboard/projects`);
  await shot('dashboard-projects.png');
  await page.goto(`${world.url}/dashboard/projects/${projectId}/key`);
  await shot('dashboard-api-key.png');
  await page.goto(`${world.url}/dashboard/users`);
  await shot('dashboard-users.png');
  const phone = await world.browser.newContext({ ...PHONE, deviceScaleFactor: 1, colorScheme: 'dark', storageState: await desktop.storageState() });
  const small = await phone.newPage();
  await small.goto(`${world.url}/dashboard/projects/${projectId}/key`);
  await small.screenshot({ path: `${OUT}dashboard-api-key-phone-dark.png`, fullPage: true });
  console.log('wrote docs/images/dashboard-api-key-phone-dark.png');
  await phone.close();
  await desktop.close();
} finally {
  await world.close();
}
