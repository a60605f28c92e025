import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { CLI_ACTOR, newId } from '@gw/kernel';
import { treasuryPlugin } from '@gw/plugin-treasury';
import { MailSink, signedInUser, startDashboardKernel } from './kernel.js';

// The treasury's page (contributed by the treasury plugin) over HTTP: balances and plans for every
// user of the operator, the plan form and actions for administrators only, and the treasury's
// refusals as the dashboard's error pages. No chain network is watched here: the real-node
// flows are plugins/treasury/test/*.

let gw: TestKernel;
let sink: MailSink;
let operator: string;

test.before(async () => {
  sink = await MailSink.start();
  gw = await startDashboardKernel(sink, {}, [treasuryPlugin]);
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

test('outputs, the accounting export and accelerating a payment: pages for every user, the CPFP form for administrators only; bad input is a 400 page', async (t) => {
  const admin = await signedInUser(gw, sink, 'admin', operator);
  const main = await admin.client.get('/dashboard/treasury');
  t.true(main.text.includes('action="/dashboard/treasury/accelerate"'));
  const outputs = await admin.client.get('/dashboard/treasury/outputs?chain=btc&network=regtest');
  t.is(outputs.status, 200);
  t.true(outputs.text.includes('No unspent output on this network.'));
  t.is((await admin.client.get('/dashboard/treasury/outputs?chain=btc')).status, 400, 'the network is required');

  const csv = await admin.client.get('/dashboard/treasury/export?from=2026-01-01&to=2026-12-31');
  t.is(csv.status, 200);
  t.regex(csv.headers.get('content-type') ?? '', /^text\/csv/);
  t.regex(csv.text, /^plan_id,/, 'the header line, no plan confirmed yet');
  t.is((await admin.client.get('/dashboard/treasury/export?from=2026-12-31&to=2026-01-01')).status, 400);
  // A plan form with a value that is no whole number is refused, not planned over every output at the estimated rate.
  for (const bad of [{ min_units: '1.5' }, { fee_rate: 'fast' }]) {
    const refused = await admin.client.post('/dashboard/treasury/plans', { _csrf: admin.csrf, chain: 'btc', network: 'regtest', to: 'own', ...bad });
    t.is(refused.status, 400, JSON.stringify(bad));
  }
  t.is((await admin.client.get('/dashboard/treasury/export?from=yesterday&to=2026-01-01')).status, 400);

  const badOutput = await admin.client.post('/dashboard/treasury/accelerate', {
    _csrf: admin.csrf,
    chain: 'btc',
    network: 'regtest',
    output: 'not-an-outpoint',
  });
  t.is(badOutput.status, 400);
  const unwatched = await admin.client.post('/dashboard/treasury/accelerate', {
    _csrf: admin.csrf,
    chain: 'btc',
    network: 'regtest',
    output: `${'ab'.repeat(32)}:0`,
  });
  t.is(unwatched.status, 422);
  t.true(unwatched.text.includes('not watched'));

  const member = await signedInUser(gw, sink, 'member', operator);
  t.false((await member.client.get('/dashboard/treasury')).text.includes('action="/dashboard/treasury/accelerate"'));
  t.is(
    (await member.client.post('/dashboard/treasury/accelerate', { _csrf: member.csrf, chain: 'btc', network: 'regtest', output: `${'ab'.repeat(32)}:0` }))
      .status,
    403,
  );
  t.is((await member.client.get('/dashboard/treasury/outputs?chain=btc&network=regtest')).status, 200);
});

test('the account treasury page (issue 36): holdings form, plans and quote for every user, sweep and activation forms for administrators; refusals are error pages', async (t) => {
  const admin = await signedInUser(gw, sink, 'admin', operator);
  const page = await admin.client.get('/dashboard/treasury/accounts');
  t.is(page.status, 200);
  t.regex(page.text, /href="\/dashboard\/treasury\/accounts"/, 'in the navigation');
  t.true(page.text.includes('No plans yet.'));
  t.true(page.text.includes('action="/dashboard/treasury/accounts/plans"'));
  t.true(page.text.includes('action="/dashboard/treasury/accounts/activations"'));
  t.true(page.text.includes('action="/dashboard/treasury/accounts/sweepers"'));
  t.true(page.text.includes('No sweeper deployed through the treasury yet.'));

  const member = await signedInUser(gw, sink, 'member', operator);
  const read = await member.client.get('/dashboard/treasury/accounts');
  t.is(read.status, 200);
  t.false(read.text.includes('action="/dashboard/treasury/accounts/plans"'));
  t.false(read.text.includes('action="/dashboard/treasury/accounts/sweepers"'));
  t.is(
    (
      await member.client.post('/dashboard/treasury/accounts/sweepers', {
        _csrf: member.csrf,
        chain: 'eth',
        network: 'sepolia',
        to: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
      })
    ).status,
    403,
  );
  const refused = await member.client.post('/dashboard/treasury/accounts/plans', {
    _csrf: member.csrf,
    chain: 'eth',
    network: 'sepolia',
    coin: 'eth',
    to: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
  });
  t.is(refused.status, 403);

  // Not watched here: holdings and quotes say so.
  const holdings = await admin.client.get('/dashboard/treasury/accounts?chain=eth&network=sepolia');
  t.is(holdings.status, 422, holdings.text.slice(0, 300));
  t.true(holdings.text.includes('not watched'));
  const quote = await admin.client.get(
    '/dashboard/treasury/accounts/quote?chain=eth&network=sepolia&coin=eth&to=0x9858EfFD232B4033E47d90003D41EC34EcaEda94&method=teleport',
  );
  t.is(quote.status, 400);
  const btc = await admin.client.post('/dashboard/treasury/accounts/activations', { _csrf: admin.csrf, chain: 'btc', network: 'regtest' });
  t.is(btc.status, 422);
  // A sweeper on a network nobody watches: an error page, no plan.
  const sweeper = await admin.client.post('/dashboard/treasury/accounts/sweepers', {
    _csrf: admin.csrf,
    chain: 'eth',
    network: 'sepolia',
    to: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
  });
  t.is(sweeper.status, 422);
  t.true(sweeper.text.includes('not watched'));
  t.is((await admin.client.get(`/dashboard/treasury/accounts/plans/${newId()}`)).status, 404);
});
