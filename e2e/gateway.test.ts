import test from 'ava';
import { createTestDatabase, signedFetch, type TestDatabase } from '@gw/kernel/testing';
import { runCliProcess, startApp, waitForUrl } from '@gw/testing';

let database: TestDatabase;
let env: Record<string, string>;
test.before(async () => {
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url, PORT: '0', GW_MASTER_KEY: 'ab'.repeat(32), LOG_LEVEL: 'warn' };
});
test.after.always(async () => {
  await database?.drop();
});

test.serial('the real app starts, prints its URL, serves signed requests, and each wrong variant fails with its code', async (t) => {
  const app = startApp('all', env);
  t.teardown(() => {
    if (app.child.exitCode === null) app.child.kill('SIGKILL');
  });
  const url = await waitForUrl(app);
  t.regex(app.output(), /Gateway \(HTTP \+ worker\) listening on http:\/\/127\.0\.0\.1:\d+/);

  const created = await runCliProcess(env, 'project', 'create', '--kind', 'testnet', '--name', 'e2e', '--json');
  t.is(created.code, 0, created.output);
  const creds = { projectId: created.json.project.id as string, secret: created.json.credentials.api_secret as string };

  const ok = await signedFetch(url, '/api/v1/project', creds);
  t.is(ok.status, 200);
  t.is(ok.body.id, creds.projectId);

  t.is((await signedFetch(url, '/api/v1/project', { ...creds, secret: 'c'.repeat(64) })).body.error_code, 'signature_invalid');
  t.is((await signedFetch(url, '/api/v1/project', { ...creds, timestamp: Math.floor(Date.now() / 1000) - 3600 })).body.error_code, 'timestamp_out_of_window');

  t.is((await runCliProcess(env, 'project', 'suspend', '--project', creds.projectId, '--json')).code, 0);
  t.is((await signedFetch(url, '/api/v1/project', creds)).body.error_code, 'project_suspended');
  t.is((await runCliProcess(env, 'project', 'resume', '--project', creds.projectId, '--json')).code, 0);

  t.is((await runCliProcess(env, 'key', 'revoke', '--project', creds.projectId, '--json')).code, 0);
  t.is((await signedFetch(url, '/api/v1/project', creds)).body.error_code, 'key_revoked');

  const ready = await fetch(`${url}/readyz`);
  t.is(ready.status, 200);

  app.child.kill('SIGTERM');
  t.is(await app.exited, 0, app.output());
});

test.serial('gateway and workers run as separate processes against one database', async (t) => {
  const gatewayOne = startApp('gateway', env);
  const gatewayTwo = startApp('gateway', env);
  const worker = startApp('worker', env);
  const all = [gatewayOne, gatewayTwo, worker];
  t.teardown(() => all.forEach((p) => p.child.exitCode === null && p.child.kill('SIGKILL')));
  const [urlOne, urlTwo] = await Promise.all([waitForUrl(gatewayOne), waitForUrl(gatewayTwo)]);
  t.not(urlOne, urlTwo);
  for (const url of [urlOne, urlTwo]) t.is((await fetch(`${url}/readyz`)).status, 200);
  const created = await runCliProcess(env, 'project', 'create', '--kind', 'production', '--name', 'multi', '--json');
  const creds = { projectId: created.json.project.id as string, secret: created.json.credentials.api_secret as string };
  t.is((await signedFetch(urlOne, '/api/v1/project', creds)).status, 200);
  t.is((await signedFetch(urlTwo, '/api/v1/project', creds)).status, 200);
  const deadline = Date.now() + 30_000;
  while (!/Worker started/.test(worker.output()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  t.regex(worker.output(), /Worker started/);
  for (const p of all) p.child.kill('SIGTERM');
  t.deepEqual(await Promise.all(all.map((p) => p.exited)), [0, 0, 0]);
});

test('an invalid config value stops start-up naming the key', async (t) => {
  const app = startApp('all', { ...env, PORT: 'eighty' });
  t.is(await app.exited, 1);
  t.regex(app.output(), /http\.port/);
  const unknown = startApp('all', { ...env, GW__http__colour: '"red"' });
  t.is(await unknown.exited, 1);
  t.regex(unknown.output(), /unknown key http\.colour/);
  const production = startApp('all', { ...env, GW_ENV: 'production', GW_MASTER_KEY: '' });
  t.is(await production.exited, 1);
  t.regex(production.output(), /security\.masterKey/);
});
