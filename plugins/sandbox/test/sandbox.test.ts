import test from 'ava';
import { CLI_ACTOR, type CoinId, isUlid } from '@gw/kernel';
import { roomInRateWindow, signedFetch, waitFor, type TestKernel } from '@gw/kernel/testing';
import { verifyWebhook } from '@gw/webhook-verify';
import { ALL_CHAINS, cliRunner, FIXED_RATES, pathnameSignedFetch } from '@gw/testing';
import { synthesizedTxHash } from '../src/index.js';
import { Receiver, SANDBOX_PLUGINS, createSandboxInvoice, sandboxClient, startSandboxKernel, type SandboxClient } from './helpers.js';

let gw: TestKernel;
let receiver: Receiver;
test.before(async () => {
  gw = await startSandboxKernel();
  receiver = await Receiver.start();
});
test.after.always(async () => {
  await receiver?.close();
  await gw?.close();
});

let externalSeq = 0;
async function invoice(c: SandboxClient, coin: CoinId = 'eth', body: Record<string, unknown> = {}): Promise<any> {
  return createSandboxInvoice(c, { external_id: `order-${++externalSeq}`, coin, amount_crypto: '0.5', ...body });
}
const simulate = (c: SandboxClient, id: string, what: string, body?: unknown) => c.call('POST', `/invoices/${id}/simulate-${what}`, body);
const get = async (c: SandboxClient, id: string) => (await c.call('GET', `/invoices/${id}`)).body;
const eventsOf = async (c: SandboxClient, invoiceId: string) => (await c.call('GET', `/webhooks/events?invoice_id=${invoiceId}&limit=200`)).body.items as any[];

test('provisioning creates the project, seven generated testnet keys bound and verified, an sk_sandbox_ key and a sandbox:simulate PAT', async (t) => {
  const c = await sandboxClient(gw);
  const { sandbox } = c;
  t.is(sandbox.project.kind, 'sandbox');
  t.regex(sandbox.api_key.api_secret, /^sk_sandbox_[0-9a-f]{48}$/);
  t.deepEqual(sandbox.pat.scopes, ['sandbox:simulate']);
  t.deepEqual((await gw.kernel.cradle.tenancyPats.verify(sandbox.pat.token))?.scopes, ['sandbox:simulate']);
  t.deepEqual(
    sandbox.wallets.map((w) => w.chain),
    ['btc', 'eth', 'tron', 'ada', 'polygon', 'bsc', 'ton'],
  );
  t.regex(sandbox.wallets[0]!.xpub, /^tpub/);
  const listed = await gw.kernel.cradle.walletsWallets.list(c.projectId);
  t.true(listed.every((w) => w.state === 'verified' && w.network === 'testnet'));
  const other = await sandboxClient(gw);
  t.notDeepEqual(
    other.sandbox.wallets.map((w) => w.xpub),
    sandbox.wallets.map((w) => w.xpub),
    'every project gets fresh keys',
  );
  const wallets = await c.call('GET', `/${c.projectId}/wallets`);
  t.is(wallets.status, 200);
  t.deepEqual(wallets.body, sandbox.wallets);
  // Every chain takes an invoice at once (TRON addresses of generated keys need no activation).
  for (const coin of ['btc', 'eth', 'trx', 'ada', 'pol', 'bnb', 'ton'] as const) {
    const inv = await invoice(c, coin, { amount_crypto: '1' });
    t.is(inv.status, 'pending', coin);
  }
});

test('an invoice travels pending → detected → paid → reverted → paid with signed sandbox webhooks; detect and paid are idempotent', async (t) => {
  const c = await sandboxClient(gw, receiver);
  const inv = await invoice(c);
  const detected = await simulate(c, inv.id, 'detect', { seed: 'alpha' });
  t.is(detected.status, 200, JSON.stringify(detected.body));
  t.is(detected.body.status, 'detected');
  t.true(isUlid(detected.body.event_id));
  const again = await simulate(c, inv.id, 'detect', { seed: 'alpha' });
  t.deepEqual(again.body, detected.body);
  const afterDetect = await get(c, inv.id);
  t.is(afterDetect.transactions.length, 1);
  t.like(afterDetect.transactions[0], {
    tx_hash: synthesizedTxHash(gw.kernel.cradle.chains.get('eth').definition, 'alpha'),
    confirmations: 0,
    amount_units: inv.amount_crypto_units,
    status: 'pending',
  });

  const paid = await simulate(c, inv.id, 'paid', {});
  t.is(paid.body.status, 'paid');
  t.deepEqual((await simulate(c, inv.id, 'paid')).body, paid.body, 'simulate-paid again answers the same event');
  const afterPaid = await get(c, inv.id);
  t.is(afterPaid.confirmations, afterPaid.confirmation_threshold);
  t.like(afterPaid.transactions[0], { status: 'confirmed', confirmations: afterPaid.confirmation_threshold });

  const reorg = await simulate(c, inv.id, 'reorg');
  t.is(reorg.body.status, 'reverted');
  t.is((await get(c, inv.id)).transactions[0].status, 'reverted');
  const reconfirm = await simulate(c, inv.id, 'reconfirm');
  t.is(reconfirm.body.status, 'paid');
  t.not(reconfirm.body.event_id, paid.body.event_id, 'reconfirm emits a fresh paid event');
  const afterReconfirm = await get(c, inv.id);
  t.deepEqual(
    afterReconfirm.transactions.map((tx: { status: string; amount_units: string }) => [tx.status, tx.amount_units]),
    [
      ['reverted', inv.amount_crypto_units],
      ['confirmed', inv.amount_crypto_units],
    ],
    'the payment is mined again for exactly the invoiced amount',
  );

  const ids = [detected.body.event_id, paid.body.event_id, reorg.body.event_id, reconfirm.body.event_id];
  await waitFor(async () => ids.every((id) => receiver.forEvent(id).length === 1), 20_000);
  const secrets = [c.secret];
  for (const id of ids) {
    const [request] = receiver.forEvent(id);
    const verified = verifyWebhook({ rawBody: request!.body, header: String(request!.headers['x-service-signature']), secrets });
    t.true(verified.ok, id);
    t.like(JSON.parse(request!.body), { event_id: id, mode: 'sandbox', data: { invoice_id: inv.id } });
  }
  t.deepEqual(
    ids.map((id) => JSON.parse(receiver.forEvent(id)[0]!.body).event_type),
    ['invoice.detected', 'invoice.paid', 'invoice.reverted', 'invoice.paid'],
  );

  // simulate-duplicate-delivery: the latest terminal event (the reconfirm's paid) arrives again under the same id.
  const duplicate = await simulate(c, inv.id, 'duplicate-delivery');
  t.deepEqual(duplicate.body, { event_id: reconfirm.body.event_id });
  await waitFor(async () => receiver.forEvent(reconfirm.body.event_id).length === 2, 20_000);
  const [first, second] = receiver.forEvent(reconfirm.body.event_id);
  t.is(first!.body, second!.body);
  t.is((await get(c, inv.id)).status, 'paid', 'no status change');
});

test('a duplicate delivery asked for while the event is still on its way arrives after it: the receiver sees it twice', async (t) => {
  const slow = await Receiver.start();
  t.teardown(() => slow.close());
  // The receiver holds every answer (within the 2 s delivery timeout of FAST_RETRIES), so the paid
  // event is still retrying when the duplicate is asked for.
  slow.reply = () => ({ status: 200, body: '{"ok":true}', delayMs: 1_500 });
  const c = await sandboxClient(gw, slow);
  const inv = await invoice(c);
  await simulate(c, inv.id, 'detect');
  const paid = await simulate(c, inv.id, 'paid');
  await waitFor(async () => slow.forEvent(paid.body.event_id).length === 1, 20_000);
  t.is((await eventsOf(c, inv.id)).find((e) => e.id === paid.body.event_id).status, 'retrying', 'the first delivery is unanswered');
  const duplicate = await simulate(c, inv.id, 'duplicate-delivery');
  t.deepEqual(duplicate.body, { event_id: paid.body.event_id });
  await waitFor(async () => slow.forEvent(paid.body.event_id).length === 2, 30_000);
  const [first, second] = slow.forEvent(paid.body.event_id);
  t.is(first!.body, second!.body);
  t.true(second!.at - first!.at >= 1_500, 'the duplicate went out after the first delivery was answered');
  await waitFor(async () => (await eventsOf(c, inv.id)).find((e) => e.id === paid.body.event_id).status === 'delivered', 20_000);
  t.is((await eventsOf(c, inv.id)).find((e) => e.id === paid.body.event_id).attempts, 2);
});

test('a sandbox invoice links its transactions to the sandbox mirror of the paginated list (issue 33)', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoice(c);
  await simulate(c, inv.id, 'detect');
  await simulate(c, inv.id, 'paid');
  const paid = await get(c, inv.id);
  t.is(paid.transactions_total, 1);
  t.is(new URL(paid.transactions_url).pathname, `/api/v1/sandbox/invoices/${inv.id}/transactions`);
  const list = await c.call('GET', `/invoices/${inv.id}/transactions?limit=1`);
  t.is(list.status, 200);
  t.deepEqual(list.body, { items: paid.transactions });
  const other = await sandboxClient(gw);
  t.is((await other.call('GET', `/invoices/${inv.id}/transactions`)).status, 404);
});

test('the same seed gives the same synthesized hash on another invoice; no seed derives it from the invoice', async (t) => {
  const c = await sandboxClient(gw);
  const [a, b, d] = [await invoice(c), await invoice(c), await invoice(c)];
  await simulate(c, a.id, 'detect', { seed: 'same' });
  await simulate(c, b.id, 'detect', { seed: 'same' });
  await simulate(c, d.id, 'detect');
  t.is((await get(c, a.id)).transactions[0].tx_hash, (await get(c, b.id)).transactions[0].tx_hash);
  t.is((await get(c, d.id)).transactions[0].tx_hash, synthesizedTxHash(gw.kernel.cradle.chains.get('eth').definition, d.id));
});

test('overpaid, partial, expire and late payment move as spec 3.1 says, with their amounts', async (t) => {
  const c = await sandboxClient(gw);
  const over = await invoice(c, 'eth', { amount_crypto: '1' });
  await simulate(c, over.id, 'detect');
  const o = await simulate(c, over.id, 'overpaid', { multiplier: 1.5 });
  t.is(o.body.status, 'overpaid');
  const paidUnits = (inv: { transactions: { status: string; amount_units: string }[] }) =>
    inv.transactions
      .filter((tx) => tx.status === 'pending' || tx.status === 'confirmed')
      .reduce((sum, tx) => sum + BigInt(tx.amount_units), 0n)
      .toString();
  t.is(paidUnits(await get(c, over.id)), '1500000000000000000', 'the detected payment and the extra one');

  const extra = await invoice(c, 'eth', { amount_crypto: '1' });
  await simulate(c, extra.id, 'detect');
  t.is((await simulate(c, extra.id, 'overpaid', { extra_units: '7' })).body.status, 'overpaid', 'snake_case alias');
  t.is(paidUnits(await get(c, extra.id)), '1000000000000000007');

  const part = await invoice(c, 'eth', { amount_crypto: '1' });
  await simulate(c, part.id, 'detect');
  const p = await simulate(c, part.id, 'partial', { fraction: 0.25 });
  t.is(p.body.status, 'detected', 'the invoice stays detected');
  const partTransactions = (await get(c, part.id)).transactions;
  t.deepEqual(
    partTransactions.map((tx: { status: string; amount_units: string }) => [tx.status, tx.amount_units]),
    [
      ['dropped', '1000000000000000000'],
      ['pending', '250000000000000000'],
    ],
    'the detected payment was replaced by the smaller one',
  );
  t.is((await c.call('GET', `/webhooks/events/${p.body.event_id}`)).body.event_type, 'invoice.partial');

  const late = await invoice(c);
  const e = await simulate(c, late.id, 'expire');
  t.is(e.body.status, 'expired');
  const l = await simulate(c, late.id, 'late-payment');
  t.is(l.body.status, 'expired_paid_late');
  t.is((await get(c, late.id)).transactions.length, 1);
  t.is((await c.call('POST', `/invoices/${late.id}/cancel`)).body.error_code, 'invoice_not_cancellable');
});

test('every refused simulation is 422 sandbox_invoice_transition_invalid and changes nothing', async (t) => {
  const c = await sandboxClient(gw);
  const pending = await invoice(c);
  for (const what of ['paid', 'overpaid', 'partial', 'late-payment', 'reorg', 'reconfirm']) {
    const body = what === 'overpaid' ? { multiplier: 2 } : what === 'partial' ? { fraction: 0.5 } : undefined;
    const res = await simulate(c, pending.id, what, body);
    t.is(res.status, 422, what);
    t.is(res.body.error_code, 'sandbox_invoice_transition_invalid', what);
  }
  const terminal = await simulate(c, pending.id, 'duplicate-delivery');
  t.is(terminal.status, 422);
  t.is(terminal.body.error_code, 'sandbox_invoice_terminal');
  const after = await get(c, pending.id);
  t.is(after.status, 'pending');
  t.deepEqual(after.transactions, []);
  t.deepEqual(await eventsOf(c, pending.id), []);

  const paid = await invoice(c);
  await simulate(c, paid.id, 'detect');
  await simulate(c, paid.id, 'paid');
  for (const what of ['detect', 'expire', 'late-payment', 'reconfirm']) {
    const res = await simulate(c, paid.id, what);
    t.is(res.body.error_code, 'sandbox_invoice_transition_invalid', what);
  }
  t.is((await eventsOf(c, paid.id)).length, 2);
  const partialTooLarge = await invoice(c);
  await simulate(c, partialTooLarge.id, 'detect');
  const big = await simulate(c, partialTooLarge.id, 'partial', { amountUnits: partialTooLarge.amount_crypto_units });
  t.is(big.body.error_code, 'sandbox_invoice_transition_invalid');
});

test('simulation bodies: exactly one of multiplier/extraUnits and fraction/amountUnits, ranges and aliases are validated', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoice(c);
  await simulate(c, inv.id, 'detect');
  const cases: [string, unknown][] = [
    ['overpaid', {}],
    ['overpaid', { multiplier: 2, extraUnits: '1' }],
    ['overpaid', { multiplier: 1 }],
    ['overpaid', { extraUnits: '0' }],
    ['overpaid', { extraUnits: '1.5' }],
    ['overpaid', { extraUnits: '1', extra_units: '1' }],
    ['partial', { fraction: 0 }],
    ['partial', { fraction: 1 }],
    ['partial', { fraction: 0.5, amountUnits: '1' }],
    ['partial', { amountUnits: '-1' }],
    ['partial', {}],
    ['paid', { unexpected: true }],
    ['detect', { seed: '' }],
  ];
  for (const [what, body] of cases) {
    const res = await simulate(c, inv.id, what, body);
    t.is(res.status, 400, `${what} ${JSON.stringify(body)}`);
    t.is(res.body.error_code, 'validation_error');
  }
  t.is((await get(c, inv.id)).status, 'detected');
  t.is((await eventsOf(c, inv.id)).length, 1);
  // Valid numbers whose total exceeds what any chain carries (uint256): 422, nothing written.
  const extra = await invoice(c, 'eth', { amount_crypto: '1' });
  const large = await invoice(c, 'eth', { amount_crypto: '1'.padEnd(56, '0') });
  for (const [inv, body] of [
    [extra, { extraUnits: '9'.repeat(78) }],
    [large, { multiplier: 1_000_000 }],
  ] as const) {
    await simulate(c, inv.id, 'detect');
    const res = await simulate(c, inv.id, 'overpaid', body);
    t.is(res.status, 422, JSON.stringify(res.body));
    t.is(res.body.error_code, 'amount_out_of_range');
    const after = await get(c, inv.id);
    t.is(after.status, 'detected');
    t.is(after.transactions[0].amount_units, inv.amount_crypto_units);
    t.is((await eventsOf(c, inv.id)).length, 1);
  }
});

test('simulate-event applies the event when expectedCurrentStatus holds; snake_case aliases; refusals', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoice(c);
  const base = { amountUnits: inv.amount_crypto_units, confirmations: 0, blockHeight: 100 };
  const wrong = await simulate(c, inv.id, 'event', { ...base, eventType: 'invoice.detected', expectedCurrentStatus: 'detected' });
  t.is(wrong.body.error_code, 'sandbox_invoice_transition_invalid');
  const notAllowed = await simulate(c, inv.id, 'event', { ...base, eventType: 'invoice.reverted', expectedCurrentStatus: 'pending' });
  t.is(notAllowed.body.error_code, 'sandbox_invoice_transition_invalid');
  for (const body of [
    { ...base, eventType: 'invoice.detected' },
    { ...base, eventType: 'invoice.detected', expectedCurrentStatus: 'pending', blockHeight: 0 },
    { ...base, eventType: 'invoice.nope', expectedCurrentStatus: 'pending' },
    { ...base, eventType: 'invoice.detected', event_type: 'invoice.detected', expectedCurrentStatus: 'pending' },
    { amountUnits: '1', confirmations: 0, eventType: 'invoice.detected', expectedCurrentStatus: 'pending' },
  ]) {
    const res = await simulate(c, inv.id, 'event', body);
    t.is(res.status, 400, JSON.stringify(body));
  }
  const ok = await simulate(c, inv.id, 'event', {
    event_type: 'invoice.detected',
    amount_units: '5',
    confirmations: 1,
    block_height: 7,
    expected_current_status: 'pending',
    chain_specific: { eth: { log_index: 3 } },
  });
  t.is(ok.status, 200, JSON.stringify(ok.body));
  t.is(ok.body.status, 'detected');
  const event = (await c.call('GET', `/webhooks/events/${ok.body.event_id}`)).body;
  t.like(event.payload.data, { amount_units: '5', block_height: 7, chain_specific: { eth: { log_index: 3 } } });
  const partial = await simulate(c, inv.id, 'event', { ...base, amountUnits: '5', eventType: 'invoice.partial', expectedCurrentStatus: 'detected' });
  t.is(partial.body.status, 'partial');
  const reorg = await simulate(c, inv.id, 'reorg');
  t.is(reorg.body.status, 'reverted', 'partial can be reorganised');
});

test('clock/advance counts confirmations per chain and finalizes detected invoices at their threshold', async (t) => {
  const c = await sandboxClient(gw);
  const threshold = (await invoice(c)).confirmation_threshold as number;
  t.true(threshold > 1);
  const full = await invoice(c);
  const short = await invoice(c);
  const btc = await invoice(c, 'btc', { amount_crypto: '0.001' });
  for (const inv of [full, short, btc]) await simulate(c, inv.id, 'detect');
  await simulate(c, short.id, 'partial', { fraction: 0.5 });
  const first = await c.call('POST', `/${c.projectId}/clock/advance`, { chain: 'eth', blocks: threshold - 1 });
  t.deepEqual(first.body, { advanced: 0, remaining: 2 });
  t.is((await get(c, full.id)).confirmations, threshold - 1);
  const second = await c.call('POST', `/${c.projectId}/clock/advance`, { chain: 'eth', blocks: 1 });
  t.deepEqual(second.body, { advanced: 2, remaining: 0 });
  t.is((await get(c, full.id)).status, 'paid');
  t.is((await get(c, short.id)).status, 'partial');
  t.is((await get(c, btc.id)).status, 'detected', 'another chain’s clock did not move');
  for (const body of [{ chain: 'eth', blocks: 0 }, { chain: 'eth', blocks: 65 }, { chain: 'doge', blocks: 1 }, { blocks: 1 }]) {
    t.is((await c.call('POST', `/${c.projectId}/clock/advance`, body)).status, 400, JSON.stringify(body));
  }
  // The eleven TON advances must fall into one per-minute window, or the last is not limited.
  await roomInRateWindow(30);
  for (let i = 0; i < 8; i++) t.is((await c.call('POST', `/${c.projectId}/clock/advance`, { chain: 'ton', blocks: 1 })).status, 200);
  for (let i = 0; i < 2; i++) await c.call('POST', `/${c.projectId}/clock/advance`, { chain: 'ton', blocks: 1 });
  const limited = await c.call('POST', `/${c.projectId}/clock/advance`, { chain: 'ton', blocks: 1 });
  t.is(limited.status, 429);
  t.is(limited.body.error_code, 'sandbox_rate_limit_exceeded');
  t.truthy(limited.headers.get('retry-after'));
  t.is((await c.call('POST', `/${c.projectId}/clock/advance`, { chain: 'ada', blocks: 1 })).status, 200, 'the limit is per chain');
});

test('cross-project and cross-mode: each its spec code', async (t) => {
  const a = await sandboxClient(gw);
  const b = await sandboxClient(gw);
  const inv = await invoice(a);
  await simulate(a, inv.id, 'detect');
  const events = (await eventsOf(a, inv.id)).map((e) => e.id);
  t.is(events.length, 1, "project a's invoice.detected, which b must not reach");
  const eventId = events[0]!;
  t.is((await simulate(b, inv.id, 'paid')).body.error_code, 'sandbox_invoice_not_found');
  t.is((await b.call('GET', `/invoices/${inv.id}`)).body.error_code, 'invoice_not_found');
  t.is((await b.call('POST', `/invoices/${inv.id}/cancel`)).body.error_code, 'invoice_not_found');
  t.is((await b.call('POST', `/webhooks/events/${eventId}/resend`)).body.error_code, 'event_not_found');
  const foreignProject = await b.call('POST', `/${a.projectId}/reset`);
  t.is(foreignProject.status, 403);
  t.is(foreignProject.body.error_code, 'permission_denied');
  t.is((await get(a, inv.id)).status, 'detected', 'nothing changed');

  const production = await gw.kernel.cradle.tenancyProjects.create({ name: `prod-${Math.random()}`, kind: 'production' }, CLI_ACTOR);
  const prod = { projectId: production.project.id, secret: production.credentials.api_secret };
  const asProd = (method: string, path: string, body?: unknown) =>
    signedFetch(gw.url, `/api/v1/sandbox${path}`, { ...prod, method, ...(body ? { body } : {}) });
  const mirror = await asProd('POST', '/invoices', { external_id: 'x', coin: 'eth', amount_crypto: '1' });
  t.is(mirror.status, 400);
  t.is(mirror.body.error_code, 'production_key_against_sandbox_project');
  t.is((await asProd('GET', '/invoices')).body.error_code, 'production_key_against_sandbox_project');
  const sim = await asProd('POST', `/invoices/${inv.id}/simulate-paid`);
  t.is(sim.status, 403);
  t.is(sim.body.error_code, 'sandbox_project_required');
  t.is((await asProd('POST', `/${a.projectId}/reset`)).body.error_code, 'production_key_against_sandbox_project');
  t.is((await asProd('GET', `/${prod.projectId}/wallets`)).body.error_code, 'sandbox_project_required');
  t.is((await a.call('DELETE', `/${prod.projectId}`)).body.error_code, 'sandbox_key_against_production_project');
  const onProduction = await signedFetch(gw.url, '/api/v1/invoices', { projectId: a.projectId, secret: a.secret });
  t.is(onProduction.body.error_code, 'production_project_required');
  t.is((await get(a, inv.id)).status, 'detected');
});

test('resend mirror: 202 for a delivered event, 409 event_not_resendable while retrying or dead-lettered', async (t) => {
  const c = await sandboxClient(gw, receiver);
  const ok = await invoice(c, 'eth', { callback_url: `${receiver.url}/resend-ok` });
  const failing = await invoice(c, 'eth', { callback_url: `${receiver.url}/resend-fail` });
  receiver.reply = (request) => (request.path === '/resend-fail' ? { status: 500 } : { status: 200 });
  const okEvent = (await simulate(c, ok.id, 'detect')).body.event_id;
  const failEvent = (await simulate(c, failing.id, 'detect')).body.event_id;
  await waitFor(async () => (await c.call('GET', `/webhooks/events/${okEvent}`)).body.status === 'delivered', 20_000);
  await waitFor(async () => (await c.call('GET', `/webhooks/events/${failEvent}`)).body.attempts >= 1, 20_000);
  const inFlight = await c.call('POST', `/webhooks/events/${failEvent}/resend`);
  t.is(inFlight.status, 409);
  t.is(inFlight.body.error_code, 'event_not_resendable');
  await waitFor(async () => (await c.call('GET', `/webhooks/events/${failEvent}`)).body.status === 'dlq', 30_000);
  t.is((await c.call('POST', `/webhooks/events/${failEvent}/resend`)).body.error_code, 'event_not_resendable');
  const resent = await c.call('POST', `/webhooks/events/${okEvent}/resend`);
  t.is(resent.status, 202);
  t.like(resent.body, { original_event_id: okEvent, invoice_id: ok.id, target_url: `${receiver.url}/resend-ok` });
  await waitFor(async () => receiver.forEvent(resent.body.event_id).length === 1, 20_000);
  receiver.reply = () => ({ status: 200 });
});

test('reset purges invoices, transactions, events and the pool, and keeps the shell, keys, bindings and PAT; DELETE removes everything', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoice(c);
  await simulate(c, inv.id, 'detect');
  const reset = await c.call('POST', `/${c.projectId}/reset`);
  t.deepEqual(reset.body, { status: 'reset' });
  t.deepEqual((await c.call('GET', '/invoices')).body.items, []);
  t.deepEqual((await c.call('GET', '/webhooks/events')).body.items, []);
  t.deepEqual((await c.call('GET', `/${c.projectId}/wallets`)).body, c.sandbox.wallets);
  t.truthy(await gw.kernel.cradle.tenancyPats.verify(c.sandbox.pat.token));
  const again = await invoice(c, 'eth', { external_id: inv.external_id });
  t.not(again.id, inv.id, 'the external id is free again');

  const deleted = await c.call('DELETE', `/${c.projectId}`);
  t.deepEqual(deleted.body, { status: 'deleted' });
  t.is((await c.call('GET', '/invoices')).status, 401);
  t.is(await gw.kernel.cradle.tenancyPats.verify(c.sandbox.pat.token), undefined);
  t.deepEqual(await gw.kernel.cradle.db('wallets_bindings').where({ project_id: c.projectId }), []);
});

test('caps and limits: active invoice cap (a replay still answers), flat write limit, simulate limit', async (t) => {
  const k = await startSandboxKernel({
    'plugins.sandbox.activeInvoiceCap': 2,
    'plugins.sandbox.writeRateLimitPerMinute': 4,
    'plugins.sandbox.simulateRateLimitPerMinute': 2,
  });
  t.teardown(() => k.close());
  const c = await sandboxClient(k);
  // The limits count per fixed minute: the five writes and three simulations share one window.
  await roomInRateWindow(20);
  const first = await c.call('POST', '/invoices', { external_id: 'cap-1', coin: 'eth', amount_crypto: '1' });
  await c.call('POST', '/invoices', { external_id: 'cap-2', coin: 'eth', amount_crypto: '1' });
  const capped = await c.call('POST', '/invoices', { external_id: 'cap-3', coin: 'eth', amount_crypto: '1' });
  t.is(capped.status, 422);
  t.is(capped.body.error_code, 'sandbox_active_invoice_cap_reached');
  const replay = await c.call('POST', '/invoices', { external_id: 'cap-1', coin: 'eth', amount_crypto: '1' });
  t.is(replay.status, 200);
  t.is(replay.body.id, first.body.id);
  const limited = await c.call('POST', '/invoices', { external_id: 'cap-1', coin: 'eth', amount_crypto: '1' });
  t.is(limited.status, 429);
  t.is(limited.body.error_code, 'rate_limit_exceeded');
  t.truthy(limited.headers.get('retry-after'));
  t.is((await k.kernel.cradle.invoicesService.list(c.projectId, { limit: 50 })).items.length, 2, 'nothing half-written');
  await simulate(c, first.body.id, 'detect');
  await simulate(c, first.body.id, 'paid');
  const sim = await simulate(c, first.body.id, 'reorg');
  t.is(sim.status, 429);
  t.is(sim.body.error_code, 'sandbox_rate_limit_exceeded');
  t.is((await get(c, first.body.id)).status, 'paid');
});

test('503 rate_quote_unavailable with Retry-After when amount_usd cannot be converted', async (t) => {
  const k = await startSandboxKernel({
    'plugins.rates.providers': ['coingecko'],
    'plugins.rates.fixed': {},
    'plugins.rates.coingecko.baseUrl': 'http://127.0.0.1:9',
    'plugins.rates.coingecko.timeoutMs': 500,
  });
  t.teardown(() => k.close());
  const c = await sandboxClient(k);
  const res = await c.call('POST', '/invoices', { external_id: 'usd-1', coin: 'eth', amount_usd: 10 });
  t.is(res.status, 503, JSON.stringify(res.body));
  t.is(res.body.error_code, 'rate_quote_unavailable');
  t.truthy(res.headers.get('retry-after'));
  t.is((await c.call('POST', '/invoices', { external_id: 'crypto-1', coin: 'eth', amount_crypto: '1' })).status, 201, 'crypto amounts need no rate');
});

const runCli = cliRunner({
  plugins: SANDBOX_PLUGINS,
  chains: ALL_CHAINS,
  databaseUrl: () => gw.database.url,
  overrides: () => ({ 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': FIXED_RATES, 'plugins.address-pool.targetFree': 3 }),
});

test('CLI sandbox create --json provisions in one action; wallets, reset and delete work on it', async (t) => {
  const created = await runCli('sandbox', 'create', '--name', 'cli-sandbox', '--json');
  t.is(created.code, 0, created.stdout);
  const { sandbox } = created.json;
  t.regex(sandbox.api_key.api_secret, /^sk_sandbox_/);
  t.regex(sandbox.pat.token, /^svc_pat_/);
  t.is(sandbox.wallets.length, 7);
  const res = await signedFetch(gw.url, '/api/v1/sandbox/invoices', {
    projectId: sandbox.project.id,
    secret: sandbox.api_key.api_secret,
    method: 'POST',
    body: { external_id: 'cli-1', coin: 'ton', amount_crypto: '1' },
  });
  t.is(res.status, 201, JSON.stringify(res.body));
  const wallets = await runCli('sandbox', 'wallets', '--project', sandbox.project.id, '--json');
  t.deepEqual(wallets.json.wallets, sandbox.wallets);
  const reset = await runCli('sandbox', 'reset', '--project', sandbox.project.id, '--json');
  t.deepEqual(reset.json, { status: 'reset' });
  const duplicate = await runCli('sandbox', 'create', '--name', 'cli-sandbox', '--json');
  t.not(duplicate.code, 0);
  t.is(duplicate.json.error_code, 'project_exists');
  const deleted = await runCli('sandbox', 'delete', '--project', sandbox.project.id, '--json');
  t.deepEqual(deleted.json, { status: 'deleted' });
});

test('a reset or delete that fails in PostgreSQL is 500 sandbox_reset_failed / sandbox_delete_failed and leaves everything in place', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoice(c);
  await simulate(c, inv.id, 'detect');
  const db = gw.kernel.cradle.db;
  // A real failure inside the cascade: a trigger refusing the rows of the projects listed in a table.
  await db.raw('create table if not exists refuse_purge_projects (project_id text primary key)');
  await db('refuse_purge_projects').insert({ project_id: c.projectId });
  await db.raw(`create or replace function refuse_sandbox_purge() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from refuse_purge_projects where project_id = old.project_id) then raise exception 'refused for the test'; end if;
      return old;
    end $$`);
  await db.raw('create trigger refuse_pool_purge before delete on address_pool_addresses for each row execute function refuse_sandbox_purge()');
  t.teardown(async () => {
    await db.raw('drop trigger if exists refuse_pool_purge on address_pool_addresses');
    await db.raw('drop table if exists refuse_purge_projects');
  });
  const reset = await c.call('POST', `/${c.projectId}/reset`);
  t.is(reset.status, 500);
  t.is(reset.body.error_code, 'sandbox_reset_failed');
  t.is((await get(c, inv.id)).status, 'detected', 'the invoices purged before the failure came back');
  t.is((await eventsOf(c, inv.id)).length, 1);
  const deleted = await c.call('DELETE', `/${c.projectId}`);
  t.is(deleted.status, 500);
  t.is(deleted.body.error_code, 'sandbox_delete_failed');
  t.is((await c.call('GET', `/${c.projectId}/wallets`)).body.length, 7, 'the project and its keys are still there');
  await db.raw('drop trigger refuse_pool_purge on address_pool_addresses');
  t.deepEqual((await c.call('DELETE', `/${c.projectId}`)).body, { status: 'deleted' });
});

test('a sandbox project invoices all fifteen coins; a token without a testnet contract uses its synthetic sandbox contract and pays', async (t) => {
  const c = await sandboxClient(gw);
  const coins = gw.kernel.cradle.chains.list().flatMap((chain) => chain.definition.coins.map((coin) => ({ chain: chain.definition, coin })));
  t.is(coins.length, 15);
  const ids = new Map<string, string>();
  for (const { chain, coin } of coins) {
    const created = await c.call('POST', '/invoices', { external_id: `all-coins-${coin.id}`, coin: coin.id, amount_usd: 12.5 });
    t.is(created.status, 201, `${coin.id}: ${JSON.stringify(created.body)}`);
    ids.set(coin.id, created.body.id);
    if (coin.contracts && !coin.contracts[chain.networks.testnets[0].id]) {
      t.truthy(coin.sandboxContract, `${coin.id} declares a sandbox contract`);
      t.true(created.body.payment_uri.includes(coin.sandboxContract!), `${coin.id}: ${created.body.payment_uri}`);
    }
  }
  const usdt = ids.get('usdt_trc20')!;
  t.is((await simulate(c, usdt, 'detect')).body.status, 'detected');
  const paid = await simulate(c, usdt, 'paid');
  t.is(paid.status, 200, JSON.stringify(paid.body));
  t.is((await get(c, usdt)).status, 'paid');
});

test('a client signing the pathname alone and sending each write twice at once gets identical first answers and one effect; filtered lists verify (issue 33 items 1, 2)', async (t) => {
  const c = await sandboxClient(gw);
  const as = (method: string, path: string, body?: unknown, timestamp?: number) =>
    pathnameSignedFetch(gw.url, `/api/v1/sandbox${path}`, {
      projectId: c.projectId,
      secret: c.secret,
      method,
      ...(body === undefined ? {} : { body }),
      ...(timestamp === undefined ? {} : { timestamp }),
    });
  const ts = Math.floor(Date.now() / 1000);
  const create = { external_id: `pathname-${++externalSeq}`, coin: 'eth', amount_crypto: '0.5' };
  const created = await as('POST', '/invoices', create, ts);
  t.is(created.status, 201, created.text);
  const copies = [
    await as('POST', '/invoices', create, ts),
    ...(await Promise.all([as('POST', '/invoices', create, ts), as('POST', '/invoices', create, ts)])),
  ];
  for (const copy of copies) {
    t.is(copy.status, 201, 'the first answer, not 200 or 401');
    t.is(copy.text, created.text);
  }
  const listed = await as('GET', `/invoices?external_id=${create.external_id}`);
  t.is(listed.status, 200, listed.text);
  t.deepEqual(
    listed.body.items.map((i: { id: string }) => i.id),
    [created.body.id],
    'one invoice',
  );

  t.is((await as('POST', `/invoices/${created.body.id}/simulate-detect`, {})).status, 200);
  const paidTs = Math.floor(Date.now() / 1000);
  const [paid, ...paidCopies] = await Promise.all([
    as('POST', `/invoices/${created.body.id}/simulate-paid`, {}, paidTs),
    as('POST', `/invoices/${created.body.id}/simulate-paid`, {}, paidTs),
  ]);
  paidCopies.push(await as('POST', `/invoices/${created.body.id}/simulate-paid`, {}, paidTs));
  t.is(paid!.status, 200, paid!.text);
  for (const copy of paidCopies) t.is(copy.text, paid!.text);
  const events = await as('GET', `/webhooks/events?invoice_id=${created.body.id}&event_type=invoice.paid`);
  t.is(events.status, 200, events.text);
  t.deepEqual(
    events.body.items.map((e: { id: string; event_id?: string }) => e.event_id ?? e.id),
    [paid!.body.event_id],
    'one invoice.paid event',
  );
  t.is((await as('GET', `/invoices/${created.body.id}`)).body.status, 'paid');
});

test('DELETE of a sandbox project sent again at once gets the first answer, not 401 for the project it removed (issue 33 item 2)', async (t) => {
  const c = await sandboxClient(gw);
  const once = { projectId: c.projectId, secret: c.secret, method: 'DELETE', timestamp: Math.floor(Date.now() / 1000) };
  const first = await pathnameSignedFetch(gw.url, `/api/v1/sandbox/${c.projectId}`, once);
  t.is(first.status, 200, first.text);
  const again = await pathnameSignedFetch(gw.url, `/api/v1/sandbox/${c.projectId}`, once);
  t.is(again.status, 200);
  t.is(again.text, first.text);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  // Without the first request's signature the removed project is unknown, as before.
  const fresh = await pathnameSignedFetch(gw.url, `/api/v1/sandbox/${c.projectId}`, { ...once, timestamp: once.timestamp + 1 });
  t.is(fresh.status, 401);
  t.is(fresh.body.error_code, 'auth_invalid');
});
