import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { CLI_ACTOR } from '@gw/kernel';
import { DashboardClient } from './http-client.js';
import { MailSink, startDashboardKernel } from './kernel.js';

// The sign-in's return path (`?return_to=`): a page opened signed out is reached once signed in,
// only ever a path of this dashboard, kept with the sign-in session server-side.

let gw: TestKernel;
let sink: MailSink;
let seq = 0;

test.before(async () => {
  sink = await MailSink.start();
  gw = await startDashboardKernel(sink);
});
test.after.always(async () => {
  await gw?.close();
  await sink?.close();
});

async function invited(): Promise<string> {
  const email = `return-${++seq}@example.test`;
  await gw.kernel.cradle.tenancyUsers.invite({ email, role: 'admin' }, CLI_ACTOR);
  return email;
}

/** Sends the e-mail and code forms of a sign-in already begun on `client`; the code step's answer. */
async function finish(client: DashboardClient, email: string, csrf: string) {
  const sent = await client.post('/dashboard/sign-in/email', { _csrf: csrf, email });
  if (sent.location !== '/dashboard/sign-in/code') throw new Error(`email step: ${sent.status}`);
  const code = await client.get('/dashboard/sign-in/code');
  return client.post('/dashboard/sign-in/code', { _csrf: code.csrf!, code: await sink.nextCode(email) });
}

test('a sign-in opened with a dashboard return path ends there, query kept; once signed in the sign-in page leads there at once', async (t) => {
  const email = await invited();
  const client = new DashboardClient(gw.url);
  const target = '/dashboard/projects?kind=testnet&x=%2F%2Fevil.example';
  const form = await client.get(`/dashboard/sign-in?return_to=${encodeURIComponent(target)}`);
  t.is(form.status, 200);
  t.false(form.text.includes('return_to'), 'the path stays server-side, not in the forms');
  const done = await finish(client, email, form.csrf!);
  t.is(done.status, 303);
  t.is(done.location, target);
  const stored = await gw.kernel.cradle.db('dashboard_sessions').whereNotNull('user_id').whereNotNull('return_to');
  t.is(stored.length, 0, 'the path is used up by the sign-in');

  const again = await client.get(`/dashboard/sign-in?return_to=${encodeURIComponent('/dashboard/users')}`);
  t.is(again.status, 303);
  t.is(again.location, '/dashboard/users');
  t.is((await client.get(`/dashboard/sign-in?return_to=${encodeURIComponent('https://evil.example/')}`)).location, '/dashboard');
});

test('a return path to another site, or out of the dashboard, is ignored: the sign-in ends on the dashboard home', async (t) => {
  for (const bad of ['https://evil.example/', '//evil.example/x', '/dashboard/..//evil.example', '/api/v1/invoices', '/dashboard/sign-in/code']) {
    const email = await invited();
    const client = new DashboardClient(gw.url);
    const form = await client.get(`/dashboard/sign-in?return_to=${encodeURIComponent(bad)}`);
    t.is(form.status, 200, bad);
    const done = await finish(client, email, form.csrf!);
    t.is(done.location, '/dashboard', bad);
  }
});

test('a return path given while a sign-in is in progress (code already sent) is kept for its end', async (t) => {
  const email = await invited();
  const client = new DashboardClient(gw.url);
  const form = await client.get('/dashboard/sign-in');
  const sent = await client.post('/dashboard/sign-in/email', { _csrf: form.csrf!, email });
  t.is(sent.location, '/dashboard/sign-in/code');
  const resumed = await client.get(`/dashboard/sign-in?return_to=${encodeURIComponent('/dashboard/audit')}`);
  t.is(resumed.location, '/dashboard/sign-in/code');
  const code = await client.get('/dashboard/sign-in/code');
  const done = await client.post('/dashboard/sign-in/code', { _csrf: code.csrf!, code: await sink.nextCode(email) });
  t.is(done.location, '/dashboard/audit');
});
