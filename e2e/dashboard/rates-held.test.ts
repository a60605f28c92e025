import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { CLI_ACTOR } from '@gw/kernel';
import { stopAll } from '@gw/testing';
import { MailSink, signedInUser, startDashboardKernel } from './kernel.js';

// The overview's rates section lists the rates the jump check held back; administrators accept
// one with its release button (`gateway rates release`), members see it without the button and
// cannot post the release.

let gw: TestKernel, sink: MailSink, operator: string, projectId: string;

test.before(async () => {
  sink = await MailSink.start();
  gw = await startDashboardKernel(sink);
  operator = (await gw.kernel.cradle.tenancyOperators.create('rates-held', CLI_ACTOR)).id;
  projectId = (await gw.kernel.cradle.tenancyProjects.create({ name: 'rates-held', kind: 'testnet', operator }, CLI_ACTOR)).project.id;
});
test.after.always(() => stopAll(gw, sink));

test('a held rate on the overview: members see it, administrators release it', async (t) => {
  const { db } = gw.kernel.cradle;
  await db('rates_held').insert({
    asset: 'EUR',
    source: 'coingecko',
    rate: '1.2',
    fetched_at: new Date(Date.now() - 30_000),
    accepted_rate: '1.08',
    accepted_source: 'kraken',
  });
  const overview = `/dashboard/projects/${projectId}/overview`;
  const release = `${overview}/rates-release`;

  const member = await signedInUser(gw, sink, 'member', operator);
  const seen = await member.client.get(overview);
  t.is(seen.status, 200);
  t.true(seen.text.includes('Held back'));
  t.regex(seen.text, /<td>EUR\/USD<\/td><td>1\.2<\/td><td>coingecko<\/td>/);
  t.true(seen.text.includes('1.08 (kraken)'));
  t.true(seen.text.includes('+11.11 %'));
  t.false(seen.text.includes(release), 'no release button for members');
  const refused = await member.client.post(release, { _csrf: member.csrf, asset: 'EUR' });
  t.is(refused.status, 403);
  t.is((await db('rates_held').where({ asset: 'EUR' })).length, 1, 'nothing released');

  const admin = await signedInUser(gw, sink, 'admin', operator);
  const page = await admin.client.get(overview);
  t.regex(page.text, new RegExp(`<form class="inline" method="post" action="${release}" data-confirm="Accept 1.2 as the EUR/USD rate\\?">`));
  t.true(page.text.includes('<input type="hidden" name="asset" value="EUR">'));
  const done = await admin.client.post(release, { _csrf: admin.csrf, asset: 'EUR' });
  t.is(done.status, 303);
  t.is(done.location, overview);
  t.deepEqual(await db('rates_held').where({ asset: 'EUR' }), []);
  t.like(await db('rates_quotes').where({ asset: 'EUR', source: 'coingecko' }).select(db.raw('rate::text as rate')).first(), { rate: '1.2' });
  t.like(await db('kernel_audit_log').where({ action: 'rate.release', target: 'rate:EUR' }).first(), { channel: 'dashboard', actor: `user:${admin.user.id}` });
  const after = await admin.client.get(overview);
  t.true(after.text.includes('The held EUR/USD rate 1.2 is accepted.'));
  t.false(after.text.includes('Held back'));

  const nothing = await admin.client.post(release, { _csrf: admin.csrf, asset: 'EUR' });
  t.is(nothing.status, 404);
  t.true(nothing.text.includes('No EUR rate is held back.'));
});
