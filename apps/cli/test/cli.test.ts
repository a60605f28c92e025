import test from 'ava';
import { chains, plugins } from '@gw/app-gateway';
import { sql, sqlIdentifier } from '@gw/kernel';
import { createTestDatabase, type TestDatabase } from '@gw/kernel/testing';
import pg from 'pg';
import { cliRunner } from '@gw/testing';
import { runCli } from '../src/cli.js';

let database: TestDatabase;
test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => {
  await database?.drop();
});

const cli = cliRunner({ plugins, chains, databaseUrl: () => database.url, run: runCli });

async function count(table: string): Promise<number> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return Number((await client.query(sql`select count(*)::int as n from ${sqlIdentifier(table)}`.toQuery())).rows[0].n);
  } finally {
    await client.end();
  }
}

test.serial('help lists every command and each command has its own help', async (t) => {
  const top = await cli('--help');
  t.is(top.code, 0);
  for (const command of [
    'db migrate',
    'operator create',
    'subscription set',
    'project create',
    'project list',
    'project suspend',
    'project resume',
    'key issue',
    'key rotate',
    'key revoke',
    'key suspend',
    'pat create',
    'pat revoke',
    'user invite',
    'webhook set',
  ]) {
    t.true(top.stdout.includes(command), command);
  }
  const one = await cli('project', 'create', '--help');
  t.is(one.code, 0);
  t.regex(one.stdout, /--kind <production\|testnet\|sandbox> \(required\)/);
});

test.serial('db migrate applies migrations and is idempotent', async (t) => {
  const first = await cli('db', 'migrate', '--json');
  t.is(first.code, 0);
  const second = await cli('db', 'migrate', '--json');
  t.is(second.code, 0);
  t.is(second.json.count, 0);
  const status = await cli('db', 'status', '--json');
  t.deepEqual(status.json.pending, []);
});

test.serial('project create prints the project and its secret once, as JSON', async (t) => {
  const created = await cli('project', 'create', '--kind', 'testnet', '--name', 'shop', '--json');
  t.is(created.code, 0, created.stderr);
  t.regex(created.json.project.id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  t.is(created.json.project.kind, 'testnet');
  t.regex(created.json.credentials.api_secret, /^[0-9a-f]{64}$/);
  const listed = await cli('project', 'list', '--json');
  t.is(listed.json.length, 1);
  t.false(listed.stdout.includes(created.json.credentials.api_secret));
  const human = await cli('project', 'list');
  t.regex(human.stdout, /kind: testnet/);
});

test.serial('a flag value that is also a command word is kept (a project named "project" or "create")', async (t) => {
  for (const name of ['project', 'create']) {
    const created = await cli('project', 'create', '--kind', 'testnet', '--name', name, '--json');
    t.is(created.code, 0, created.stderr);
    t.is(created.json.project.name, name);
  }
});

test.serial('bad flags exit non-zero with a message and write nothing', async (t) => {
  const before = await count('tenancy_projects');
  for (const argv of [
    ['project', 'create', '--kind', 'mainnet', '--name', 'x'],
    ['project', 'create', '--name', 'x'],
    ['project', 'create', '--kind', 'testnet', '--name', 'x', '--colour', 'red'],
    ['project', 'frobnicate'],
    ['key', 'rotate', '--project', 'nope'],
    ['pat', 'create', '--scopes', 'invoices:read,root'],
  ]) {
    const result = await cli(...argv);
    t.is(result.code, 2, argv.join(' '));
    t.regex(result.stderr, /^error usage: /, argv.join(' '));
  }
  t.is(await count('tenancy_projects'), before);
  const json = await cli('project', 'create', '--kind', 'mainnet', '--name', 'x', '--json');
  t.is(json.json.error_code, 'usage');
});

test.serial('operator, subscription, keys, PATs, users and webhook URLs', async (t) => {
  const project = (await cli('project', 'list', '--json')).json[0];
  const expired = await cli('subscription', 'set', '--status', 'expired', '--json');
  t.is(expired.json.operator.subscription_status, 'expired');
  t.is((await cli('subscription', 'set', '--status', 'active', '--json')).json.operator.subscription_status, 'active');

  const rotated = await cli('key', 'rotate', '--project', project.id, '--json');
  t.regex(rotated.json.api_secret, /^[0-9a-f]{64}$/);
  t.truthy(rotated.json.previous_secret_expires_at_iso);
  t.is((await cli('key', 'suspend', '--project', project.id, '--json')).json.state, 'suspended');
  t.is((await cli('key', 'revoke', '--project', project.id, '--json')).json.state, 'revoked');
  const again = await cli('key', 'revoke', '--project', project.id, '--json');
  t.is(again.code, 1);
  t.is(again.json.error_code, 'api_key_not_found');
  t.is((await cli('key', 'issue', '--project', project.id, '--json')).json.state, 'active');
  const twice = await cli('key', 'issue', '--project', project.id);
  t.is(twice.code, 1);
  t.regex(twice.stderr, /error api_key_exists/);

  const pat = await cli('pat', 'create', '--scopes', 'invoices:read,sandbox:simulate', '--project', project.id, '--json');
  t.regex(pat.json.token, /^svc_pat_[0-9A-Za-z]{32}$/);
  t.deepEqual(pat.json.scopes, ['invoices:read', 'sandbox:simulate']);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const stored = (await client.query('select token_hash from tenancy_personal_access_tokens')).rows;
  await client.end();
  t.false(JSON.stringify(stored).includes(pat.json.token));
  t.truthy((await cli('pat', 'revoke', '--id', pat.json.id, '--json')).json.pat.revoked_at_iso);

  const user = await cli('user', 'invite', '--email', 'Ops@Example.com', '--json');
  t.is(user.json.user.email, 'ops@example.com');
  t.is((await cli('user', 'invite', '--email', 'ops@example.com')).code, 1);
  t.is((await cli('user', 'invite', '--email', 'not-an-email')).code, 1);

  t.is(
    (await cli('webhook', 'set', '--project', project.id, '--url', 'http://localhost:9000/hook', '--json')).json.project.webhook_url,
    'http://localhost:9000/hook',
  );
  const bad = await cli('webhook', 'set', '--project', project.id, '--url', 'ftp://x', '--json');
  t.is(bad.code, 1);
  t.is(bad.json.error_code, 'invalid_webhook_url');
  t.is((await cli('webhook', 'clear', '--project', project.id, '--json')).json.project.webhook_url, null);

  const prod = await cli('project', 'create', '--kind', 'production', '--name', 'live', '--json');
  const insecure = await cli('webhook', 'set', '--project', prod.json.project.id, '--url', 'http://example.com/hook', '--json');
  t.is(insecure.json.error_code, 'invalid_webhook_url');
  t.is((await cli('project', 'suspend', '--project', prod.json.project.id, '--json')).json.project.status, 'suspended');
  t.is((await cli('project', 'resume', '--project', prod.json.project.id, '--json')).json.project.status, 'active');
  const unknown = await cli('project', 'suspend', '--project', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '--json');
  t.is(unknown.json.error_code, 'project_not_found');
});

test.serial('every write is audited with channel cli', async (t) => {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const rows = (await client.query(`select distinct action, channel from kernel_audit_log order by action`)).rows;
  await client.end();
  const actions = rows.map((r: { action: string }) => r.action);
  for (const action of [
    'project.create',
    'key.issue',
    'key.rotate',
    'key.revoke',
    'key.suspend',
    'pat.create',
    'pat.revoke',
    'user.invite',
    'subscription.set',
    'project.suspend',
  ]) {
    t.true(actions.includes(action), action);
  }
  t.true(rows.every((r: { channel: string }) => r.channel === 'cli'));
});
