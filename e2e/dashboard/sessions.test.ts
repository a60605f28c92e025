import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { CLI_ACTOR } from '@gw/kernel';
import { DashboardClient } from './http-client.js';
import { MailSink, signedInUser, startDashboardKernel } from './kernel.js';

// Sessions, CSRF, roles and operator scoping over plain HTTP (no browser), on a real kernel and
// PostgreSQL with a local SMTP sink.

let gw: TestKernel;
let sink: MailSink;
let seq = 0;

test.before(async () => {
  sink = await MailSink.start();
  gw = await startDashboardKernel(sink, { 'plugins.dashboard.idleTimeoutSeconds': 600 });
});
test.after.always(async () => {
  await gw?.close();
  await sink?.close();
});

const db = () => gw.kernel.cradle.db;

const user = (role: 'admin' | 'member', operator?: string) => signedInUser(gw, sink, role, operator);

async function projectCount(operatorId: string): Promise<number> {
  return (await gw.kernel.cradle.tenancyProjects.listForOperator(operatorId, { limit: 1000 })).length;
}

test.serial('sign-in rotates the cookie; the pre-sign-in cookie is then worthless; an uninvited address gets the same pages and never a session', async (t) => {
  const email = `rotate-${++seq}@example.test`;
  await gw.kernel.cradle.tenancyUsers.invite({ email, role: 'member' }, CLI_ACTOR);
  const client = new DashboardClient(gw.url);
  const form = await client.get('/dashboard/sign-in');
  const before = client.cookie;
  t.truthy(before);
  t.regex(form.headers.get('set-cookie') ?? '', /^gw_dashboard=[A-Za-z0-9_-]{43}; Path=\/dashboard; Max-Age=900; HttpOnly; SameSite=Lax$/);
  t.false((form.headers.get('content-security-policy') ?? '').includes('unsafe-inline'));
  await client.post('/dashboard/sign-in/email', { _csrf: form.csrf!, email });
  const code = await client.get('/dashboard/sign-in/code');
  const done = await client.post('/dashboard/sign-in/code', { _csrf: code.csrf!, code: await sink.nextCode(email) });
  t.is(done.status, 303);
  t.not(client.cookie, before);
  t.is((await client.get('/dashboard/projects')).status, 200);
  const stale = new DashboardClient(gw.url);
  stale.cookie = before;
  t.is((await stale.get('/dashboard/projects')).location, '/dashboard/sign-in');

  const stranger = new DashboardClient(gw.url);
  const strangerForm = await stranger.get('/dashboard/sign-in');
  const sent = await stranger.post('/dashboard/sign-in/email', { _csrf: strangerForm.csrf!, email: 'nobody@example.test' });
  t.is(sent.location, '/dashboard/sign-in/code');
  const strangerCode = await stranger.get('/dashboard/sign-in/code');
  const refused = await stranger.post('/dashboard/sign-in/code', { _csrf: strangerCode.csrf!, code: '123456' });
  t.is(refused.status, 400);
  t.is((await stranger.get('/dashboard/projects')).location, '/dashboard/sign-in');
  t.is((await db()('tenancy_users').where({ email: 'nobody@example.test' })).length, 0);
});

test.serial(
  'a POST without the CSRF token, with a wrong one, or from another origin is a 403 page and writes nothing; the right one from the same origin (or without Origin) writes',
  async (t) => {
    const { client, user: admin, csrf } = await user('admin');
    const before = await projectCount(admin.operator_id);
    const missing = await client.post('/dashboard/projects', { name: 'csrf-missing', kind: 'testnet' });
    t.is(missing.status, 403);
    t.regex(missing.text, /csrf_invalid/);
    t.regex(missing.headers.get('content-type') ?? '', /^text\/html/);
    t.is((await client.post('/dashboard/projects', { _csrf: 'x'.repeat(43), name: 'csrf-wrong', kind: 'testnet' })).status, 403);
    t.is((await client.post('/dashboard/projects', { _csrf: csrf, name: 'csrf-origin', kind: 'testnet' }, { origin: 'https://evil.example' })).status, 403);
    // Another user's token is not this session's.
    const other = await user('admin');
    t.is((await client.post('/dashboard/projects', { _csrf: other.csrf, name: 'csrf-other', kind: 'testnet' })).status, 403);
    t.is(await projectCount(admin.operator_id), before);
    const created = await client.post('/dashboard/projects', { _csrf: csrf, name: 'csrf-ok', kind: 'testnet' });
    t.is(created.status, 201, created.text);
    t.regex(created.text, /You will not see this again/);
    const viaTool = await client.post('/dashboard/projects', { _csrf: csrf, name: 'csrf-no-origin', kind: 'testnet' }, { origin: null });
    t.is(viaTool.status, 201);
    t.is(await projectCount(admin.operator_id), before + 2);
    const audit = await db()('kernel_audit_log').where({ action: 'project.create', channel: 'dashboard', actor: `user:${admin.id}` });
    t.is(audit.length, 2);
  },
);

test.serial(
  'a read-only member sees pages but every write is a 403 page and writes nothing; the role is changed with the same service the CLI uses',
  async (t) => {
    const { client, user: member, csrf } = await user('member');
    const list = await client.get('/dashboard/projects');
    t.is(list.status, 200);
    t.notRegex(list.text, /action="\/dashboard\/projects"/);
    const { project } = await gw.kernel.cradle.tenancyProjects.create(
      { name: `member-target-${seq}`, kind: 'testnet', operator: member.operator_id },
      CLI_ACTOR,
    );
    const before = await projectCount(member.operator_id);
    const auditBefore = await db()('kernel_audit_log').count({ n: '*' }).first();
    for (const [path, fields] of [
      ['/dashboard/projects', { name: 'by-member', kind: 'testnet' }],
      ['/dashboard/sandbox', { name: 'sandbox-by-member' }],
      [`/dashboard/projects/${project.id}/suspend`, {}],
      [`/dashboard/projects/${project.id}/resume`, {}],
    ] as const) {
      const refused = await client.post(path, { _csrf: csrf, ...fields });
      t.is(refused.status, 403, path);
      t.regex(refused.text, /role_forbidden/, path);
    }
    t.is(await projectCount(member.operator_id), before);
    t.is((await gw.kernel.cradle.tenancyProjects.get(project.id)).status, 'active');
    t.deepEqual(await db()('kernel_audit_log').count({ n: '*' }).first(), auditBefore);

    await gw.kernel.cradle.tenancyUsers.setRole(member.email, 'admin', CLI_ACTOR);
    t.is((await client.post(`/dashboard/projects/${project.id}/suspend`, { _csrf: csrf })).status, 303);
    t.is((await gw.kernel.cradle.tenancyProjects.get(project.id)).status, 'suspended');
    const row = await db()('kernel_audit_log')
      .where({ action: 'project.suspend', channel: 'dashboard', actor: `user:${member.id}`, project_id: project.id })
      .first();
    t.truthy(row);
  },
);

test.serial(
  'idle and absolute timeouts end a session (back to the sign-in page, the row gone); sign-out everywhere ends every session of the user',
  async (t) => {
    const { client, user: u } = await user('admin');
    t.is((await client.get('/dashboard/projects')).status, 200);
    await db()('dashboard_sessions')
      .where({ user_id: u.id })
      .update({ last_seen_at: db().raw(`now() - interval '601 seconds'`) });
    t.is((await client.get('/dashboard/projects')).location, '/dashboard/sign-in');
    t.is((await db()('dashboard_sessions').where({ user_id: u.id })).length, 0);

    await client.signIn(sink, u.email);
    await db()('dashboard_sessions')
      .where({ user_id: u.id })
      .update({ expires_at: db().raw(`now() - interval '1 second'`) });
    t.is((await client.get('/dashboard/account')).location, '/dashboard/sign-in');

    await client.signIn(sink, u.email);
    const second = new DashboardClient(gw.url);
    await second.signIn(sink, u.email);
    t.is((await db()('dashboard_sessions').where({ user_id: u.id })).length, 2);
    const out = await second.post('/dashboard/sign-out-everywhere', { _csrf: await second.csrf() });
    t.is(out.location, '/dashboard/sign-in');
    t.is((await client.get('/dashboard/projects')).location, '/dashboard/sign-in');
    t.is((await db()('dashboard_sessions').where({ user_id: u.id })).length, 0);
    t.truthy(
      await db()('kernel_audit_log')
        .where({ action: 'dashboard.sign_out_everywhere', actor: `user:${u.id}`, channel: 'dashboard' })
        .first(),
    );
  },
);

test.serial(
  'a page refreshes a session last seen over 30 s ago on the database clock; the sweep deletes exactly the sessions past either timeout',
  async (t) => {
    const { client, user: u } = await user('admin');
    const sessions = () => db()('dashboard_sessions').where({ user_id: u.id });
    await sessions().update({ last_seen_at: db().raw(`now() - interval '45 seconds'`) });
    t.is((await client.get('/dashboard/account')).status, 200);
    const touched = await db()('dashboard_sessions').where({ user_id: u.id }).first(db().raw(`last_seen_at > now() - interval '5 seconds' as fresh`));
    t.true(touched.fresh);

    const idle = new DashboardClient(gw.url);
    await idle.signIn(sink, u.email);
    const expired = new DashboardClient(gw.url);
    await expired.signIn(sink, u.email);
    const [liveRow, idleRow, expiredRow] = await sessions().orderBy('created_at').select('id');
    await db()('dashboard_sessions')
      .where({ id: expiredRow.id })
      .update({ expires_at: db().raw(`now() - interval '1 second'`) });
    await db()('dashboard_sessions')
      .where({ id: idleRow.id })
      .update({ last_seen_at: db().raw(`now() - interval '601 seconds'`) });
    // Sessions of other tests are live; only these two are past a timeout.
    t.is(await gw.kernel.cradle.dashboardSessions.sweep(), 2);
    t.deepEqual(
      (await sessions().select('id')).map((r) => r.id),
      [liveRow.id],
    );
    t.is((await client.get('/dashboard/account')).status, 200);
    t.is(await gw.kernel.cradle.dashboardSessions.sweep(), 0);
  },
);

test.serial("another operator's project id in a URL is a 404 page, for reading and writing; script in a project name is escaped", async (t) => {
  const { client, user: admin, csrf } = await user('admin');
  const other = await gw.kernel.cradle.tenancyOperators.create(`other-${++seq}`, CLI_ACTOR);
  const { project: foreign } = await gw.kernel.cradle.tenancyProjects.create({ name: 'foreign', kind: 'testnet', operator: other.id }, CLI_ACTOR);
  t.not(admin.operator_id, other.id);
  const read = await client.get(`/dashboard/projects/${foreign.id}`);
  t.is(read.status, 404);
  t.notRegex(read.text, /foreign/);
  t.is((await client.post(`/dashboard/projects/${foreign.id}/suspend`, { _csrf: csrf })).status, 404);
  t.is((await gw.kernel.cradle.tenancyProjects.get(foreign.id)).status, 'active');
  t.is((await client.get('/dashboard/projects/not-a-ulid')).status, 404);
  // Any other id of a path that is not a ULID (a NUL PostgreSQL would refuse, a fragment) is a 404 page too, never a 500.
  const { project: own } = await gw.kernel.cradle.tenancyProjects.create({ name: 'own', kind: 'sandbox', operator: admin.operator_id }, CLI_ACTOR);
  for (const path of [
    `/dashboard/projects/${own.id}/invoices/%00`,
    `/dashboard/projects/${own.id}/invoices/x'y`,
    `/dashboard/users/%00/apps`,
    `/dashboard/projects/${own.id}/webhooks/%00`,
  ]) {
    const answer = await client.get(path);
    t.is(answer.status, 404, path);
    t.regex(answer.text, /not_found/, path);
  }
  for (const path of [`/dashboard/projects/${own.id}/invoices/%00/cancel`, '/dashboard/tokens/%00/revoke'])
    t.is((await client.post(path, { _csrf: csrf })).status, 404, path);
  t.is((await client.get(`/dashboard/switch?project=${foreign.id}`)).location, `/dashboard/projects/${foreign.id}`);

  const name = `<script>alert("x")</script><img src=x onerror=alert(1)>`;
  const created = await client.post('/dashboard/projects', { _csrf: csrf, name, kind: 'sandbox' });
  t.is(created.status, 201);
  for (const page of [created, await client.get('/dashboard/projects')]) {
    t.false(page.text.includes('<script>alert'));
    t.false(page.text.includes('<img src=x'));
    t.true(page.text.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
  }
  const count = await projectCount(admin.operator_id);
  const tooLong = await client.post('/dashboard/projects', { _csrf: csrf, name: 'x'.repeat(129), kind: 'testnet' });
  t.is(tooLong.status, 400);
  t.regex(tooLong.text, /invalid_form/);
  const badKind = await client.post('/dashboard/projects', { _csrf: csrf, name: 'k', kind: 'mainnet' });
  t.is(badKind.status, 400);
  // A body over http.bodyLimitBytes and an unknown dashboard path: HTML error pages, never JSON or a 500.
  const huge = await client.post('/dashboard/projects', { _csrf: csrf, name: 'x'.repeat(1_100_000), kind: 'testnet' });
  t.is(huge.status, 413);
  t.regex(huge.headers.get('content-type') ?? '', /^text\/html/);
  const unknown = await client.get('/dashboard/no-such-page');
  t.is(unknown.status, 404);
  t.regex(unknown.text, /<h1>Not found<\/h1>/);
  t.false((unknown.headers.get('content-security-policy') ?? '').includes('unsafe-inline'));
  const noKind = await client.post('/dashboard/projects', { _csrf: csrf, name: 'no-kind' });
  t.is(noKind.status, 400);
  t.is(await projectCount(admin.operator_id), count);
});
