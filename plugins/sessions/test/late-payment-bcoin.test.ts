/**
 * A late payment to an abandoned coin's address, on a real Bitcoin node (bcoin 1.0.2, regtest, read
 * through the `bitcoin-core` provider kind as btc/regtest): the payer picks BTC, switches to ETH
 * (the BTC invoice is cancelled), then pays the BTC address all the same. The watchers see the
 * payment, which no invoice takes: an orphan receipt. The `sessions.late-payments` pass attributes
 * it to the session, and the session completes with it, marked late.
 */
import test from 'ava';
import { CLI_ACTOR, type ChainId, toBaseUnits } from '@gw/kernel';
import { signedFetch, startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { checkoutPlugin } from '@gw/plugin-checkout';
import { oauthPlugin } from '@gw/plugin-oauth';
import { watchersPlugin } from '@gw/plugin-watchers';
import { scanOnce } from '@gw/plugin-watchers/testing';
import { WEBHOOK_PLUGINS } from '@gw/plugin-webhooks/testing';
import { ALL_CHAINS, Bcoin, bcoinRegtestConfig, eventTypes, projectWithPools, stopAll, type TestProject } from '@gw/testing';
import { PAYER_ACTOR, sessionsPlugin } from '../src/index.js';

let node: Bcoin;
let gw: TestKernel;
let project: TestProject;

test.before(async () => {
  node = await Bcoin.startMature();
  gw = await startTestKernel({
    plugins: [...WEBHOOK_PLUGINS, watchersPlugin, checkoutPlugin, oauthPlugin, sessionsPlugin],
    chains: ALL_CHAINS,
    // No job worker: the passes (scans, late payments, expiry) are the test's.
    role: 'gateway',
    config: {
      ...(await bcoinRegtestConfig(node)),
      // Every scan pass is the test's.
      'plugins.watchers.scanIntervalSeconds': 3600,
      // One BTC address, reusable at once: every BTC pick gets the same address, so the tests can
      // tell whose pick a payment to it follows.
      'plugins.address-pool.targetFree': 1,
      'plugins.address-pool.hardCap': 1,
      'plugins.address-pool.cooldownSeconds': 0,
    },
  });
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('sessions-late', CLI_ACTOR)).id;
  project = await projectWithPools(gw, operatorId, ['btc', 'eth'] as ChainId[], 'testnet');
});
test.after.always(() => stopAll(gw, node));

const scan = () => scanOnce(gw, 'btc', 'regtest');

const api = (method: string, path: string, body?: unknown) =>
  signedFetch(gw.url, `/api/v1${path}`, { ...project, method, ...(body === undefined ? {} : { body }) });
const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;

test.serial(
  'a payment to the address of the coin the payer switched away from becomes an orphan, which the late-payments pass credits to the session',
  async (t) => {
    const created = await api('POST', '/checkout-sessions', { price_currency: 'USD', price_amount: '50', allowed_coins: ['btc', 'eth'] });
    t.is(created.status, 201, JSON.stringify(created.body));
    const token = tokenOf(created.body.url);
    const sessions = gw.kernel.cradle.sessionsCheckout;
    const btc = (await sessions.pick(token, 'btc', PAYER_ACTOR)).session;
    const abandoned = (await api('GET', `/invoices/${btc.invoice_id}`)).body;
    t.regex(abandoned.address, /^bcrt1q/);
    const eth = (await sessions.pick(token, 'eth', PAYER_ACTOR)).session;
    t.is((await api('GET', `/invoices/${btc.invoice_id}`)).body.status, 'cancelled');

    // The payer's wallet still pays the BTC address: no invoice takes it.
    const units = toBaseUnits(abandoned.amount_crypto, 8);
    const txid = await node.send(abandoned.address, units);
    await scan();
    const late = gw.kernel.cradle.sessionsLatePayments;
    t.is(await late.run(), 0, 'a payment in the mempool is not credited');
    await node.mine(1);
    await scan();
    const [orphan] = await gw.kernel.cradle.watchersOrphans.unattributedAt(project.projectId, [abandoned.address]);
    t.like(orphan, { tx_hash: txid, to_address: abandoned.address, amount_units: units.toString(), attributed: false });
    t.is((await api('GET', `/invoices/${btc.invoice_id}`)).body.status, 'cancelled', 'the cancelled invoice stays cancelled');

    // Confirmed as the project's policy asks: credited.
    await node.mine(6);
    await scan();
    t.is(await late.run(), 1);
    t.is(await late.run(), 0, 'credited once');
    const session = (await api('GET', `/checkout-sessions/${created.body.id}`)).body;
    t.is(session.status, 'completed');
    const paying = session.invoices.find((i: any) => i.invoice_id === session.invoice_id);
    t.like(paying, { coin: 'btc', status: 'paid', late: true, amount_crypto: abandoned.amount_crypto });
    const invoice = (await api('GET', `/invoices/${session.invoice_id}`)).body;
    t.like(invoice, {
      external_id: `cs_${created.body.id}_late_1`,
      status: 'paid',
      address: abandoned.address,
      metadata: { checkout_session_id: created.body.id },
    });
    t.is(invoice.transactions[0].tx_hash, txid);
    t.deepEqual(await eventTypes(gw, project.projectId, 'checkout_session.'), ['checkout_session.completed']);
    t.deepEqual(
      session.invoices.map((i: any) => [i.coin, i.status, i.late]),
      [
        ['btc', 'cancelled', false],
        ['eth', 'pending', false],
        ['btc', 'paid', true],
      ],
    );

    // The ETH invoice the payer was shown last is no longer needed: the expiry pass cancels it.
    await gw.kernel.cradle.sessionsCloser.expireDue();
    t.is((await api('GET', `/invoices/${eth.invoice_id}`)).body.status, 'cancelled');
  },
);

/** A BTC pick of a new USD session, then the partner ends the session: its invoice is cancelled, its address abandoned. */
async function abandonedBtc(price: string) {
  const created = await api('POST', '/checkout-sessions', { price_currency: 'USD', price_amount: price, allowed_coins: ['btc'] });
  const picked = (await gw.kernel.cradle.sessionsCheckout.pick(tokenOf(created.body.url), 'btc', PAYER_ACTOR)).session;
  const ended = await api('POST', `/checkout-sessions/${created.body.id}/expire`);
  if (ended.body.status !== 'expired') throw new Error(JSON.stringify(ended.body));
  const invoice = (await api('GET', `/invoices/${picked.invoice_id}`)).body;
  return { id: created.body.id as string, address: invoice.address as string, units: toBaseUnits(invoice.amount_crypto, 8) };
}
const sessionOf = async (id: string) => (await api('GET', `/checkout-sessions/${id}`)).body;

test.serial('a late payment short of the price is credited as late without completing; the rest completes the session', async (t) => {
  const late = gw.kernel.cradle.sessionsLatePayments;
  const session = await abandonedBtc('40');
  const first = session.units / 2n;
  await node.send(session.address, first);
  await node.mine(7);
  await scan();
  t.is(await late.run(), 1);
  const short = await sessionOf(session.id);
  t.is(short.status, 'expired', 'half the price completes nothing');
  t.deepEqual(
    short.invoices.map((i: any) => [i.status, i.late]),
    [
      ['cancelled', false],
      ['paid', true],
    ],
  );
  const completed = (await eventTypes(gw, project.projectId, 'checkout_session.completed')).length;

  await node.send(session.address, session.units - first);
  await node.mine(7);
  await scan();
  t.is(await late.run(), 1);
  const done = await sessionOf(session.id);
  t.is(done.status, 'completed', 'the two late pieces add up to the price');
  t.is(done.invoices.filter((i: any) => i.late).length, 2);
  t.is((await eventTypes(gw, project.projectId, 'checkout_session.completed')).length, completed + 1);
});

test.serial("a payment the gateway saw before a later session's pick of the same address is the earlier session's, not the later one's", async (t) => {
  const late = gw.kernel.cradle.sessionsLatePayments;
  const earlier = await abandonedBtc('30');
  await node.send(earlier.address, earlier.units);
  await node.mine(7);
  await scan();
  const later = await abandonedBtc('30');
  t.is(later.address, earlier.address, 'the one pool address was handed out again');
  t.is(await late.run(), 1);
  t.is((await sessionOf(earlier.id)).status, 'completed');
  const untouched = await sessionOf(later.id);
  t.is(untouched.status, 'expired');
  t.deepEqual(
    untouched.invoices.map((i: any) => i.status),
    ['cancelled'],
  );
});
