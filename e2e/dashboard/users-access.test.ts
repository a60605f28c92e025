import test from 'ava';
import { CLI_ACTOR, isAppError, runCommand } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { checkoutPlugin } from '@gw/plugin-checkout';
import { mcpPlugin } from '@gw/plugin-mcp';
import { oauthPlugin } from '@gw/plugin-oauth';
import { watchersPlugin } from '@gw/plugin-watchers';
import { hiddenFields, MailSink, WebClient } from '@gw/plugin-oauth/testing';
import { rawCall } from '@gw/plugin-mcp/testing';
import { SANDBOX_PLUGINS, startSandboxKernel } from '@gw/plugin-sandbox/testing';
import { dashboardPlugin } from '@gw/plugin-dashboard';
import { DashboardClient } from './http-client.js';
import { signedInUser } from './kernel.js';
import { connectApp, refreshWorks } from '@gw/plugin-dashboard/testing';

// Issue 33 items 12, 15 and 18: disabling users and ending their sessions (dashboard and CLI),
// the cap of wrong sign-in codes per address across codes, and users unique per operator. A real
// kernel with the MCP endpoint, PostgreSQL and a local SMTP sink.

let gw: TestKernel;
let sink: MailSink;
let seq = 0;

test.before(async () => {
  sink = await MailSink.start();
  gw = await startSandboxKernel(
    {
      'plugins.oauth.smtp.url': sink.url,
      'plugins.oauth.emailCode.sendsPerHourPerIp': 1000,
      'plugins.dashboard.signInsPerHourPerIp': 1000,
      'plugins.mcp.toolCallsPerMinute': 1000,
    },
    [...SANDBOX_PLUGINS, watchersPlugin, checkoutPlugin, oauthPlugin, mcpPlugin, dashboardPlugin],
  );
});
test.after.always(async () => {
  await gw?.close();
  await sink?.close();
});

const cradle = () => gw.kernel.cradle;
const audits = (actor: string, action: string) => cradle().db('kernel_audit_log').where({ actor, action });
const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
/** Whether the MCP endpoint accepts the bearer token (a PAT or an OAuth access token). */
const mcpAccepts = async (token: string) => (await rawCall(gw, listTools, token)).status === 200;

async function operator(): Promise<string> {
  return (await cradle().tenancyOperators.create(`users-access-${++seq}`, CLI_ACTOR)).id;
}

async function errorCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (isAppError(error)) return error.code;
    throw error;
  }
}

test.serial(
  'an admin disables a user in the dashboard: their session, PAT and OAuth tokens stop at once; enabling restores sign-in, not what ended',
  async (t) => {
    const op = await operator();
    const admin = await signedInUser(gw, sink, 'admin', op);
    const leaver = await signedInUser(gw, sink, 'admin', op);
    const created = await leaver.client.post('/dashboard/tokens', { _csrf: leaver.csrf, name: 'leaver-pat', 'scope.invoices:read': 'on' });
    t.is(created.status, 201, created.text);
    const pat = /id="pat" class="mono" readonly value="(svc_pat_[0-9A-Za-z]{32})"/.exec(created.text)?.[1];
    t.truthy(pat);
    const app = await connectApp(gw.url, leaver.user.email, sink, 'Leaver app');
    t.true(await mcpAccepts(pat!));
    t.true(await mcpAccepts(app.accessToken));
    const cookie = leaver.client.cookie;

    const disabled = await admin.client.post(`/dashboard/users/${leaver.user.id}/disable`, { _csrf: admin.csrf });
    t.is(disabled.status, 303, disabled.text);
    t.is((await cradle().tenancyUsers.find(leaver.user.id))?.status, 'disabled');
    t.is((await leaver.client.get('/dashboard/projects')).location, '/dashboard/sign-in');
    t.false(await mcpAccepts(pat!));
    t.false(await mcpAccepts(app.accessToken));
    t.like(await cradle().oauthTokens.verifyAccessToken(app.accessToken), { ok: false, reason: 'lineage_revoked' });
    t.false(await refreshWorks(gw.url, app.clientId, app.refreshToken));
    t.is((await cradle().db('dashboard_sessions').where({ user_id: leaver.user.id })).length, 0);
    const [entry] = await audits(`user:${admin.user.id}`, 'user.disable');
    t.like(entry, { channel: 'dashboard', target: `user:${leaver.user.id}` });
    t.like(entry.details.ended, { pats: 1, dashboard_sessions: 1, oauth_grants: 1 });
    // A disabled address gets the same sign-in answers as an unknown one, and no session.
    const attempt = await startSignIn(leaver.user.email);
    t.is((await attempt.client.post('/dashboard/sign-in/code', { _csrf: attempt.csrf, code: '123456' })).status, 400);
    t.is((await attempt.client.get('/dashboard/projects')).location, '/dashboard/sign-in');

    t.is((await admin.client.post(`/dashboard/users/${leaver.user.id}/enable`, { _csrf: admin.csrf })).status, 303);
    t.truthy((await audits(`user:${admin.user.id}`, 'user.enable')).length);
    const back = new DashboardClient(gw.url);
    await back.signIn(sink, leaver.user.email);
    t.is((await back.get('/dashboard/projects')).status, 200);
    const stale = new DashboardClient(gw.url);
    stale.cookie = cookie;
    t.is((await stale.get('/dashboard/projects')).location, '/dashboard/sign-in');
    t.false(await mcpAccepts(pat!));
    t.false(await mcpAccepts(app.accessToken));
    t.false(await refreshWorks(gw.url, app.clientId, app.refreshToken));
  },
);

test.serial("an admin ends another user's sessions (dashboard or CLI); members cannot; the user's OAuth app keeps working", async (t) => {
  const op = await operator();
  const admin = await signedInUser(gw, sink, 'admin', op);
  const member = await signedInUser(gw, sink, 'member', op);
  const app = await connectApp(gw.url, member.user.email, sink, 'Member app');
  t.is((await member.client.post(`/dashboard/users/${admin.user.id}/sessions/end`, { _csrf: member.csrf })).status, 403);
  t.is((await admin.client.get('/dashboard/projects')).status, 200);
  t.is((await member.client.post(`/dashboard/users/${admin.user.id}/disable`, { _csrf: member.csrf })).status, 403);
  t.is((await cradle().tenancyUsers.find(admin.user.id))?.status, 'active');

  t.is((await admin.client.post(`/dashboard/users/${member.user.id}/sessions/end`, { _csrf: admin.csrf })).status, 303);
  t.is((await member.client.get('/dashboard/projects')).location, '/dashboard/sign-in');
  const [ended] = await audits(`user:${admin.user.id}`, 'user.sessions_end');
  t.like(ended.details.ended, { dashboard_sessions: 1, oauth_sessions: 1 });
  t.true(await mcpAccepts(app.accessToken));
  t.is((await cradle().tenancyUsers.find(member.user.id))?.status, 'active');
  // Another operator's user is not found.
  const stranger = await signedInUser(gw, sink, 'member', await operator());
  t.is((await admin.client.post(`/dashboard/users/${stranger.user.id}/sessions/end`, { _csrf: admin.csrf })).status, 404);
  t.is((await stranger.client.get('/dashboard/projects')).status, 200);

  // The CLI command, by e-mail, ends the sessions of the dashboard and of the OAuth pages.
  const again = new DashboardClient(gw.url);
  await again.signIn(sink, member.user.email);
  const command = gw.kernel.commands.find((c) => c.noun === 'user sessions' && c.verb === 'end')!;
  const result = (await runCommand(command, { user: member.user.email, operator: op }, cradle())) as { ended: Record<string, number> };
  t.like(result.ended, { dashboard_sessions: 1, oauth_sessions: 0 });
  t.is((await again.get('/dashboard/projects')).location, '/dashboard/sign-in');
  t.truthy((await audits('operator-cli', 'user.sessions_end')).length);
});

test.serial(
  'the last administrator who is not disabled can be neither disabled nor demoted (last_admin); the CLI disables and enables by e-mail',
  async (t) => {
    const op = await operator();
    const only = await cradle().tenancyUsers.invite({ email: `only-${seq}@example.test`, operator: op, role: 'admin' }, CLI_ACTOR);
    const member = await cradle().tenancyUsers.invite({ email: `m-${seq}@example.test`, operator: op, role: 'member' }, CLI_ACTOR);
    t.is(await errorCode(cradle().tenancyUsers.disable(only.id, CLI_ACTOR)), 'last_admin');
    t.is(await errorCode(cradle().tenancyUsers.setRole(only.id, 'member', CLI_ACTOR)), 'last_admin');
    t.is((await cradle().tenancyUsers.find(only.id))?.status, 'invited');
    await cradle().tenancyUsers.setRole(member.id, 'admin', CLI_ACTOR);
    const disable = gw.kernel.commands.find((c) => c.noun === 'user' && c.verb === 'disable')!;
    const enable = gw.kernel.commands.find((c) => c.noun === 'user' && c.verb === 'enable')!;
    await runCommand(disable, { user: only.email }, cradle());
    t.is((await cradle().tenancyUsers.find(only.id))?.status, 'disabled');
    // Now `member` is the last administrator who is not disabled.
    t.is(await errorCode(cradle().tenancyUsers.disable(member.id, CLI_ACTOR)), 'last_admin');
    await runCommand(enable, { user: only.email }, cradle());
    t.is((await cradle().tenancyUsers.find(only.id))?.status, 'active');
    t.truthy((await audits('operator-cli', 'user.disable')).length);
  },
);

/** Starts a dashboard sign-in for `email`; returns the client and the code page's CSRF token. */
async function startSignIn(email: string): Promise<{ client: DashboardClient; csrf: string }> {
  const client = new DashboardClient(gw.url);
  const form = await client.get('/dashboard/sign-in');
  const sent = await client.post('/dashboard/sign-in/email', { _csrf: form.csrf!, email });
  if (sent.location !== '/dashboard/sign-in/code') throw new Error(`email step: ${sent.status}`);
  return { client, csrf: (await client.get('/dashboard/sign-in/code')).csrf! };
}

test.serial(
  'wrong codes are capped per address across codes: at 10 in an hour even the right code is refused, an unknown address alike, until the window passes',
  async (t) => {
    const op = await operator();
    const known = `capped-${seq}@example.test`;
    await cradle().tenancyUsers.invite({ email: known, operator: op, role: 'admin' }, CLI_ACTOR);
    const unknown = `nobody-capped-${seq}@example.test`;
    const answers: Record<string, number[]> = { [known]: [], [unknown]: [] };
    for (const email of [known, unknown]) {
      // Two codes, five wrong entries each (the per-code limit): ten wrong for the address.
      for (let round = 0; round < 2; round++) {
        const { client, csrf } = await startSignIn(email);
        if (email === known) await sink.nextCode(email);
        for (let i = 0; i < 5; i++) answers[email]!.push((await client.post('/dashboard/sign-in/code', { _csrf: csrf, code: '000000' })).status);
      }
    }
    t.deepEqual(answers[known], answers[unknown], 'an unknown address answers like a known one');
    t.is(answers[known]!.at(-1), 429);
    const { client, csrf } = await startSignIn(known);
    const right = await sink.nextCode(known);
    const locked = await client.post('/dashboard/sign-in/code', { _csrf: csrf, code: right });
    t.is(locked.status, 429);
    t.regex(locked.text, /Too many wrong codes were entered for this address/);
    t.truthy(Number(locked.headers.get('retry-after')) > 0);
    t.is((await client.get('/dashboard/projects')).location, '/dashboard/sign-in');

    // An hour later (the failures aged on the database), the address signs in again.
    await cradle().db.raw(`update oauth_code_failures set failed_at = failed_at - interval '1 hour'`);
    await new DashboardClient(gw.url).signIn(sink, known);
    t.pass();
  },
);

test.serial(
  'one e-mail may be a user of two operators: invitations do not collide or reveal the other, sign-in asks which operator after the right code',
  async (t) => {
    const first = await operator();
    const second = await operator();
    const email = `shared-${seq}@example.test`;
    const a = await cradle().tenancyUsers.invite({ email, operator: first, role: 'admin' }, CLI_ACTOR);
    // An administrator of the second operator invites the same address: no `user_exists`, no hint.
    const admin = await signedInUser(gw, sink, 'admin', second);
    const invited = await admin.client.post('/dashboard/users', { _csrf: admin.csrf, email, role: 'member' });
    t.is(invited.status, 303, invited.text);
    const b = await cradle().tenancyUsers.find(email, { operatorId: second });
    t.like(b, { operator_id: second, role: 'member' });
    t.not(a.id, b!.id);
    t.is(await errorCode(cradle().tenancyUsers.invite({ email, operator: first }, CLI_ACTOR)), 'user_exists');
    t.is(await errorCode(cradle().tenancyUsers.find(email)), 'user_ambiguous');

    const { client, csrf } = await startSignIn(email);
    const code = await sink.nextCode(email);
    const choose = await client.post('/dashboard/sign-in/code', { _csrf: csrf, code });
    t.is(choose.status, 400);
    t.regex(choose.text, /several operators/);
    t.true(choose.text.includes(`value="${first}"`) && choose.text.includes(`value="${second}"`));
    const done = await client.post('/dashboard/sign-in/code', { _csrf: csrf, code, operator: second });
    t.is(done.status, 303);
    const users = await client.get('/dashboard/users');
    t.is(users.status, 200);
    t.true(users.text.includes(admin.user.email), 'signed in to the second operator');
    t.is((await cradle().tenancyUsers.find(b!.id))?.status, 'active');
    t.is((await cradle().tenancyUsers.find(a.id))?.status, 'invited');
  },
);

test.serial(
  "the OAuth authorize pages ask an address of two operators which one after the right code, and the grant is for that operator's user",
  async (t) => {
    const first = await operator();
    const second = await operator();
    const email = `shared-oauth-${seq}@example.test`;
    await cradle().tenancyUsers.invite({ email, operator: first, role: 'member' }, CLI_ACTOR);
    const b = await cradle().tenancyUsers.invite({ email, operator: second, role: 'member' }, CLI_ACTOR);
    const registered = await fetch(`${gw.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Shared app',
        redirect_uris: ['http://127.0.0.1:53682/callback'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'none',
      }),
    });
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const url = new URL(`${gw.url}/oauth/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:53682/callback',
      scope: 'invoices:read',
      state: 's',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      resource: `${gw.url}/api/mcp/transport`,
    }).toString();
    const web = new WebClient();
    const start = await web.get(url);
    const codePage = await web.post(`${gw.url}/oauth/authorize/email`, { ...hiddenFields(start.text), email });
    t.is(codePage.status, 200);
    const code = await sink.nextCode(email);
    const choose = await web.post(`${gw.url}/oauth/authorize/verify`, { ...hiddenFields(codePage.text), code });
    t.is(choose.status, 400);
    t.regex(choose.text, /several operators/);
    t.true(choose.text.includes(`value="${first}"`) && choose.text.includes(`value="${second}"`));
    const consent = await web.post(`${gw.url}/oauth/authorize/verify`, { ...hiddenFields(choose.text), code, operator: second });
    t.regex(consent.text, /action="\/oauth\/authorize\/consent"/);
    const approved = await web.post(`${gw.url}/oauth/authorize/consent`, { ...hiddenFields(consent.text), decision: 'approve' });
    t.is(approved.status, 302);
    const [grantCode] = await cradle().db('oauth_codes').where({ client_id: clientId }).select('user_id');
    t.is(grantCode?.user_id, b.id);
    // The CLI names such a user with --operator.
    const list = gw.kernel.commands.find((c) => c.noun === 'oauth apps' && c.verb === 'list')!;
    t.is(await errorCode(runCommand(list, { user: email }, cradle())), 'user_ambiguous');
    const listed = (await runCommand(list, { user: email, operator: second }, cradle())) as { user: { id: string } };
    t.is(listed.user.id, b.id);
  },
);

test.serial('a session that a sign-in racing the disable left behind does not come back to life on enable', async (t) => {
  const op = await operator();
  await cradle().tenancyUsers.invite({ email: `race-admin-${seq}@example.test`, operator: op, role: 'admin' }, CLI_ACTOR);
  const racer = await cradle().tenancyUsers.invite({ email: `racer-${seq}@example.test`, operator: op, role: 'member' }, CLI_ACTOR);
  await cradle().tenancyUsers.disable(racer.id, CLI_ACTOR);
  // What a code checked just before the disable committed would write just after it.
  const sessions = cradle().dashboardSessions;
  const late = await sessions.signIn(await sessions.begin(false), racer.id, false);
  const client = new DashboardClient(gw.url);
  client.cookie = late.token;
  t.is((await client.get('/dashboard/projects')).location, '/dashboard/sign-in', 'refused while disabled');
  await cradle().tenancyUsers.enable(racer.id, CLI_ACTOR);
  t.is((await client.get('/dashboard/projects')).location, '/dashboard/sign-in', 'still refused once enabled');
  t.is((await cradle().db('dashboard_sessions').where({ user_id: racer.id })).length, 0);
});
