/**
 * One client for sandbox and live (issue 42 item 4), @gw/client built (dist/esm) against a real
 * gateway with every plugin of this build: the same integration code runs once with a sandbox
 * project's `sk_sandbox_` secret and once with a testnet project's secret, and each run's objects
 * are found on its own mount (the sandbox's routes, or the project's) and carry its project's kind.
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { waitFor } from '@gw/kernel/testing';
import { projectWithPools } from '@gw/testing';
import { OPERATIONS } from '../src/generated/operations.ts';
import { builtClientFixture } from './built-client-fixture.js';

const f = builtClientFixture(test);

type Client = ReturnType<typeof f.client>;
let liveProject: Promise<{ projectId: string; secret: string }> | undefined;

/** A testnet project with a verified eth wallet, made once the fixture's gateway runs. */
async function live() {
  liveProject ??= f.gw.kernel.cradle.tenancyOperators
    .create(`one-client-${Date.now()}`, CLI_ACTOR)
    .then((operator) => projectWithPools(f.gw, operator.id, ['eth'], 'testnet'));
  return liveProject;
}

async function liveClient(): Promise<Client> {
  const { projectId, secret } = await live();
  return new f.sdk.GatewayClient({ baseUrl: f.gw.url, projectId, apiSecret: secret });
}

/** A partner's integration: nothing in it names the sandbox. */
async function integration(gateway: Client, tag: string) {
  const project = await gateway.project();
  const invoice = await gateway.invoices.create({ external_id: `one-${tag}-${Date.now()}`, coin: 'eth', amount_crypto: '0.05' });
  const replay = await gateway.invoices.create({ external_id: invoice.external_id, coin: 'eth', amount_crypto: '0.05' });
  const retrieved = await gateway.invoices.retrieve(invoice.id);
  const listed = await gateway.invoices.list({ external_id: invoice.external_id });
  const iterated: string[] = [];
  for await (const item of gateway.invoices.iterate({ external_id: invoice.external_id })) iterated.push(item.id);
  const transactions = await gateway.invoices.transactions(invoice.id);
  const session = await gateway.checkoutSessions.create(
    { price_currency: 'eth', price_amount: '0.02', external_id: `one-${tag}` },
    { idempotencyKey: `s-${invoice.id}` },
  );
  const expired = await gateway.checkoutSessions.expire(session.id);
  const link = await gateway.paymentLinks.create({ price_currency: 'USD', price_amount: '5.00', description: `one ${tag}` });
  const [payout] = await gateway.payouts.create([{ address: invoice.address, coin: 'eth', amount: '0.001', reference: `one-${invoice.id}` }], {
    idempotencyKey: `p-${invoice.id}`,
  });
  const cancelledPayout = await gateway.payouts.cancel(payout!.id);
  const refunds = await gateway.refunds.listForInvoice(invoice.id);
  const wallets = await gateway.wallets();
  const cancelled = await gateway.invoices.cancel(invoice.id);
  return {
    project,
    invoice,
    replay,
    retrieved,
    listed,
    iterated,
    transactions,
    session,
    expired,
    link,
    payout: payout!,
    cancelledPayout,
    payouts: await gateway.payouts.list(),
    sessions: await gateway.checkoutSessions.list({ external_id: `one-${tag}` }),
    links: await gateway.paymentLinks.list(),
    refunds,
    wallets,
    cancelled,
    events: await gateway.webhooks.events.list(),
    // The stream serves an event once every transaction older than it has ended (its horizon,
    // ADR 0013): a delivery batch's transaction, open while its POSTs are on the wire, can hold
    // the expiry back for a moment after the log already lists it.
    streamedExpiry: await waitFor(
      async () => (await gateway.webhooks.stream({ start: 'earliest' })).items.find((e) => e.event_type === 'checkout_session.expired'),
      15_000,
      'the session expiry in the event stream',
    ),
  };
}

/** What both runs answer alike: the calls worked and found what they made. */
function assertTheIntegrationWorked(t: import('ava').ExecutionContext, run: Awaited<ReturnType<typeof integration>>) {
  t.is(run.replay.id, run.invoice.id, 'a replay answers the same invoice');
  t.is(run.retrieved.id, run.invoice.id);
  t.deepEqual(
    run.listed.items.map((i) => i.id),
    [run.invoice.id],
  );
  t.deepEqual(run.iterated, [run.invoice.id]);
  t.deepEqual(run.transactions.items, []);
  t.is(run.expired.status, 'expired');
  t.is(run.link.object, 'payment_link');
  t.is(run.payout.status, 'pending_approval');
  t.is(run.cancelledPayout.status, 'cancelled');
  t.deepEqual(
    run.payouts.items.map((p) => p.id),
    [run.payout.id],
  );
  t.deepEqual(
    run.sessions.items.map((s) => s.id),
    [run.session.id],
  );
  t.true(run.links.items.some((l) => l.id === run.link.id));
  t.deepEqual(run.refunds.items, []);
  t.is(run.cancelled.status, 'cancelled');
  t.true(run.wallets.some((w) => w.chain === 'eth'));
}

test.serial('the same integration code runs with a sandbox secret on the sandbox routes and with a live secret on the project routes', async (t) => {
  const sandbox = f.client();
  const production = await liveClient();
  t.true(sandbox.isSandbox);
  t.false(production.isSandbox);

  const inSandbox = await integration(sandbox, 'sandbox');
  const inLive = await integration(production, 'live');
  assertTheIntegrationWorked(t, inSandbox);
  assertTheIntegrationWorked(t, inLive);

  // Each run's project and the kind its objects carry.
  t.is(inSandbox.project.kind, 'sandbox');
  t.is(inSandbox.project.id, f.account.projectId);
  t.is(inLive.project.kind, 'testnet');
  t.is(inLive.project.id, (await live()).projectId);
  t.is(inSandbox.session.mode, 'sandbox');
  t.is(inLive.session.mode, 'testnet');
  t.is(inSandbox.invoice.project_id, f.account.projectId);
  t.is(inLive.invoice.project_id, (await live()).projectId);
  // The sandbox's wallets (seven testnet xpubs, no ownership challenge) against the project's verified one.
  t.is(inSandbox.wallets.length, 7);
  t.is(inSandbox.wallets[0]!.verified, undefined);
  t.deepEqual(
    inLive.wallets.map((w) => [w.chain, w.verified]),
    [['eth', true]],
  );
  // The session expiry's event, in each project's delivery log, with its mode.
  const expiredEvent = (run: typeof inSandbox) => run.events.items.find((e) => e.event_type === 'checkout_session.expired');
  t.is(expiredEvent(inSandbox)?.mode, 'sandbox');
  t.is(expiredEvent(inLive)?.mode, 'testnet');
  // The stream's exact bodies, with the same mode.
  t.is(JSON.parse(inSandbox.streamedExpiry.body).mode, 'sandbox');
  t.is(JSON.parse(inLive.streamedExpiry.body).mode, 'testnet');

  // The sandbox run's objects are on the sandbox's routes (the explicit operations), the live run's on the project's.
  t.is((await sandbox.request('getSandboxInvoicesById', { params: { id: inSandbox.invoice.id } })).status, 'cancelled');
  t.is((await sandbox.request('getSandboxPayoutsById', { params: { id: inSandbox.payout.id } })).id, inSandbox.payout.id);
  t.is((await sandbox.request('getSandboxCheckoutSessionsById', { params: { id: inSandbox.session.id } })).id, inSandbox.session.id);
  t.is((await sandbox.request('getSandboxPaymentLinksById', { params: { id: inSandbox.link.id } })).id, inSandbox.link.id);
  t.is((await production.request('getInvoicesById', { params: { id: inLive.invoice.id } })).status, 'cancelled');
  t.is((await production.request('getPayoutsById', { params: { id: inLive.payout.id } })).id, inLive.payout.id);
  // And not on the other mount: each secret is refused there (spec 5.1).
  const sandboxOnLive = await t.throwsAsync(sandbox.request('getInvoicesById', { params: { id: inSandbox.invoice.id } }), { instanceOf: f.sdk.GatewayError });
  t.is(sandboxOnLive.errorCode, 'production_project_required');
  t.is(sandboxOnLive.status, 403);
  const liveOnSandbox = await t.throwsAsync(production.request('getSandboxInvoicesById', { params: { id: inLive.invoice.id } }), {
    instanceOf: f.sdk.GatewayError,
  });
  t.is(liveOnSandbox.errorCode, 'production_key_against_sandbox_project');
  t.is(liveOnSandbox.status, 400);
});

test.serial('what the sandbox does not mirror answers as the spec says; the deprecated sandbox aliases still work', async (t) => {
  const sandbox = f.client();
  // Orphan payments are a production and testnet resource: a sandbox secret gets 403 production_project_required.
  const orphans = await t.throwsAsync(sandbox.orphanPayments.list(), { instanceOf: f.sdk.GatewayError });
  t.is(orphans.errorCode, 'production_project_required');
  t.is(orphans.status, 403);
  t.deepEqual((await (await liveClient()).orphanPayments.list()).items, []);
  // What only the sandbox has stays under `sandbox`; a live secret is refused there.
  const invoice = await sandbox.invoices.create({ external_id: `alias-${Date.now()}`, coin: 'eth', amount_crypto: '0.01' });
  t.is((await sandbox.sandbox.simulate.detect(invoice.id)).status, 'detected');
  t.is((await sandbox.sandbox.invoices.retrieve(invoice.id)).status, 'detected', 'the deprecated alias reads the same invoice');
  t.is((await sandbox.invoices.retrieve(invoice.id)).status, 'detected');
  t.is((await sandbox.webhooks.events.list({ invoice_id: invoice.id })).items[0]?.event_type, 'invoice.detected');
  const refused = await t.throwsAsync((await liveClient()).sandbox.clock.advance({ chain: 'eth', blocks: 1 }), { instanceOf: f.sdk.GatewayError });
  t.is(refused.errorCode, 'sandbox_project_required');
  t.is(refused.status, 403);
});

test('every operation the sandbox mirrors (same method, same path under /api/v1/sandbox) is in SANDBOX_TWINS, and only those', (t) => {
  const byRoute = new Map(Object.entries(OPERATIONS).map(([id, op]) => [`${op.method} ${op.path}`, id]));
  const derived: Record<string, string> = {};
  for (const [id, op] of Object.entries(OPERATIONS)) {
    if (op.path.startsWith('/api/v1/sandbox')) continue;
    const twin = byRoute.get(`${op.method} ${op.path.replace('/api/v1/', '/api/v1/sandbox/')}`);
    if (twin) derived[id] = twin;
  }
  t.deepEqual(f.sdk.SANDBOX_TWINS, derived);
});

test('a client picks the mount from the secret: every resource call with a sandbox secret goes to /api/v1/sandbox, with a live secret to /api/v1', async (t) => {
  const seen: string[] = [];
  const recording = (async (input: URL | string) => {
    seen.push(new URL(String(input)).pathname);
    return new Response(JSON.stringify({ items: [] }), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  const calls = async (gateway: Client) => {
    seen.length = 0;
    await gateway.invoices.create({ external_id: 'x', coin: 'eth', amount_crypto: '1' });
    await gateway.invoices.retrieve('i');
    await gateway.invoices.list();
    await gateway.invoices.transactions('i');
    await gateway.invoices.cancel('i');
    await gateway.webhooks.events.list();
    await gateway.webhooks.events.retrieve('e');
    await gateway.webhooks.events.resend('e');
    await gateway.webhooks.stream();
    await gateway.refunds.create('i');
    await gateway.refunds.listForInvoice('i');
    await gateway.refunds.list();
    await gateway.refunds.retrieve('r');
    await gateway.refunds.cancel('r');
    await gateway.payouts.create([]);
    await gateway.payouts.list();
    await gateway.payouts.retrieve('p');
    await gateway.payouts.cancel('p');
    await gateway.checkoutSessions.create({ price_currency: 'eth', price_amount: '1' });
    await gateway.checkoutSessions.list();
    await gateway.checkoutSessions.retrieve('s');
    await gateway.checkoutSessions.expire('s');
    await gateway.paymentLinks.create({ price_currency: 'eth', price_amount: '1' });
    await gateway.paymentLinks.list();
    await gateway.paymentLinks.retrieve('l');
    await gateway.paymentLinks.deactivate('l');
    await gateway.wallets();
    await gateway.project();
    await gateway.orphanPayments.list();
    return [...seen];
  };
  const options = { baseUrl: 'https://pay.example', projectId: 'P', fetch: recording };
  const sandboxPaths = await calls(new f.sdk.GatewayClient({ ...options, apiSecret: 'sk_sandbox_00' }));
  const livePaths = await calls(new f.sdk.GatewayClient({ ...options, apiSecret: '0'.repeat(64) }));
  const generic = ['/api/v1/project', '/api/v1/orphan-payments'];
  t.deepEqual(sandboxPaths.slice(-2), generic, 'no twin: the same route');
  t.deepEqual(livePaths.slice(-2), generic);
  t.deepEqual(
    sandboxPaths.slice(0, -2),
    livePaths.slice(0, -2).map((path) => (path === '/api/v1/wallets' ? '/api/v1/sandbox/P/wallets' : path.replace('/api/v1/', '/api/v1/sandbox/'))),
  );
  t.true(livePaths.slice(0, -2).every((path) => !path.startsWith('/api/v1/sandbox')));
  // Every twin is reached by a resource call.
  const reached = new Set(sandboxPaths);
  for (const twin of Object.values(f.sdk.SANDBOX_TWINS)) {
    const pattern = new RegExp(`^${OPERATIONS[twin].path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    t.true(
      [...reached].some((path) => pattern.test(path)),
      `${twin} is reached`,
    );
  }
});
