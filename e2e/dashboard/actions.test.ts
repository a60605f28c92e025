import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { CLI_ACTOR, newId } from '@gw/kernel';
import { Receiver } from '@gw/plugin-webhooks/testing';
import { MailSink, signedInUser, startDashboardKernel } from './kernel.js';
import { connectApp, refreshWorks } from '@gw/plugin-dashboard/testing';
import { DashboardClient } from './http-client.js';
import { stopAll } from '@gw/testing';

// Every action of the dashboard's own pages over HTTP: what an administrator's POST writes (with
// the audit row: channel dashboard, the user as actor), and that a read-only member's is refused
// with nothing written.

let gw: TestKernel, sink: MailSink, receiver: Receiver;
/** The operator of every user here (other operators exist too, so it is named). */
let main: string;

test.before(async () => {
  sink = await MailSink.start();
  receiver = await Receiver.start();
  gw = await startDashboardKernel(sink);
  main = (await gw.kernel.cradle.tenancyOperators.create('main', CLI_ACTOR)).id;
});
test.after.always(() => stopAll(gw, receiver, sink));

const cradle = () => gw.kernel.cradle;
/** An administrator of `main`, signed in, and a new project of that operator. */
const adminWithProject = async (name: string, kind: 'testnet' | 'sandbox') => {
  const admin = await signedInUser(gw, sink, 'admin', main);
  const { project } = await cradle().tenancyProjects.create({ name, kind, operator: admin.user.operator_id }, CLI_ACTOR);
  return { ...admin, project };
};
const audits = (actor: string, action: string) => cradle().db('kernel_audit_log').where({ actor, action, channel: 'dashboard' });
const state = async () => ({
  projects: await cradle().db('tenancy_projects').orderBy('id').select('id', 'status', 'webhook_url'),
  keys: await cradle().db('tenancy_api_keys').orderBy('id').select('id', 'state'),
  secrets: (await cradle().db('tenancy_api_key_secrets').count({ n: '*' }))[0],
  pats: await cradle().db('tenancy_personal_access_tokens').orderBy('id').select('id', 'revoked_at'),
  users: await cradle().db('tenancy_users').orderBy('id').select('id', 'role'),
  audit: (await cradle().db('kernel_audit_log').count({ n: '*' }))[0],
  grants: await cradle().db('oauth_grants').orderBy('id').select('id', 'revoked_at'),
});

test.serial(
  'key actions: issue is refused while a key lives; rotate shows the overlap end; suspend, resume, revoke, issue again; each audited as the user',
  async (t) => {
    const { client, user, csrf, project } = await adminWithProject('keys', 'testnet');
    const base = `/dashboard/projects/${project.id}/key`;
    const conflict = await client.post(`${base}/issue`, { _csrf: csrf });
    t.is(conflict.status, 409);
    t.regex(conflict.text, /api_key_exists/);
    const rotated = await client.post(`${base}/rotate`, { _csrf: csrf });
    t.is(rotated.status, 201);
    t.regex(rotated.text, /previous secret keeps working until <time datetime="\d{4}-/);
    const immediate = await client.post(`${base}/rotate`, { _csrf: csrf, immediate: 'on' });
    t.is(immediate.status, 201);
    t.is((await cradle().tenancyApiKeys.secretLifetimes(project.id)).length, 1, 'immediate: only the new secret works');
    for (const verb of ['suspend', 'resume', 'revoke'] as const) t.is((await client.post(`${base}/${verb}`, { _csrf: csrf })).status, 303, verb);
    t.is((await cradle().tenancyApiKeys.view(project.id))?.state, 'revoked');
    const page = await client.get(base);
    t.regex(page.text, /badge-revoked/);
    t.is((await client.post(`${base}/issue`, { _csrf: csrf })).status, 201);
    for (const action of ['key.rotate', 'key.suspend', 'key.resume', 'key.revoke', 'key.issue'])
      t.truthy((await audits(`user:${user.id}`, action)).length, action);
  },
);

test.serial(
  'a form that shows a secret acts once: sending it again (a reload of the result page, a double click) is 409 form_already_sent and changes nothing; a failed send does not count',
  async (t) => {
    const { client, user, csrf, project } = await adminWithProject('once', 'testnet');
    const base = `/dashboard/projects/${project.id}/key`;
    /** The nonce of the form posting to `action` on the page at `path` (each form renders its own). */
    const nonceOf = async (path: string, action: string) => {
      const form = new RegExp(`<form[^>]*action="${action}"[^>]*>((?:(?!</form>)[\\s\\S])*)</form>`).exec((await client.get(path)).text)?.[1] ?? '';
      const nonce = /name="_once" value="([0-9A-Za-z]{22})"/.exec(form)?.[1];
      if (!nonce) throw new Error(`no single-use field in the form to ${action} on ${path}`);
      return nonce;
    };
    const nonce = await nonceOf(base, `${base}/rotate`);
    t.not(await nonceOf(base, `${base}/rotate`), nonce, 'every render has its own nonce');

    const rotated = await client.post(`${base}/rotate`, { _csrf: csrf, _once: nonce });
    t.is(rotated.status, 201);
    const secretsAfter = await cradle().tenancyApiKeys.secretLifetimes(project.id);
    const before = await state();
    for (const fields of [
      { _csrf: csrf, _once: nonce },
      { _csrf: csrf, _once: nonce, immediate: 'on' },
    ]) {
      const again = await client.post(`${base}/rotate`, fields);
      t.is(again.status, 409);
      t.regex(again.text, /form_already_sent/);
      t.false(again.text.includes('class="secret"'), 'no secret on the refusal');
    }
    t.deepEqual(await state(), before, 'nothing written');
    t.deepEqual(await cradle().tenancyApiKeys.secretLifetimes(project.id), secretsAfter);
    t.is((await audits(`user:${user.id}`, 'key.rotate')).filter((a) => a.project_id === project.id).length, 1);

    // Without a nonce, or with one that is not a nonce: an out-of-date form, nothing done.
    for (const _once of ['', 'x'.repeat(23), '../../etc']) t.is((await client.post(`${base}/rotate`, { _csrf: csrf, _once })).status, 400);
    t.deepEqual(await state(), before);

    // Two sends of one form at once (a double click without the page's script): exactly one acts.
    const raced = await nonceOf(base, `${base}/rotate`);
    const answers = await Promise.all([1, 2, 3].map(() => client.post(`${base}/rotate`, { _csrf: csrf, _once: raced })));
    t.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409]);
    t.is((await audits(`user:${user.id}`, 'key.rotate')).filter((a) => a.project_id === project.id).length, 2);

    // A send whose action fails gives its nonce back: the issue button of a revoked key, sent while
    // a key lives again (409 api_key_exists), works once the key is revoked again, and only once.
    t.is((await client.post(`${base}/revoke`, { _csrf: csrf })).status, 303);
    const issue = await nonceOf(base, `${base}/issue`);
    t.is((await client.post(`${base}/issue`, { _csrf: csrf })).status, 201);
    t.regex((await client.post(`${base}/issue`, { _csrf: csrf, _once: issue })).text, /api_key_exists/);
    t.is((await client.post(`${base}/revoke`, { _csrf: csrf })).status, 303);
    t.is((await client.post(`${base}/issue`, { _csrf: csrf, _once: issue })).status, 201);
    t.regex((await client.post(`${base}/issue`, { _csrf: csrf, _once: issue })).text, /form_already_sent/);

    // Creating a project, a sandbox project and a token: each form sent twice creates one.
    const count = async (table: string, where: Record<string, string>) => (await cradle().db(table).where(where)).length;
    const projectFields = { _csrf: csrf, _once: await nonceOf('/dashboard/projects', '/dashboard/projects'), name: 'twice', kind: 'testnet' };
    const sandboxFields = { _csrf: csrf, _once: await nonceOf('/dashboard/projects', '/dashboard/sandbox'), name: 'twice-sandbox' };
    const tokenFields = { _csrf: csrf, _once: await nonceOf('/dashboard/tokens', '/dashboard/tokens'), name: 'twice', 'scope.invoices:read': 'on' };
    for (const [path, fields] of [
      ['/dashboard/projects', projectFields],
      ['/dashboard/sandbox', sandboxFields],
      ['/dashboard/tokens', tokenFields],
    ] as const) {
      t.is((await client.post(path, fields)).status, 201, path);
      t.is((await client.post(path, fields)).status, 409, path);
    }
    t.is(await count('tenancy_projects', { name: 'twice' }), 1);
    t.is(await count('tenancy_projects', { name: 'twice-sandbox' }), 1);
    t.is(await count('tenancy_personal_access_tokens', { name: 'twice' }), 1);

    // A nonce is the session's: the same user signed in elsewhere is not refused by this one's forms.
    const elsewhere = new DashboardClient(gw.url);
    await elsewhere.signIn(sink, user.email);
    t.is((await elsewhere.post('/dashboard/tokens', { ...tokenFields, _csrf: await elsewhere.csrf(), name: 'elsewhere' })).status, 201);
  },
);

test.serial(
  'policy: enabled coins are checked by the policy service as for the CLI: none or an unknown coin is refused with nothing written; a list is set',
  async (t) => {
    const { client, csrf } = await signedInUser(gw, sink, 'admin', main);
    const { project } = await cradle().tenancyProjects.create({ name: 'policy', kind: 'testnet', operator: main }, CLI_ACTOR);
    const path = `/dashboard/projects/${project.id}/policy`;
    const before = await cradle().invoicesPolicies.get(project.id);
    for (const [coins, code] of [
      [',', 'validation_error'],
      [' , ,', 'validation_error'],
      ['eth,doge', 'invalid_coin'],
      ['eth,ltc', 'invalid_coin'],
    ] as const) {
      const refused = await client.post(path, { _csrf: csrf, coins });
      t.is(refused.status, 400, coins);
      t.regex(refused.text, new RegExp(code), coins);
    }
    t.deepEqual(await cradle().invoicesPolicies.get(project.id), before, 'nothing written');
    t.is((await client.post(path, { _csrf: csrf, coins: 'eth, usdt_erc20,' })).status, 303);
    t.deepEqual((await cradle().invoicesPolicies.get(project.id)).enabled_coins, ['eth', 'usdt_erc20']);
  },
);

test.serial('webhook URL: set (validated), send a test event that the receiver gets signed, clear; each audited', async (t) => {
  const { client, user, csrf, project } = await adminWithProject('hooks', 'sandbox');
  const base = `/dashboard/projects/${project.id}/webhook-url`;
  const bad = await client.post(base, { _csrf: csrf, url: 'ftp://example.test/x' });
  t.is(bad.status, 400);
  t.is((await cradle().tenancyProjects.get(project.id)).webhook_url, null);
  t.is((await client.post(base, { _csrf: csrf, url: `${receiver.url}/hook` })).status, 303);
  t.is((await cradle().tenancyProjects.get(project.id)).webhook_url, `${receiver.url}/hook`);
  receiver.reply = () => ({ status: 200, body: '<script>alert(1)</script>' });
  const tested = await client.post(`${base}/test`, { _csrf: csrf });
  t.is(tested.status, 200);
  t.regex(tested.text, /Test event delivered/);
  const got = receiver.requests.at(-1)!;
  t.is(got.headers['x-service-event-type'], 'webhook.test');
  t.truthy(got.headers['x-service-signature']);
  t.false(tested.text.includes('<script>alert(1)'), 'a response excerpt is escaped');
  t.is((await client.post(`${base}/clear`, { _csrf: csrf })).status, 303);
  t.is((await cradle().tenancyProjects.get(project.id)).webhook_url, null);
  const none = await client.post(`${base}/test`, { _csrf: csrf });
  t.is(none.status, 409);
  t.regex(none.text, /webhook_url_missing/);
  for (const action of ['project.webhook_url.set', 'webhook.test']) t.truthy((await audits(`user:${user.id}`, action)).length, action);
});

test.serial(
  'webhooks replay: ticked dead-lettered events are replayed in one action, audited as the user; a ticked event no longer dead-lettered refuses the whole replay',
  async (t) => {
    const { client, user, csrf, project } = await adminWithProject('replay', 'testnet');
    const ids = [newId(), newId(), newId()];
    const createdAt = new Date();
    await cradle().db.transaction((trx) =>
      cradle().webhooksOutbox.write(
        trx,
        ids.map((id) => ({
          id,
          projectId: project.id,
          mode: 'testnet' as const,
          invoiceId: null,
          eventType: 'invoice.detected' as const,
          originalEventId: null,
          body: JSON.stringify({ event_id: id, event_type: 'invoice.detected', mode: 'testnet', created_at_iso: createdAt.toISOString(), data: {} }),
          targetUrl: `${receiver.url}/replay`,
          createdAt,
        })),
      ),
    );
    // The first two dead-lettered, the third delivered (workers may deliver the replayed ones too).
    await cradle().db('webhooks_events').whereIn('id', ids.slice(0, 2)).update({ status: 'dlq', attempts: 3 });
    await cradle().db('webhooks_events').where({ id: ids[2] }).update({ status: 'delivered', delivered_at: createdAt });
    const status = async (id: string) => (await cradle().db('webhooks_events').where({ id }).first('status')).status as string;
    const base = `/dashboard/projects/${project.id}/webhooks`;
    const list = await client.get(base);
    for (const id of ids.slice(0, 2)) t.true(list.text.includes(`name="event_${id}"`), 'a dead-lettered event has its checkbox');
    t.false(list.text.includes(`name="event_${ids[2]}"`), 'a delivered one has none');

    t.is((await client.post(`${base}/replay`, { _csrf: csrf })).status, 400, 'nothing ticked');
    const mixed = await client.post(`${base}/replay`, { _csrf: csrf, [`event_${ids[0]}`]: 'on', [`event_${ids[2]}`]: 'on' });
    t.is(mixed.status, 409);
    t.regex(mixed.text, /event_not_dead_lettered/);
    t.is(await status(ids[0]!), 'dlq', 'all or nothing: the dead-lettered one of the refused replay is untouched');
    t.is((await audits(`user:${user.id}`, 'webhook.redeliver')).length, 0);

    const replayed = await client.post(`${base}/replay`, { _csrf: csrf, [`event_${ids[0]}`]: 'on', [`event_${ids[1]}`]: 'on' });
    t.is(replayed.status, 303);
    for (const id of ids.slice(0, 2)) t.not(await status(id), 'dlq', id);
    t.deepEqual(
      (await audits(`user:${user.id}`, 'webhook.redeliver')).map((a) => a.target).sort(),
      ids
        .slice(0, 2)
        .map((id) => `webhook_event:${id}`)
        .sort(),
    );
    t.is((await client.post(`${base}/replay`, { _csrf: csrf, all: 'true' })).status, 303, 'replay all with none left');
  },
);

test.serial(
  "personal access tokens: create with scopes (shown once) for every project or one of the operator's, never another operator's; revoke, never another operator's",
  async (t) => {
    const { client, user, csrf, project } = await adminWithProject('pats', 'testnet');
    const other = await cradle().tenancyOperators.create('pats-other', CLI_ACTOR);
    const { project: foreign } = await cradle().tenancyProjects.create({ name: 'foreign', kind: 'testnet', operator: other.id }, CLI_ACTOR);
    const created = await client.post('/dashboard/tokens', {
      _csrf: csrf,
      name: 'reporting',
      'scope.invoices:read': 'on',
      'scope.webhooks:read': 'on',
      project: project.id,
    });
    t.is(created.status, 201);
    const token = /value="(svc_pat_[A-Za-z0-9]+)"/.exec(created.text)?.[1];
    t.truthy(token);
    const verified = await cradle().tenancyPats.verify(token!);
    t.like(verified, { projectId: project.id, operatorId: user.operator_id });
    t.deepEqual(verified?.scopes, ['invoices:read', 'webhooks:read']);
    t.is((await client.post('/dashboard/tokens', { _csrf: csrf, name: 'x', 'scope.invoices:read': 'on', project: foreign.id })).status, 400);
    t.is((await client.post('/dashboard/tokens', { _csrf: csrf, name: 'x' })).status, 400);
    const list = await client.get('/dashboard/tokens');
    t.false(list.text.includes(token!), 'the list never shows a token');
    const foreignPat = await cradle().tenancyPats.create({ scopes: ['invoices:read'], project: foreign.id }, CLI_ACTOR);
    t.is((await client.post(`/dashboard/tokens/${foreignPat.id}/revoke`, { _csrf: csrf })).status, 404);
    t.is(
      await cradle()
        .tenancyPats.verify(foreignPat.token)
        .then((p) => p?.id),
      foreignPat.id,
    );
    t.is((await client.post(`/dashboard/tokens/${verified!.id}/revoke`, { _csrf: csrf })).status, 303);
    t.is(await cradle().tenancyPats.verify(token!), undefined);
  },
);

test.serial(
  "users: invite with a role, set roles within the operator only, never your own; a member revokes their own app but not another user's",
  async (t) => {
    const { client, user, csrf } = await signedInUser(gw, sink, 'admin', main);
    const invited = await client.post('/dashboard/users', { _csrf: csrf, email: 'New.Person@Example.test', role: 'member' });
    t.is(invited.status, 303);
    const person = await cradle().tenancyUsers.find('new.person@example.test');
    t.like(person, { role: 'member', operator_id: user.operator_id, status: 'invited' });
    t.is((await client.post(`/dashboard/users/${person!.id}/role`, { _csrf: csrf, role: 'admin' })).status, 303);
    t.is((await cradle().tenancyUsers.find(person!.id))?.role, 'admin');
    t.is((await client.post(`/dashboard/users/${user.id}/role`, { _csrf: csrf, role: 'member' })).status, 400);
    const other = await cradle().tenancyOperators.create('users-other', CLI_ACTOR);
    const stranger = await cradle().tenancyUsers.invite({ email: 'stranger@example.test', operator: other.id, role: 'member' }, CLI_ACTOR);
    t.is((await client.post(`/dashboard/users/${stranger.id}/role`, { _csrf: csrf, role: 'admin' })).status, 404);
    t.is((await client.get(`/dashboard/users/${stranger.id}/apps`)).status, 404);
    t.is((await cradle().tenancyUsers.find(stranger.id))?.role, 'member');
    t.truthy((await audits(`user:${user.id}`, 'user.role_set')).length);

    const member = await signedInUser(gw, sink, 'member', user.operator_id);
    const mine = await connectApp(gw.url, member.user.email, sink, 'Member app');
    const theirs = await connectApp(gw.url, user.email, sink, 'Admin app');
    t.is((await member.client.get(`/dashboard/users/${user.id}/apps`)).status, 403);
    t.is((await member.client.post(`/dashboard/users/${user.id}/apps/revoke`, { _csrf: member.csrf, client: theirs.clientId })).status, 403);
    t.true(await refreshWorks(gw.url, theirs.clientId, theirs.refreshToken));
    t.is((await member.client.post(`/dashboard/users/${member.user.id}/apps/revoke`, { _csrf: member.csrf, client: mine.clientId })).status, 303);
    t.false(await refreshWorks(gw.url, mine.clientId, mine.refreshToken));
    t.truthy((await audits(`user:${member.user.id}`, 'oauth.app.revoke')).length);
  },
);

test.serial(
  'sandbox: keys listed, reset purges the invoices, delete removes the project; refused for a production project; branding set with script escaped, then back to the default',
  async (t) => {
    const { client, user, csrf } = await signedInUser(gw, sink, 'admin', main);
    const sandbox = await cradle().sandboxProjects.provision({ name: 'sb-actions', operator: main }, CLI_ACTOR);
    const p = `/dashboard/projects/${sandbox.project.id}`;
    const keys = await client.get(`${p}/sandbox`);
    t.is(keys.status, 200);
    t.is((keys.text.match(/<tr><td>/g) ?? []).length, sandbox.wallets.length);
    t.is((await client.post(`${p}/sandbox/reset`, { _csrf: csrf })).status, 303);
    t.truthy((await audits(`user:${user.id}`, 'sandbox.reset')).length);
    const { project: production } = await cradle().tenancyProjects.create({ name: 'not-sandbox', kind: 'production', operator: main }, CLI_ACTOR);
    t.is((await client.get(`/dashboard/projects/${production.id}/sandbox`)).status, 403);
    t.is((await client.post(`/dashboard/projects/${production.id}/sandbox/delete`, { _csrf: csrf })).status, 403);
    t.is((await cradle().tenancyProjects.get(production.id)).id, production.id);

    const name = '<script>alert(1)</script> Café';
    t.is((await client.post(`${p}/branding`, { _csrf: csrf, name, colour: '#0F766E' })).status, 303);
    t.like(await cradle().checkoutBranding.forProject(sandbox.project.id), { displayName: name, colour: '#0f766e' });
    const shown = await client.get(`${p}/branding`);
    t.false(shown.text.includes('<script>alert(1)'));
    t.true(shown.text.includes('&lt;script&gt;alert(1)&lt;/script&gt; Café'));
    t.is((await client.post(`${p}/branding`, { _csrf: csrf, colour: 'red' })).status, 400);
    t.is((await client.post(`${p}/branding`, { _csrf: csrf, name: '', colour: '' })).status, 303);
    t.like(await cradle().checkoutBranding.forProject(sandbox.project.id), { displayName: 'sb-actions', colour: null });

    t.is((await client.post(`${p}/sandbox/delete`, { _csrf: csrf })).location, '/dashboard/projects');
    t.is((await client.get(p)).status, 404);
  },
);

test.serial('a read-only member: every write of these pages is a 403 page and nothing is written', async (t) => {
  const admin = await signedInUser(gw, sink, 'admin', main);
  const { client, user, csrf } = await signedInUser(gw, sink, 'member', admin.user.operator_id);
  const { project } = await cradle().tenancyProjects.create({ name: 'member-refusals', kind: 'sandbox', operator: user.operator_id }, CLI_ACTOR);
  await cradle().tenancyProjects.setWebhookUrl(project.id, `${receiver.url}/m`, CLI_ACTOR);
  const pat = await cradle().tenancyPats.create({ scopes: ['invoices:read'], operator: user.operator_id }, CLI_ACTOR);
  const app = await connectApp(gw.url, admin.user.email, sink, 'Admin app 2');
  const p = `/dashboard/projects/${project.id}`;
  const writes: [string, Record<string, string>][] = [
    ['/dashboard/projects', { name: 'm', kind: 'testnet' }],
    ['/dashboard/sandbox', { name: 'm' }],
    [`${p}/suspend`, {}],
    [`${p}/resume`, {}],
    [`${p}/key/issue`, {}],
    [`${p}/key/rotate`, {}],
    [`${p}/key/suspend`, {}],
    [`${p}/key/resume`, {}],
    [`${p}/key/revoke`, {}],
    [`${p}/webhook-url`, { url: 'https://example.test/x' }],
    [`${p}/webhook-url/clear`, {}],
    [`${p}/webhook-url/test`, {}],
    ['/dashboard/tokens', { name: 'm', 'scope.invoices:read': 'on' }],
    [`/dashboard/tokens/${pat.id}/revoke`, {}],
    ['/dashboard/users', { email: 'by-member@example.test', role: 'admin' }],
    [`/dashboard/users/${admin.user.id}/role`, { role: 'member' }],
    [`/dashboard/users/${user.id}/role`, { role: 'admin' }],
    [`/dashboard/users/${admin.user.id}/apps/revoke`, { client: app.clientId }],
    [`${p}/sandbox/reset`, {}],
    [`${p}/sandbox/delete`, {}],
    [`${p}/branding`, { name: 'by member' }],
    [`${p}/branding/remove-logo`, {}],
  ];
  const requestsBefore = receiver.requests.length;
  const before = await state();
  for (const [path, fields] of writes) {
    const refused = await client.post(path, { _csrf: csrf, ...fields });
    t.is(refused.status, 403, path);
    t.regex(refused.text, /role_forbidden/, path);
  }
  t.deepEqual(await state(), before);
  t.is(receiver.requests.length, requestsBefore, 'no test event was sent');
});
