/**
 * BTCPay's invoice webhooks (issue 39), end to end on a real gateway: a shop registers a webhook as
 * the WooCommerce plugin does, creates a BTCPay invoice, the payer picks a coin and pays on the
 * sandbox; the shop's endpoint receives InvoiceCreated, InvoiceReceivedPayment, InvoiceProcessing,
 * InvoicePaymentSettled and InvoiceSettled, each signed `BTCPay-Sig` (checked by BTCPay's own PHP
 * client) with the fields the plugin reads, each valid against BTCPay's document. Expiry, a mark,
 * disabled and deleted webhooks, retries, the delivery log and redelivery go through the webhooks
 * plugin's outbox.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test, { type ExecutionContext } from 'ava';
import { waitFor, type TestKernel } from '@gw/kernel/testing';
import { confirmInvoice, expireInvoice, payInvoice } from '@gw/plugin-invoices/testing';
import { MailSink } from '@gw/plugin-oauth/testing';
import { Receiver, stopAll } from '@gw/testing';
import { btcpayPeersDir, greenfieldDocument } from './greenfield-document.js';
import { greenfield, issueKey, newOwner, sandboxClient, startBtcpayKernel, WOO_EVENTS, type GreenfieldAnswer, type SandboxClient } from './helpers.js';

/** What the WooCommerce plugin registers, with InvoiceCreated. */
const EVENTS = ['InvoiceCreated', ...WOO_EVENTS];
/** The schema of each event type's body in BTCPay's document. */
const SCHEMA_OF: Readonly<Record<string, string>> = {
  InvoiceCreated: 'WebhookInvoiceEvent',
  InvoiceReceivedPayment: 'WebhookInvoiceReceivedPaymentEvent',
  InvoicePaymentSettled: 'WebhookInvoicePaymentSettledEvent',
  InvoiceProcessing: 'WebhookInvoiceProcessingEvent',
  InvoiceExpired: 'WebhookInvoiceExpiredEvent',
  InvoiceSettled: 'WebhookInvoiceSettledEvent',
  InvoiceInvalid: 'WebhookInvoiceInvalidEvent',
};

let gw: TestKernel;
let receiver: Receiver;
let sink: MailSink;
/** Replies by path: a list is answered in order (the last one again once used up). */
const replies = new Map<string, number[]>();
test.before(async () => {
  sink = await MailSink.start();
  // The shop's endpoint is on loopback: the delivery log keeps its status codes. The operator signs
  // in to the dashboard with a mailed code.
  gw = await startBtcpayKernel({
    'plugins.webhooks.privateAttemptDetails': true,
    'plugins.oauth.smtp.url': sink.url,
    'plugins.oauth.emailCode.sendsPerHourPerIp': 1000,
    'plugins.dashboard.signInsPerHourPerIp': 1000,
  });
  receiver = await Receiver.start();
  receiver.reply = (request) => {
    const planned = replies.get(request.path);
    const status = planned && planned.length > 1 ? planned.shift()! : (planned?.[0] ?? 200);
    return { status, body: status < 300 ? 'ok' : 'not now' };
  };
});
test.after.always(() => stopAll(gw, receiver, sink));

interface Shop {
  /** The store's operator's administrator (signs in to the dashboard). */
  readonly email: string;
  readonly store: SandboxClient;
  readonly storeId: string;
  readonly token: string;
  readonly path: string;
  readonly webhookId: string;
  readonly secret: string;
}

let shops = 0;

/** A store, a key as the WooCommerce plugin asks for, and a webhook registered as it registers one. */
async function shop(t: ExecutionContext, webhook: Record<string, unknown> = {}): Promise<Shop> {
  const owner = await newOwner(gw);
  const store = await sandboxClient(gw, undefined, owner.operatorId);
  const storeId = store.projectId;
  const { token } = await issueKey(gw, owner, [`btcpay.store.canmodifyinvoices:${storeId}`, `btcpay.store.webhooks.canmodifywebhooks:${storeId}`]);
  const path = `/wc-api/btcpaygf_default/${++shops}`;
  const created = await greenfield(gw, token, 'POST', `/api/v1/stores/${storeId}/webhooks`, {
    enabled: true,
    automaticRedelivery: true,
    url: `${receiver.url}${path}`,
    authorizedEvents: { everything: false, specificEvents: EVENTS },
    ...webhook,
  });
  t.is(created.status, 200, created.text);
  return { email: owner.email, store, storeId, token, path, webhookId: created.body.id, secret: created.body.secret };
}

/** A BTCPay invoice of the shop, created as the WooCommerce plugin creates one. */
async function invoice(t: ExecutionContext, s: Shop, orderId: string, amount = '10.00'): Promise<string> {
  const created = await greenfield(gw, s.token, 'POST', `/api/v1/stores/${s.storeId}/invoices`, {
    amount,
    currency: 'EUR',
    metadata: { orderId, orderUrl: `https://shop.example/order/${orderId}` },
    checkout: { redirectURL: `https://shop.example/thanks/${orderId}` },
  });
  t.is(created.status, 200, created.text);
  return created.body.id as string;
}

/** The payer picks `coin` on the invoice's page (the sandbox's pick); answers the coin's invoice. */
async function pick(s: Shop, invoiceId: string, coin = 'btc'): Promise<string> {
  const picked = await s.store.call('POST', `/checkout-sessions/${invoiceId}/simulate-pick`, { coin });
  if (picked.status !== 200) throw new Error(JSON.stringify(picked.body));
  return picked.body.invoice_id as string;
}

async function simulate(s: Shop, coinInvoiceId: string, what: string, body: Record<string, unknown> = {}): Promise<void> {
  const res = await s.store.call('POST', `/invoices/${coinInvoiceId}/simulate-${what}`, body);
  if (res.status !== 200) throw new Error(`${what}: ${JSON.stringify(res.body)}`);
}

/**
 * The deadline of every open session passes: the sessions' expiry job's step, a day ahead. Only
 * serial tests call it (ava runs them before the concurrent ones, whose sessions it would end).
 */
async function expireSessions(): Promise<void> {
  await gw.kernel.cradle.sessionsCloser.expireDue({ asOf: new Date(Date.now() + 86_400_000) });
}

interface Delivery {
  readonly body: Record<string, any>;
  readonly raw: string;
  readonly signature: string;
}

/** What the shop's endpoint received for `invoiceId`, in arrival order. */
function deliveries(s: Shop, invoiceId?: string): Delivery[] {
  return receiver.requests
    .filter((r) => r.path === s.path)
    .map((r) => ({ body: JSON.parse(r.body) as Record<string, any>, raw: r.body, signature: String(r.headers['btcpay-sig'] ?? '') }))
    .filter((d) => invoiceId === undefined || d.body['invoiceId'] === invoiceId);
}

/** Waits for a delivery of `type` for the invoice (the first one). */
async function received(s: Shop, invoiceId: string, type: string): Promise<Delivery> {
  return waitFor(async () => deliveries(s, invoiceId).find((d) => d.body['type'] === type), 20_000, `${type} of ${invoiceId}`);
}

/** Whether BTCPay's PHP client (`Webhook::isIncomingWebhookRequestValid`) accepts the signature. */
async function phpAccepts(raw: string, signature: string, secret: string): Promise<boolean> {
  const autoload = join(btcpayPeersDir(), 'greenfield-php', 'src', 'autoload.php');
  const script = `require $argv[1]; $body = file_get_contents($argv[2]); echo \\BTCPayServer\\Client\\Webhook::isIncomingWebhookRequestValid($body, $argv[3], $argv[4]) ? 'valid' : 'invalid';`;
  const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const dir = await mkdtemp(join(tmpdir(), 'btcpay-sig-'));
  try {
    await writeFile(join(dir, 'body.json'), raw);
    const { stdout } = await promisify(execFile)('php', ['-r', script, autoload, join(dir, 'body.json'), signature, secret]);
    return stdout === 'valid';
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The delivery is one BTCPay sends: its type's schema, the delivery's own fields, the store, invoice and metadata. */
function isBtcpayEvent(t: ExecutionContext, s: Shop, d: Delivery, invoiceId: string, orderId: string): void {
  const type = String(d.body['type']);
  t.deepEqual(greenfieldDocument().schemaProblems(SCHEMA_OF[type]!, d.body), [], `${type}: ${d.raw}`);
  t.like(d.body, { webhookId: s.webhookId, isRedelivery: false, storeId: s.storeId, invoiceId, metadata: { orderId } });
  t.is(d.body['originalDeliveryId'], d.body['deliveryId']);
  t.true(Number.isInteger(d.body['timestamp']) && Math.abs(d.body['timestamp'] - Date.now() / 1000) < 600, String(d.body['timestamp']));
}

/** The deliveries of `types` for the invoice, once each arrived: each a BTCPay event of the order, its signature accepted by BTCPay's PHP client. */
async function receivedSigned<T extends string[]>(
  t: ExecutionContext,
  s: Shop,
  invoiceId: string,
  orderId: string,
  ...types: T
): Promise<{ [K in keyof T]: Delivery }> {
  const deliveries: Delivery[] = [];
  for (const type of types) deliveries.push(await received(s, invoiceId, type));
  for (const d of deliveries) {
    isBtcpayEvent(t, s, d, invoiceId, orderId);
    t.true(await phpAccepts(d.raw, d.signature, s.secret));
  }
  return deliveries as { [K in keyof T]: Delivery };
}

test('a paid invoice: InvoiceCreated, InvoiceReceivedPayment, InvoiceProcessing, InvoicePaymentSettled, InvoiceSettled, signed with the webhook’s secret as BTCPay signs', async (t) => {
  const s = await shop(t);
  const id = await invoice(t, s, 'order-1');
  const created = await received(s, id, 'InvoiceCreated');
  isBtcpayEvent(t, s, created, id, 'order-1');
  t.true(await phpAccepts(created.raw, created.signature, s.secret), created.signature);
  t.false(await phpAccepts(created.raw, created.signature, 'another secret'));

  const coinInvoice = await pick(s, id, 'btc');
  await simulate(s, coinInvoice, 'detect');
  const [payment, processing] = await receivedSigned(t, s, id, 'order-1', 'InvoiceReceivedPayment', 'InvoiceProcessing');
  t.like(payment.body, { afterExpiration: false, paymentMethodId: 'BTC-CHAIN', payment: { status: 'Processing', fee: '0' } });
  t.regex(payment.body['payment'].id, /^[0-9a-f]{64}-\d+$/);
  const coin = await gw.kernel.cradle.invoicesService.get(s.storeId, coinInvoice);
  t.is(payment.body['payment'].destination, coin.address);
  t.is(payment.body['payment'].value, coin.amount_crypto);
  t.is(processing.body['overPaid'], false);

  await simulate(s, coinInvoice, 'paid');
  const [paymentSettled, settled] = await receivedSigned(t, s, id, 'order-1', 'InvoicePaymentSettled', 'InvoiceSettled');
  t.like(paymentSettled.body, { afterExpiration: false, paymentMethodId: 'BTC-CHAIN', payment: { id: payment.body['payment'].id, status: 'Settled' } });
  t.like(settled.body, { manuallyMarked: false, overPaid: false });

  // Each event once, each delivery its own id; the invoice reads Settled.
  await waitFor(
    async () =>
      (await gw.kernel.cradle.db('webhooks_events').where({ signer: 'btcpay', signer_ref: s.webhookId }).whereNot('status', 'delivered')).length === 0,
  );
  const types = deliveries(s, id).map((d) => d.body['type']);
  t.deepEqual([...types].sort(), ['InvoiceCreated', 'InvoicePaymentSettled', 'InvoiceProcessing', 'InvoiceReceivedPayment', 'InvoiceSettled']);
  t.is(new Set(deliveries(s, id).map((d) => d.body['deliveryId'])).size, 5);
  const read = await greenfield(gw, s.token, 'GET', `/api/v1/stores/${s.storeId}/invoices/${id}`);
  t.is(read.body.status, 'Settled');
});

test.serial(
  'an overpayment settles with overPaid; a short payment sends InvoiceReceivedPayment but no InvoiceProcessing, and its expiry is partially paid',
  async (t) => {
    const s = await shop(t);
    const over = await invoice(t, s, 'order-over');
    const overCoin = await pick(s, over);
    await simulate(s, overCoin, 'detect');
    await simulate(s, overCoin, 'overpaid', { multiplier: 1.5 });
    const settled = await received(s, over, 'InvoiceSettled');
    t.like(settled.body, { manuallyMarked: false, overPaid: true });
    isBtcpayEvent(t, s, settled, over, 'order-over');

    // Half the amount is seen (the invoice lifecycle's own path, as a watcher reports it).
    const short = await invoice(t, s, 'order-short');
    const coinInvoice = await pick(s, short);
    const coin = await gw.kernel.cradle.invoicesService.get(s.storeId, coinInvoice);
    await payInvoice(gw.kernel.cradle, s.storeId, coinInvoice, { amountUnits: BigInt(coin.amount_crypto_units) / 2n });
    const seen = await received(s, short, 'InvoiceReceivedPayment');
    t.like(seen.body, { afterExpiration: false, payment: { status: 'Processing' } });
    isBtcpayEvent(t, s, seen, short, 'order-short');
    const written = async (type: string) =>
      (await gw.kernel.cradle.db('webhooks_events').where({ signer: 'btcpay', signer_ref: s.webhookId, event_type: type }).whereLike('body', `%${short}%`))
        .length;
    t.is(await written('InvoiceProcessing'), 0, 'a short payment is not "paid in full"');
    // GET says what the webhooks say: one rule.
    const whileSeen = await greenfield(gw, s.token, 'GET', `/api/v1/stores/${s.storeId}/invoices/${short}`);
    t.like(whileSeen.body, { status: 'New', additionalStatus: 'PaidPartial' });
    await confirmInvoice(gw.kernel.cradle, s.storeId, coinInvoice);
    const counted = await received(s, short, 'InvoicePaymentSettled');
    t.like(counted.body, { payment: { id: seen.body['payment'].id, status: 'Settled' } });
    const read = await greenfield(gw, s.token, 'GET', `/api/v1/stores/${s.storeId}/invoices/${short}`);
    t.like(read.body, { status: 'New', additionalStatus: 'PaidPartial' });
    t.is(await written('InvoiceProcessing'), 0);
    t.is(await written('InvoiceSettled'), 0);

    // Then the deadlines pass, the coin invoice's and then the session's: InvoiceExpired, partially paid.
    await expireInvoice(gw.kernel.cradle, s.storeId, coinInvoice);
    await expireSessions();
    const expired = await received(s, short, 'InvoiceExpired');
    isBtcpayEvent(t, s, expired, short, 'order-short');
    t.is(expired.body['partiallyPaid'], true);
  },
);

test.serial('an invoice nobody pays expires: InvoiceExpired, not partially paid', async (t) => {
  const s = await shop(t);
  const id = await invoice(t, s, 'order-idle');
  await received(s, id, 'InvoiceCreated');
  await expireSessions();
  const expired = await received(s, id, 'InvoiceExpired');
  isBtcpayEvent(t, s, expired, id, 'order-idle');
  t.is(expired.body['partiallyPaid'], false);
  t.true(await phpAccepts(expired.raw, expired.signature, s.secret));
});

test('a payment after the coin invoice’s deadline: InvoiceReceivedPayment and InvoicePaymentSettled after expiration, then InvoiceExpired, paid late (not partially)', async (t) => {
  const s = await shop(t);
  const id = await invoice(t, s, 'order-late');
  const coinInvoice = await pick(s, id);
  await simulate(s, coinInvoice, 'expire');
  await simulate(s, coinInvoice, 'late-payment');
  const seen = await received(s, id, 'InvoiceReceivedPayment');
  const counted = await received(s, id, 'InvoicePaymentSettled');
  const expired = await received(s, id, 'InvoiceExpired');
  for (const d of [seen, counted, expired]) isBtcpayEvent(t, s, d, id, 'order-late');
  t.like(seen.body, { afterExpiration: true, paymentMethodId: 'BTC-CHAIN' });
  t.like(counted.body, { afterExpiration: true, payment: { status: 'Settled' } });
  t.is(expired.body['partiallyPaid'], false);
  const read = await greenfield(gw, s.token, 'GET', `/api/v1/stores/${s.storeId}/invoices/${id}`);
  t.like(read.body, { status: 'Expired', additionalStatus: 'PaidLate' });
});

test('marking an invoice Invalid sends InvoiceInvalid, manually marked; marking it Settled then sends InvoiceSettled, manually marked', async (t) => {
  const s = await shop(t);
  const id = await invoice(t, s, 'order-mark');
  const marked = await greenfield(gw, s.token, 'POST', `/api/v1/stores/${s.storeId}/invoices/${id}/status`, { status: 'Invalid' });
  t.is(marked.status, 200, marked.text);
  const invalid = await received(s, id, 'InvoiceInvalid');
  isBtcpayEvent(t, s, invalid, id, 'order-mark');
  t.is(invalid.body['manuallyMarked'], true);
  const settled = await greenfield(gw, s.token, 'POST', `/api/v1/stores/${s.storeId}/invoices/${id}/status`, { status: 'Settled' });
  t.is(settled.status, 200, settled.text);
  const settledEvent = await received(s, id, 'InvoiceSettled');
  t.like(settledEvent.body, { manuallyMarked: true, overPaid: false });
  isBtcpayEvent(t, s, settledEvent, id, 'order-mark');
  // The mark came first: the session it ended sent no InvoiceExpired.
  const types = (await gw.kernel.cradle.db('webhooks_events').where({ signer: 'btcpay', signer_ref: s.webhookId }).whereLike('body', `%${id}%`)).map(
    (row: { event_type: string }) => row.event_type,
  );
  t.deepEqual(types.sort(), ['InvoiceCreated', 'InvoiceInvalid', 'InvoiceSettled']);
});

test('only enabled webhooks that take the event get it; a disabled or deleted webhook’s pending deliveries end unsent, without retry', async (t) => {
  const s = await shop(t);
  // A second webhook taking only InvoiceSettled, and one disabled.
  const only = await greenfield(gw, s.token, 'POST', `/api/v1/stores/${s.storeId}/webhooks`, {
    url: `${receiver.url}${s.path}/settled-only`,
    authorizedEvents: { everything: false, specificEvents: ['InvoiceSettled'] },
  });
  const off = await greenfield(gw, s.token, 'POST', `/api/v1/stores/${s.storeId}/webhooks`, { url: `${receiver.url}${s.path}/off`, enabled: false });
  const id = await invoice(t, s, 'order-filter');
  await simulate(s, await pick(s, id), 'detect');
  await received(s, id, 'InvoiceProcessing');
  const rows = await gw.kernel.cradle.db('webhooks_events').where({ signer: 'btcpay' }).whereIn('signer_ref', [only.body.id, off.body.id]);
  t.deepEqual(rows, [], 'neither took InvoiceCreated, InvoiceReceivedPayment or InvoiceProcessing');

  // The shop's endpoint is down; the webhook is disabled while its deliveries wait for their retry.
  replies.set(`${s.path}/down`, [503]);
  await greenfield(gw, s.token, 'PUT', `/api/v1/stores/${s.storeId}/webhooks/${s.webhookId}`, {
    url: `${receiver.url}${s.path}/down`,
    authorizedEvents: { everything: false, specificEvents: EVENTS },
  });
  const later = await invoice(t, s, 'order-disabled');
  const failed = await waitFor(async () => {
    const row = await gw.kernel.cradle
      .db('webhooks_events')
      .where({ signer: 'btcpay', signer_ref: s.webhookId, event_type: 'InvoiceCreated' })
      .whereRaw('body like ?', [`%${later}%`])
      .first();
    return row?.attempts === 1 && row;
  });
  t.is(failed.status, 'retrying');
  const disabled = await greenfield(gw, s.token, 'PUT', `/api/v1/stores/${s.storeId}/webhooks/${s.webhookId}`, {
    url: `${receiver.url}${s.path}/down`,
    enabled: false,
  });
  t.is(disabled.status, 200);
  const sent = receiver.requests.filter((r) => r.path === `${s.path}/down`).length;
  const ended = await waitFor(async () => {
    const row = await gw.kernel.cradle.db('webhooks_events').where({ id: failed.id }).first();
    return row.status !== 'retrying' && row;
  });
  t.is(ended.status, 'skipped');
  t.regex(ended.last_error, /deleted or disabled/);
  t.is(receiver.requests.filter((r) => r.path === `${s.path}/down`).length, sent, 'nothing was sent once it was disabled');

  // A deleted webhook: the same.
  const other = await shop(t);
  replies.set(other.path, [503]);
  const gone = await invoice(t, other, 'order-deleted');
  const pending = await waitFor(async () => {
    const row = await gw.kernel.cradle
      .db('webhooks_events')
      .where({ signer: 'btcpay', signer_ref: other.webhookId })
      .whereRaw('body like ?', [`%${gone}%`])
      .first();
    return row?.attempts === 1 && row;
  });
  t.is((await greenfield(gw, other.token, 'DELETE', `/api/v1/stores/${other.storeId}/webhooks/${other.webhookId}`)).status, 200);
  const before = deliveries(other).length;
  const dropped = await waitFor(async () => {
    const row = await gw.kernel.cradle.db('webhooks_events').where({ id: pending.id }).first();
    return row.status !== 'retrying' && row;
  });
  t.like(dropped, { status: 'skipped' });
  t.is(deliveries(other).length, before, 'nothing was sent once it was deleted');
});

test('retries, the delivery log and redelivery: a failed delivery is retried with the same body and signature, listed as BTCPay lists deliveries, and redelivered as a new delivery', async (t) => {
  const s = await shop(t);
  replies.set(s.path, [503, 200]);
  const id = await invoice(t, s, 'order-retry');
  await waitFor(async () => deliveries(s, id).length >= 2);
  const [first, second] = deliveries(s, id);
  t.is(first!.raw, second!.raw);
  t.is(first!.signature, second!.signature);
  const deliveryId = first!.body['deliveryId'] as string;

  const row = await waitFor(async () => {
    const r = await gw.kernel.cradle.db('webhooks_events').where({ id: deliveryId }).first();
    return r?.status === 'delivered' && r;
  });
  t.like(row, { attempts: 2, event_type: 'InvoiceCreated', signer: 'btcpay', signer_ref: s.webhookId, target_url: `${receiver.url}${s.path}` });
  // The webhooks plugin's delivery log shows it with its attempts.
  const logged = await gw.kernel.cradle.webhooksEventLog.get(s.storeId, deliveryId);
  t.like(logged, { event_type: 'InvoiceCreated', signer: 'btcpay', status: 'delivered', payload: { deliveryId, type: 'InvoiceCreated' } });
  t.deepEqual(
    logged.attempt_log.map((a) => a.http_status),
    [503, 200],
  );

  const listed = await greenfield(gw, s.token, 'GET', `/api/v1/stores/${s.storeId}/webhooks/${s.webhookId}/deliveries?count=10`);
  t.is(listed.status, 200);
  const entry = listed.body.find((d: { id: string }) => d.id === deliveryId);
  t.like(entry, { id: deliveryId, httpCode: 200, status: 'HttpSuccess' });
  t.deepEqual(greenfieldDocument().schemaProblems('WebhookDeliveryList', listed.body), []);
  const one: GreenfieldAnswer = await greenfield(gw, s.token, 'GET', `/api/v1/webhooks/${s.webhookId}/deliveries/${deliveryId}`);
  t.deepEqual(one.body, entry);
  const request = await greenfield(gw, s.token, 'GET', `/api/v1/stores/${s.storeId}/webhooks/${s.webhookId}/deliveries/${deliveryId}/request`);
  t.is(request.text, first!.raw);

  const redelivered = await greenfield(gw, s.token, 'POST', `/api/v1/stores/${s.storeId}/webhooks/${s.webhookId}/deliveries/${deliveryId}/redeliver`);
  t.is(redelivered.status, 200, redelivered.text);
  const newId = redelivered.body as string;
  t.not(newId, deliveryId);
  const again = await waitFor(async () => deliveries(s, id).find((d) => d.body['deliveryId'] === newId));
  t.like(again.body, { isRedelivery: true, originalDeliveryId: deliveryId, type: 'InvoiceCreated', timestamp: first!.body['timestamp'] });
  t.true(await phpAccepts(again.raw, again.signature, s.secret));
  t.deepEqual(greenfieldDocument().schemaProblems('WebhookInvoiceEvent', again.body), []);
});

test('a webhook without automatic redelivery is not retried: its failed delivery is dead-lettered at once', async (t) => {
  const s = await shop(t, { automaticRedelivery: false });
  replies.set(s.path, [503]);
  const id = await invoice(t, s, 'order-once');
  const [delivery] = await waitFor(async () => deliveries(s, id).length > 0 && deliveries(s, id));
  const row = await waitFor(async () => {
    const r = await gw.kernel.cradle.db('webhooks_events').where({ id: delivery!.body['deliveryId'] }).first();
    return r?.status === 'dlq' && r;
  });
  t.is(row.attempts, 1);
  t.is(deliveries(s, id).length, 1);
});

/** The dashboard as a browser without JavaScript sees it: signed in by the mailed code, the session cookie kept. */
async function dashboard(email: string): Promise<(path: string) => Promise<{ status: number; text: string }>> {
  let cookie = '';
  const send = async (path: string, form?: Record<string, string>) => {
    const res = await fetch(`${gw.url}${path}`, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        ...(cookie ? { cookie: `gw_dashboard=${cookie}` } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(gw.url).origin } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    const set = /gw_dashboard=([^;]*)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
    if (set !== undefined) cookie = set;
    const text = await res.text();
    return { status: res.status, text, csrf: /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? '' };
  };
  const start = await send('/dashboard/sign-in');
  await send('/dashboard/sign-in/email', { _csrf: start.csrf, email });
  const code = await send('/dashboard/sign-in/code');
  const done = await send('/dashboard/sign-in/code', { _csrf: code.csrf, code: await sink.nextCode(email) });
  if (done.status !== 303) throw new Error(`sign-in: ${done.status} ${done.text.slice(0, 300)}`);
  return (path) => send(path);
}

test('the dashboard’s webhook log lists BTCPay’s deliveries with their type, who signed them and BTCPay’s body', async (t) => {
  const s = await shop(t);
  const id = await invoice(t, s, 'order-dashboard');
  const created = await received(s, id, 'InvoiceCreated');
  const deliveryId = created.body['deliveryId'] as string;
  await waitFor(async () => (await gw.kernel.cradle.db('webhooks_events').where({ id: deliveryId }).first())?.status === 'delivered');
  const page = await dashboard(s.email);
  const log = await page(`/dashboard/projects/${s.storeId}/webhooks`);
  t.is(log.status, 200, log.text.slice(0, 300));
  t.true(log.text.includes(deliveryId));
  t.true(log.text.includes('InvoiceCreated'));
  const one = await page(`/dashboard/projects/${s.storeId}/webhooks/${deliveryId}`);
  t.is(one.status, 200);
  t.true(one.text.includes('by the btcpay plugin'), 'who signed it');
  t.true(one.text.includes('isRedelivery'), 'BTCPay’s body');
  t.true(one.text.includes(s.webhookId));
});

test('a reorganisation takes a settled invoice back: Processing, then Invalid (PaidPartial) when less is mined again, never Settled short', async (t) => {
  const s = await shop(t);
  const id = await invoice(t, s, 'order-reorg');
  const coinInvoice = await pick(s, id);
  await simulate(s, coinInvoice, 'detect');
  await simulate(s, coinInvoice, 'paid');
  await received(s, id, 'InvoiceSettled');
  const read = async () => (await greenfield(gw, s.token, 'GET', `/api/v1/stores/${s.storeId}/invoices/${id}`)).body;
  t.like(await read(), { status: 'Settled', additionalStatus: 'None' });

  // The paying payment leaves the chain: it waits to be mined again.
  await simulate(s, coinInvoice, 'reorg');
  t.like(await read(), { status: 'Processing', additionalStatus: 'None' });
  await waitFor(async () => deliveries(s, id).filter((d) => d.body['type'] === 'InvoiceProcessing').length === 2, 20_000, 'a second InvoiceProcessing');

  // Half the amount is mined instead and settles: the invoice is partial, the session still completed.
  const coin = await gw.kernel.cradle.invoicesService.get(s.storeId, coinInvoice);
  await payInvoice(gw.kernel.cradle, s.storeId, coinInvoice, { amountUnits: BigInt(coin.amount_crypto_units) / 2n });
  await confirmInvoice(gw.kernel.cradle, s.storeId, coinInvoice);
  t.is((await gw.kernel.cradle.invoicesService.get(s.storeId, coinInvoice)).status, 'partial');
  t.is((await gw.kernel.cradle.sessionsCheckout.get(s.storeId, id)).status, 'completed');
  t.like(await read(), { status: 'Invalid', additionalStatus: 'PaidPartial' });
  const invalid = await received(s, id, 'InvoiceInvalid');
  isBtcpayEvent(t, s, invalid, id, 'order-reorg');
  t.is(invalid.body['manuallyMarked'], false);

  // Its deadline passes: still short, still Invalid.
  await expireInvoice(gw.kernel.cradle, s.storeId, coinInvoice);
  t.is((await gw.kernel.cradle.invoicesService.get(s.storeId, coinInvoice)).status, 'expired');
  t.like(await read(), { status: 'Invalid', additionalStatus: 'PaidPartial' });
  const listed = await greenfield(gw, s.token, 'GET', `/api/v1/stores/${s.storeId}/invoices?status=Settled`);
  t.false(
    listed.body.some((entry: { id: string }) => entry.id === id),
    'a short invoice is not listed as Settled',
  );
  await waitFor(
    async () =>
      (await gw.kernel.cradle.db('webhooks_events').where({ signer: 'btcpay', signer_ref: s.webhookId }).whereNot('status', 'delivered')).length === 0,
  );
  t.is(deliveries(s, id).filter((d) => d.body['type'] === 'InvoiceSettled').length, 1, 'never announced Settled again short');
  t.is(deliveries(s, id).filter((d) => d.body['type'] === 'InvoiceInvalid').length, 1);
});

test.serial('a mark checks the session as it is in its own transaction: a session completing meanwhile cannot be marked Invalid', async (t) => {
  const s = await shop(t);
  const id = await invoice(t, s, 'order-race');
  const coinInvoice = await pick(s, id);
  const trx = await gw.kernel.cradle.db.transaction();
  let marking: Promise<GreenfieldAnswer> | undefined;
  try {
    // The payment settles in a transaction still open: the session completes in it (and holds its lock).
    await payInvoice(gw.kernel.cradle, s.storeId, coinInvoice, {}, trx);
    await confirmInvoice(gw.kernel.cradle, s.storeId, coinInvoice, trx);
    marking = greenfield(gw, s.token, 'POST', `/api/v1/stores/${s.storeId}/invoices/${id}/status`, { status: 'Invalid' });
    // The mark waits for a lock the completing transaction holds; then the completion commits.
    await waitFor(
      async () =>
        ((await gw.kernel.cradle.db.raw("select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()"))
          .rows[0].n as number) > 0,
      20_000,
      'the mark waiting for the completion',
    );
    await trx.commit();
  } finally {
    if (!trx.isCompleted()) await trx.rollback();
  }
  const marked = await marking!;
  t.is(marked.status, 422, marked.text);
  const read = await greenfield(gw, s.token, 'GET', `/api/v1/stores/${s.storeId}/invoices/${id}`);
  t.like(read.body, { status: 'Settled', additionalStatus: 'None' });
});
