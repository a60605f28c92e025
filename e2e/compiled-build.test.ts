import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createTestDatabase, type TestDatabase } from '@gw/kernel/testing';
import { buildApps, distEntry } from '@gw/scripts/build';
import { ROOT, startApp, waitForUrl } from '@gw/testing';

// `pnpm build` emits JavaScript once and production runs it on plain Node (no tsx); this runs the
// compiled gateway, worker and CLI as processes against a real database.

let database: TestDatabase;
let outRoot: string;
test.before(async () => {
  database = await createTestDatabase();
  outRoot = mkdtempSync(join(tmpdir(), 'gw-build-'));
  await buildApps({ outRoot });
});
test.after.always(async () => {
  await database?.drop();
  if (outRoot) rmSync(outRoot, { recursive: true, force: true });
});

test.serial('the compiled gateway and worker start on plain Node, serve the API and the files read from disk, and stop cleanly', async (t) => {
  const bundle = readFileSync(distEntry('gateway', outRoot), 'utf8');
  t.false(/from "@gw\//.test(bundle), 'the workspace packages are compiled into the bundle');
  t.false(bundle.includes('tsx'), 'nothing in the bundle loads tsx');

  const env = { DATABASE_URL: database.url, PORT: '0', GW_MASTER_KEY: 'ce'.repeat(32), LOG_LEVEL: 'warn' };
  const gateway = startApp('gateway', env, [], distEntry('gateway', outRoot));
  t.teardown(() => {
    if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
  });
  const url = await waitForUrl(gateway);
  const worker = startApp('worker', env, [], distEntry('worker', outRoot));
  t.teardown(() => {
    if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  });

  t.is((await fetch(`${url}/healthz`)).status, 200);
  t.is((await fetch(`${url}/readyz`)).status, 200);
  // Files the sources find beside themselves (import.meta.url) resolve from the bundle too.
  const css = await fetch(`${url}/checkout/assets/checkout.css`);
  t.is(css.status, 200);
  t.is(await css.text(), readFileSync(join(ROOT, 'plugins/checkout/assets/checkout.css'), 'utf8'));
  t.is((await fetch(`${url}/api/v1/docs/assets/swagger-ui.css`)).status, 200);
  const openapi = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
  t.true('/api/v1/invoices' in openapi.paths);

  for (let i = 0; i < 600 && !/Worker started/.test(worker.output()); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  t.regex(worker.output(), /Worker started/);

  const cli = startApp('cli', env, ['project', 'create', '--kind', 'testnet', '--name', 'compiled', '--json'], distEntry('cli', outRoot));
  t.is(await cli.exited, 0, cli.output());
  t.is(JSON.parse(cli.output()).project.name, 'compiled');

  gateway.child.kill('SIGTERM');
  worker.child.kill('SIGTERM');
  t.is(await gateway.exited, 0, gateway.output());
  t.is(await worker.exited, 0, worker.output());
});
