import test, { type ExecutionContext } from 'ava';
import { CLI_ACTOR, toBaseUnits } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { PROJECT_TABLES } from '../src/invoices/sandbox-purger.js';
import { assertGreenfieldAnswer, greenfieldDocument } from './greenfield-document.js';
import { greenfield, issueKey, newOwner, sandboxClient, startBtcpayKernel, type GreenfieldAnswer, type SandboxClient } from './helpers.js';

let gw: TestKernel;
test.before(async () => {
  gw = await startBtcpayKernel();
});
test.after.always(async () => {
  await gw?.close();
});

/** The answer, checked against BTCPay's document (one invoice at its store path is checked as the store-less path BTCPay also serves). */
async function call(t: ExecutionContext, token: string, method: string, path: string, body?: unknown): Promise<GreenfieldAnswer> {
  const answer = await greenfield(gw, token, method, path, body);
  const storeless = path.replace(/^\/api\/v1\/stores\/[^/]+\/invoices\/(?=[^/?]+)/, '/api/v1/invoices/');
  assertGreenfieldAnswer(t, method, greenfieldDocument().operation(method, path.split('?')[0]!) ? path : storeless, answer);
  return answer;
}

async function shop(): Promise<{ store: SandboxClient; token: string; base: string }> {
  const owner = await newOwner(gw);
  const store = await sandboxClient(gw, undefined, owner.operatorId);
  const { token } = await issueKey(gw, owner, [
    `btcpay.store.canmodifyinvoices:${store.projectId}`,
    `btcpay.store.webhooks.canmodifywebhooks:${store.projectId}`,
  ]);
  return { store, token, base: `/api/v1/stores/${store.projectId}/invoices` };
}

const pick = (store: SandboxClient, sessionId: string, coin: string) => store.call('POST', `/checkout-sessions/${sessionId}/simulate-pick`, { coin });
const simulate = (store: SandboxClient, invoiceId: string, what: string, body: unknown = {}) =>
  store.call('POST', `/invoices/${invoiceId}/simulate-${what}`, body);
/** A payment method as BTCPay lists it before the payer picks its coin: nothing to pay there yet. */
const notActivated = (paymentMethodId: string, currency: string) => ({
  paymentMethodId,
  currency,
  destination: '',
  paymentLink: '',
  rate: '0',
  paymentMethodPaid: '0',
  totalPaid: '0',
  due: '0',
  amount: '0',
  paymentMethodFee: '0',
  payments: [],
  activated: false,
  additionalData: {},
});

test('payment methods: every allowed coin, not activated until the payer picks; then the picked invoice’s address, amount, rate and payments', async (t) => {
  const { store, token, base } = await shop();
  const created = await call(t, token, 'POST', base, {
    amount: '10.80',
    currency: 'EUR',
    metadata: { orderId: 'A-1' },
    checkout: { paymentMethods: ['BTC-CHAIN', 'ETH-CHAIN'] },
  });
  const id = created.body.id;
  const methods = `${base}/${id}/payment-methods`;

  const before = await call(t, token, 'GET', methods);
  t.deepEqual(before.body, [notActivated('BTC-CHAIN', 'BTC'), notActivated('ETH-CHAIN', 'ETH')]);

  const picked = await pick(store, id, 'btc');
  t.is(picked.status, 200, JSON.stringify(picked.body));
  const btcInvoice = await gw.kernel.cradle.invoicesService.get(store.projectId, picked.body.invoice_id);
  const afterPick = (await call(t, token, 'GET', methods)).body;
  // 1 EUR = 1.08 USD and 1 BTC = 65000 USD (the test gateway's fixed rates): 60185.1851852 EUR per BTC.
  t.like(afterPick[0], {
    activated: true,
    destination: btcInvoice.address,
    paymentLink: btcInvoice.payment_uri,
    amount: btcInvoice.amount_crypto,
    rate: '60185.1851852',
    paymentMethodPaid: '0',
    totalPaid: '0',
    due: btcInvoice.amount_crypto,
    payments: [],
  });
  t.like(afterPick[1], { activated: false, destination: '' });
  t.like((await call(t, token, 'GET', `${base}/${id}`)).body, { status: 'New', additionalStatus: 'None' });

  // A payment seen: Processing, its payment listed as BTCPay's client reads it.
  t.is((await simulate(store, btcInvoice.id, 'detect')).status, 200);
  const seen = (await call(t, token, 'GET', methods)).body[0];
  const [tx] = (await gw.kernel.cradle.invoicesService.get(store.projectId, btcInvoice.id)).transactions!;
  t.like(seen, { paymentMethodPaid: btcInvoice.amount_crypto, totalPaid: btcInvoice.amount_crypto, due: '0' });
  t.deepEqual(seen.payments, [
    {
      id: `${tx!.tx_hash}-${tx!.output_index}`,
      receivedDate: tx!.detected_at,
      value: btcInvoice.amount_crypto,
      fee: '0',
      status: 'Processing',
      destination: btcInvoice.address,
    },
  ]);
  t.like((await call(t, token, 'GET', `${base}/${id}`)).body, {
    status: 'Processing',
    additionalStatus: 'None',
    availableStatusesForManualMarking: ['Settled', 'Invalid'],
  });

  // Confirmed: the session completes, the invoice is Settled and can no longer be marked.
  t.is((await simulate(store, btcInvoice.id, 'paid')).status, 200);
  const settled = (await call(t, token, 'GET', methods)).body[0];
  t.is(settled.payments[0].status, 'Settled');
  t.like((await call(t, token, 'GET', `${base}/${id}`)).body, { status: 'Settled', additionalStatus: 'None', availableStatusesForManualMarking: [] });
  const refused = await call(t, token, 'POST', `${base}/${id}/status`, { status: 'Invalid' });
  t.is(refused.status, 422);
  t.deepEqual(refused.body, [{ path: 'status', message: 'Status can only be marked to invalid or settled within certain conditions.' }]);
});

test('an overpaid invoice is Settled, PaidOver, with a negative due', async (t) => {
  const { store, token, base } = await shop();
  const created = await call(t, token, 'POST', base, { amount: '0.01', currency: 'BTC' });
  const picked = await pick(store, created.body.id, 'btc');
  t.is((await simulate(store, picked.body.invoice_id, 'detect')).status, 200);
  t.is((await simulate(store, picked.body.invoice_id, 'overpaid', { multiplier: 1.5 })).status, 200);
  t.like((await call(t, token, 'GET', `${base}/${created.body.id}`)).body, { status: 'Settled', additionalStatus: 'PaidOver' });
  const [btc] = (await call(t, token, 'GET', `${base}/${created.body.id}/payment-methods`)).body;
  t.like(btc, { rate: '1', amount: '0.01', paymentMethodPaid: '0.015', totalPaid: '0.015', due: '-0.005' });
});

test('a late payment to a coin the payer switched away from completes the session: Expired, PaidLate; the other coin counts it at the rates', async (t) => {
  const { store, token, base } = await shop();
  const created = await call(t, token, 'POST', base, { amount: '54.00', currency: 'EUR', checkout: { paymentMethods: ['BTC-CHAIN', 'ETH-CHAIN'] } });
  const id = created.body.id;
  const btc = (await pick(store, id, 'btc')).body.invoice_id;
  t.is((await simulate(store, btc, 'expire')).status, 200);
  const eth = (await pick(store, id, 'eth')).body.invoice_id;
  t.like((await call(t, token, 'GET', `${base}/${id}`)).body, { status: 'New', additionalStatus: 'None' });
  const late = await simulate(store, btc, 'late-payment');
  t.is(late.status, 200, JSON.stringify(late.body));
  t.like(await gw.kernel.cradle.sessionsCheckout.get(store.projectId, id), { status: 'completed', invoice_id: btc });
  t.like((await call(t, token, 'GET', `${base}/${id}`)).body, {
    status: 'Expired',
    additionalStatus: 'PaidLate',
    availableStatusesForManualMarking: ['Settled', 'Invalid'],
  });

  const [btcMethod, ethMethod] = (await call(t, token, 'GET', `${base}/${id}/payment-methods`)).body;
  const btcInvoice = await gw.kernel.cradle.invoicesService.get(store.projectId, btc);
  const ethInvoice = await gw.kernel.cradle.invoicesService.get(store.projectId, eth);
  t.like(btcMethod, { destination: btcInvoice.address, amount: btcInvoice.amount_crypto, paymentMethodPaid: btcInvoice.amount_crypto, due: '0' });
  t.is(btcMethod.payments.length, 1);
  // The bitcoin paid, in ether at the two invoices' rates (65000 and 3200.5 USD): the ether invoice's amount, give or take the rounding of each.
  t.like(ethMethod, { activated: true, destination: ethInvoice.address, paymentMethodPaid: '0', payments: [] });
  const expected = (toBaseUnits(btcInvoice.amount_crypto, 8) * 10n ** 10n * 650000n) / 32005n;
  const total = toBaseUnits(ethMethod.totalPaid, 18);
  t.true(total - expected < 10n ** 10n && expected - total < 10n ** 10n, `${ethMethod.totalPaid} ether for ${btcInvoice.amount_crypto} bitcoin`);
  t.is(
    toBaseUnits(ethInvoice.amount_crypto, 18) - total,
    ethMethod.due.startsWith('-') ? -toBaseUnits(ethMethod.due.slice(1), 18) : toBaseUnits(ethMethod.due, 18),
  );
});

test('mark Invalid ends an open session; Settled then overrides it; a mark BTCPay would refuse is 422', async (t) => {
  const { store, token, base } = await shop();
  const hook = await greenfield(gw, token, 'POST', `/api/v1/stores/${store.projectId}/webhooks`, { url: 'https://shop.example/btcpay-hook' });
  t.is(hook.status, 200, hook.text);
  const created = await call(t, token, 'POST', base, { amount: '4', currency: 'EUR', metadata: { orderId: 'W-9' } });
  const id = created.body.id;
  const invalid = await call(t, token, 'POST', `${base}/${id}/status`, { status: 'invalid' });
  t.is(invalid.status, 200, invalid.text);
  t.like(invalid.body, { id, status: 'Invalid', additionalStatus: 'Marked', availableStatusesForManualMarking: ['Settled'] });
  t.like(await gw.kernel.cradle.sessionsCheckout.get(store.projectId, id), { status: 'expired' });
  // The webhook hears of the creation and the mark; the session's end after the mark changes nothing it announces.
  const events = async () =>
    (await gw.kernel.cradle.db('webhooks_events').where({ signer: 'btcpay', signer_ref: hook.body.id }).orderBy('id').select('event_type')).map(
      (row: { event_type: string }) => row.event_type,
    );
  t.deepEqual(await events(), ['InvoiceCreated', 'InvoiceInvalid']);
  t.is((await call(t, token, 'POST', `${base}/${id}/status`, { status: 'Invalid' })).status, 422);

  const settled = await call(t, token, 'POST', `/api/v1/invoices/${id}/status`, { status: 'Settled' });
  t.like(settled.body, { status: 'Settled', additionalStatus: 'Marked', availableStatusesForManualMarking: ['Invalid'] });
  t.deepEqual(await events(), ['InvoiceCreated', 'InvoiceInvalid', 'InvoiceSettled']);
  const bad = await call(t, token, 'POST', `${base}/${id}/status`, { status: 'Paid' });
  t.deepEqual(
    bad.body.map((issue: { path: string }) => issue.path),
    ['status'],
  );
  const audit = await gw.kernel.cradle
    .db('kernel_audit_log')
    .where({ target: `checkout_session:${id}`, action: 'btcpay_invoice.mark' })
    .orderBy('id');
  t.deepEqual(
    audit.map((entry: { details: { status: string } }) => entry.details.status),
    ['Invalid', 'Settled'],
  );

  // Invalid while a payment is under way: the session goes on (the payment may still complete it), the mark holds.
  const paying = await call(t, token, 'POST', base, { amount: '4', currency: 'EUR' });
  const pickedInvoice = (await pick(store, paying.body.id, 'btc')).body.invoice_id;
  await simulate(store, pickedInvoice, 'detect');
  const marked = await call(t, token, 'POST', `${base}/${paying.body.id}/status`, { status: 'Invalid' });
  t.like(marked.body, { status: 'Invalid', additionalStatus: 'Marked' });
  t.like(await gw.kernel.cradle.sessionsCheckout.get(store.projectId, paying.body.id), { status: 'open' });
});

test('the list filters as BTCPay’s: orderId, status, textSearch, dates, skip and take; archived invoices only when asked', async (t) => {
  const { token, base } = await shop();
  const make = async (orderId: string, extra: Record<string, unknown> = {}) =>
    (await call(t, token, 'POST', base, { amount: '2', currency: 'EUR', metadata: { orderId, ...extra } })).body.id as string;
  const first = await make('L-1', { buyerName: 'Ada Lovelace' });
  const second = await make('L-2');
  const third = await make('L-3');
  await call(t, token, 'POST', `${base}/${second}/status`, { status: 'Invalid' });

  const ids = async (query: string) => {
    const answer = await call(t, token, 'GET', `${base}${query}`);
    t.is(answer.status, 200, answer.text);
    return answer.body.map((invoice: { id: string }) => invoice.id);
  };
  t.deepEqual(await ids(''), [third, second, first]);
  t.deepEqual(await ids('?orderId=L-1&orderId=L-3'), [third, first]);
  t.deepEqual(await ids('?status=Invalid'), [second]);
  t.deepEqual(await ids('?status=New&status=invalid'), [third, second, first]);
  t.deepEqual(await ids('?status=Paid'), []);
  t.deepEqual(await ids('?textSearch=lovelace'), [first]);
  t.deepEqual(await ids(`?textSearch=${second}`), [second]);
  t.deepEqual(await ids('?skip=1&take=1'), [second]);
  t.deepEqual(await ids('?status=New&skip=1'), [first]);
  const now = Math.floor(Date.now() / 1000);
  t.deepEqual(await ids(`?startDate=${now + 3600}`), []);
  t.deepEqual(await ids(`?startDate=${now - 3600}&endDate=${now + 3600}`), [third, second, first]);
  const wrong = await call(t, token, 'GET', `${base}?startDate=${now}&endDate=${now - 10}`);
  t.is(wrong.status, 422);
  t.deepEqual(
    wrong.body.map((issue: { path: string }) => issue.path),
    ['startDate', 'endDate'],
  );
  t.is((await call(t, token, 'GET', `${base}?take=many`)).status, 422);

  // Archive: 200 without a body; the invoice leaves the list, stays readable, and comes back when unarchived.
  const archived = await call(t, token, 'DELETE', `${base}/${first}`);
  t.is(archived.status, 200);
  t.is(archived.text, '');
  t.deepEqual(await ids(''), [third, second]);
  t.deepEqual(await ids('?includeArchived=true'), [third, second, first]);
  t.like((await call(t, token, 'GET', `${base}/${first}`)).body, { archived: true });
  t.like((await call(t, token, 'POST', `${base}/${first}/unarchive`)).body, { id: first, archived: false });
  // Unarchiving an invoice that is not archived changes nothing (BTCPay answers 400 already-unarchived, which its document does not allow).
  t.like((await call(t, token, 'POST', `${base}/${first}/unarchive`)).body, { id: first, archived: false });

  // The metadata replaced, the order id with it.
  const updated = await call(t, token, 'PUT', `${base}/${third}`, { metadata: { orderId: 'L-33', note: 'gift' } });
  t.deepEqual(updated.body.metadata, { orderId: 'L-33', note: 'gift' });
  t.deepEqual(await ids('?orderId=L-33'), [third]);

  // Activating a payment method is the payer's pick here.
  const activate = await call(t, token, 'POST', `${base}/${third}/payment-methods/BTC-CHAIN/activate`);
  t.is(activate.status, 422);
  t.deepEqual(
    activate.body.map((issue: { path: string }) => issue.path),
    ['paymentMethod'],
  );
});

test('a sandbox reset removes every btcpay row of the project, and the purger knows every btcpay table with a project', async (t) => {
  const { store, token, base } = await shop();
  await call(t, token, 'POST', base, { amount: '2', currency: 'EUR' });
  await gw.kernel.cradle
    .db('btcpay_webhooks')
    .insert({ id: `wh_${Date.now()}`, project_id: store.projectId, url: 'https://shop.example/hook', sealed_secret: 'x' });
  const rows = async () => {
    let n = 0;
    for (const table of PROJECT_TABLES) {
      const [row] = await gw.kernel.cradle.db(table).where({ project_id: store.projectId }).count('* as n');
      n += Number(row?.['n'] ?? 0);
    }
    return n;
  };
  // The invoice, the webhook, and what the webhooks track of the invoice.
  t.is(await rows(), 3);
  await gw.kernel.cradle.sandboxProjects.reset(store.projectId, CLI_ACTOR);
  t.is(await rows(), 0);

  const withProject = await gw.kernel.cradle.db
    .select('table_name')
    .from('information_schema.columns')
    .where({ table_schema: 'public', column_name: 'project_id' })
    .andWhereLike('table_name', 'btcpay\\_%');
  t.deepEqual(withProject.map((row: { table_name: string }) => row.table_name).sort(), [...PROJECT_TABLES].sort());
});
