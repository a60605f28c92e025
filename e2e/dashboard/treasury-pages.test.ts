import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { CLI_ACTOR, newId } from '@gw/kernel';
import { treasuryPlugin } from '@gw/plugin-treasury';
import { SANDBOX_PLUGINS, startSandboxKernel } from '@gw/plugin-sandbox/testing';
import { watchersPlugin } from '@gw/plugin-watchers';
import { checkoutPlugin } from '@gw/plugin-checkout';
import { oauthPlugin } from '@gw/plugin-oauth';
import { dashboardPlugin } from '@gw/plugin-dashboard';
import { MailSink, signedInUser } from './kernel.js';

// The treasury's page (contributed by the treasury plugin) over HTTP: balances and plans for every
// user of the operator, the plan form and actions for administrators only, and the treasury's
// refusals as the dashboard's error pages. No chain network is watched here: the real-node
// flows are plugins/treasury/test/*.

let gw: TestKernel;
let sink: MailSink;
let operator: string;

test.before(async () => {
  sink = await MailSink.start();
  gw = await startSandboxKernel(
    { 'plugins.oauth.smtp.url': sink.url, 'plugins.oauth.emailCode.sendsPerHourPerIp': 1000, 'plugins.dashboard.signInsPerHourPerIp': 1000 },
    [...SANDBOX_PLUGINS, watchersPlugin, treasuryPlugin, checkoutPlugin, oauthPlugin, dashboardPlugin],
  );
  operator = (await gw.kernel.cradle.tenancyOperators.create('treasury-ops', CLI_ACTOR)).id;
});
test.after.always(async () => {
  await gw?.close();
  await sink?.close();
});

test('the treasury page shows balances and plans to every user, the plan form to administrators only', async (t) => {
  const admin = await signedInUser(gw, sink, 'admin', operator);
  const page = await admin.client.get('/dashboard/treasury');
  t.is(page.status, 200);
  t.regex(page.text, /href="\/dashboard\/treasury"/, 'in the navigation');
  t.true(page.text.includes('Nothing received yet.'));
  t.true(page.text.includes('No plans yet.'));
  t.true(page.text.includes('action="/dashboard/treasury/plans"'));

  const member = await signedInUser(gw, sink, 'member', operator);
  const read = await member.client.get('/dashboard/treasury');
  t.is(read.status, 200);
  t.false(read.text.includes('action="/dashboard/treasury/plans"'));
  const refused = await member.client.post('/dashboard/treasury/plans', { _csrf: member.csrf, chain: 'btc', network: 'regtest', to: 'own' });
  t.is(refused.status, 403);
});

test('the treasury’s refusals come back as error pages: a network without a treasury, a plan that is not the operator’s', async (t) => {
  const admin = await signedInUser(gw, sink, 'admin', operator);
  const planned = await admin.client.post('/dashboard/treasury/plans', { _csrf: admin.csrf, chain: 'btc', network: 'regtest', to: 'own' });
  t.is(planned.status, 422, planned.text.slice(0, 300));
  t.true(planned.text.includes('not watched'));
  const missing = await admin.client.get(`/dashboard/treasury/plans/${newId()}`);
  t.is(missing.status, 404);
});
