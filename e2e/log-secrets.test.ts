import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import pg from 'pg';
import { sql, sqlIdentifier } from '@gw/kernel';
import { createTestDatabase, freePort, signedFetch, waitFor, type TestDatabase } from '@gw/kernel/testing';
import { authorizeInBrowser, MailSink, WebClient } from '@gw/plugin-oauth/testing';
import { runCliProcess, startApp, waitForUrl } from '@gw/testing';

// Issue 23 item 5: a full run of the combined app in production mode (a log collector keeps
// stdout and stderr), during which every kind of secret is issued and used; afterwards none of
// them appears anywhere in what the process printed.

let database: TestDatabase;
test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => {
  await database?.drop();
});

const b64url = (bytes: Buffer): string => bytes.toString('base64url');

test.serial('no secret issued or used during a full run reaches the logs', async (t) => {
  const secrets = new Map<string, string>();
  const keep = (name: string, value: unknown) => {
    t.true(typeof value === 'string' && value.length >= 6, `${name} was issued`);
    secrets.set(name, value as string);
  };

  const dir = mkdtempSync(join(tmpdir(), 'gw-log-secrets-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const sink = await MailSink.start();
  t.teardown(() => sink.close());

  const masterKey = randomBytes(32).toString('hex');
  const metricsToken = randomBytes(24).toString('hex');
  const dbPassword = `pw-${randomBytes(12).toString('hex')}`;
  keep('master key', masterKey);
  keep('metrics token', metricsToken);
  keep('database password', dbPassword);
  // A login role of its own with that password: password authentication (the embedded server)
  // checks it, trust authentication (the machine's server) ignores it; either way it is in the URL.
  const role = `gw_log_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  // CREATE ROLE takes no parameters: the name and password go in as settings, quoted by format().
  await admin.query("select set_config('gw_test.role', $1, false), set_config('gw_test.password', $2, false)", [role, dbPassword]);
  await admin.query(
    "do $$ begin execute format('create role %I login superuser password %L', current_setting('gw_test.role'), current_setting('gw_test.password')); end $$",
  );
  await admin.end();
  t.teardown(async () => {
    const cleanup = new pg.Client({ connectionString: database.url });
    await cleanup.connect();
    await cleanup.query('select pg_terminate_backend(pid) from pg_stat_activity where usename = $1', [role]);
    await cleanup.query(sql`drop owned by ${sqlIdentifier(role)}`.toQuery());
    await cleanup.query(sql`drop role if exists ${sqlIdentifier(role)}`.toQuery());
    await cleanup.end();
  });
  const dbUrl = new URL(database.url);
  dbUrl.username = role;
  dbUrl.password = dbPassword;
  const closedPort = await freePort();
  const env = {
    DATABASE_URL: dbUrl.toString(),
    PORT: '0',
    GW_MASTER_KEY: masterKey,
    GW_METRICS_TOKEN: metricsToken,
    LOG_LEVEL: 'debug',
    GW__plugins__oauth__smtp__url: sink.url,
    GW__plugins__oauth__smtp__from: 'Gateway <gw@example.test>',
    GW__plugins__sandbox__firstStartCredentialsFile: join(dir, 'first-start.txt'),
  };
  const app = startApp('all', env);
  t.teardown(() => {
    if (app.child.exitCode === null) app.child.kill('SIGKILL');
  });
  const url = await waitForUrl(app);

  // First start: the sandbox project's API secret and PAT.
  const credentials = readFileSync(join(dir, 'first-start.txt'), 'utf8');
  const projectId = /Project id \(X-Project-Id\)\s+(\S+)/.exec(credentials)![1]!;
  keep('first-start API secret', /sk_sandbox_\S+/.exec(credentials)?.[0]);
  keep('first-start PAT', /svc_pat_\S+/.exec(credentials)?.[0]);

  // The operator issues more: a rotated API secret and a PAT (from the CLI, a separate process).
  const rotated = await runCliProcess(env, 'key', 'rotate', '--project', projectId, '--json');
  t.is(rotated.code, 0, rotated.output);
  const apiSecret = rotated.output.match(/sk_sandbox_[0-9a-f]+/)?.[0];
  keep('rotated API secret', apiSecret);
  const pat = await runCliProcess(env, 'pat', 'create', '--scopes', 'invoices:read,sandbox:simulate', '--project', projectId, '--json');
  t.is(pat.code, 0, pat.output);
  keep('CLI PAT', pat.output.match(/svc_pat_[A-Za-z0-9_-]+/)?.[0]);
  const email = `owner-${randomBytes(3).toString('hex')}@example.test`;
  t.is((await runCliProcess(env, 'user', 'invite', '--email', email)).code, 0);

  // Signed API calls with the rotated secret, a webhook to a closed port (delivery failures are
  // logged), and a wrong signature.
  const created = await signedFetch(url, '/api/v1/sandbox/invoices', {
    projectId,
    secret: apiSecret!,
    method: 'POST',
    body: { external_id: 'leak-1', coin: 'eth', amount_crypto: '0.01', callback_url: `http://127.0.0.1:${closedPort}/hooks` },
  });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.is((await signedFetch(url, `/api/v1/sandbox/invoices/${created.body.id}`, { projectId, secret: apiSecret! })).status, 200);
  // Creating an invoice emits no event; a simulated payment does (invoice.detected), and its
  // delivery to the closed port fails and is logged. Mutation checked: with the delivery worker
  // logging the signing secrets of each attempt (delivery-worker.ts attempt()), this test fails;
  // before the simulation was added no delivery ran and it passed.
  t.is(
    (await signedFetch(url, `/api/v1/sandbox/invoices/${created.body.id}/simulate-detect`, { projectId, secret: apiSecret!, method: 'POST', body: {} })).status,
    200,
  );
  await waitFor(async () => /webhook deliveries failed/.test(app.output()), 30_000, 'a failed webhook delivery in the log');
  t.is((await signedFetch(url, '/api/v1/sandbox/invoices', { projectId, secret: `${apiSecret!.slice(0, -4)}0000` })).status, 401);

  // PATs on the MCP endpoint, and a made-up one.
  const mcp = (token: string) =>
    fetch(`${url}/api/mcp/transport`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
  t.not((await mcp(secrets.get('CLI PAT')!)).status, 401);
  const forged = `svc_pat_${randomBytes(16).toString('hex')}`;
  keep('forged PAT', forged);
  t.is((await mcp(forged)).status, 401);

  // /metrics with its token.
  t.is((await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).status, 200);

  // OAuth: a confidential client's secret, the e-mailed sign-in code, the authorization code, and
  // the access and refresh tokens, refreshed once.
  const redirectUri = 'http://127.0.0.1:53682/callback';
  const registered = (await (
    await fetch(`${url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'leak test',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      }),
    })
  ).json()) as { client_id: string; client_secret: string };
  keep('OAuth client secret', registered.client_secret);
  const verifier = b64url(randomBytes(32));
  const resource = `${url}/api/mcp/transport`;
  const authorizeUrl = new URL(`${url}/oauth/authorize`);
  authorizeUrl.search = new URLSearchParams({
    response_type: 'code',
    client_id: registered.client_id,
    redirect_uri: redirectUri,
    scope: 'invoices:read',
    state: 'leak-state',
    code_challenge: b64url(createHash('sha256').update(verifier).digest()),
    code_challenge_method: 'S256',
    resource,
  }).toString();
  const codeMail = new Promise<string>((resolve) => {
    const original = sink.nextCode.bind(sink);
    sink.nextCode = async (to: string) => {
      const code = await original(to);
      resolve(code);
      return code;
    };
  });
  const back = await authorizeInBrowser(new WebClient(), url, authorizeUrl, email, sink);
  keep('e-mailed sign-in code', await codeMail);
  const code = back.searchParams.get('code');
  keep('authorization code', code);
  const token = async (form: Record<string, string>) =>
    (await (
      await fetch(`${url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: registered.client_id, client_secret: registered.client_secret, resource, ...form }),
      })
    ).json()) as { access_token: string; refresh_token: string };
  const first = await token({ grant_type: 'authorization_code', code: code!, redirect_uri: redirectUri, code_verifier: verifier });
  keep('access token', first.access_token);
  keep('refresh token', first.refresh_token);
  t.not((await mcp(first.access_token)).status, 401);
  const second = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
  keep('refreshed access token', second.access_token);
  keep('refreshed refresh token', second.refresh_token);

  app.child.kill('SIGTERM');
  t.is(await app.exited, 0);
  const logs = app.output();
  t.regex(logs, /gateway listening on/);
  t.regex(logs, /first-start\.txt/, 'the log names the credentials file');
  for (const [name, value] of secrets) t.false(logs.includes(value), `${name} appears in the logs`);
});
