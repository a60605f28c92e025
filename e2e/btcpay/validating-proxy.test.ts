/**
 * The validating proxy and its checks against BTCPay's published document, in front of a local
 * server that answers as told: answers shaped as BTCPay's pass, each kind of difference is recorded,
 * and the exchange itself (method, headers, body, status, redirects) passes through unchanged.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { GreenfieldValidator } from './greenfield-validator.js';
import { startValidatingProxy, type ValidatingProxy } from './validating-proxy.js';

const validator = new GreenfieldValidator();

/** What the upstream answers next: status, content type, body. */
type Scripted = { status: number; type?: string; body?: string; headers?: Record<string, string> };
let next: Scripted = { status: 200 };
let received: { method: string; url: string; headers: IncomingMessage['headers']; body: string } | undefined;
let upstream: Server;
let proxy: ValidatingProxy;

test.before(async () => {
  upstream = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      res.writeHead(next.status, { ...(next.type ? { 'content-type': next.type } : {}), ...next.headers }).end(next.body ?? '');
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  proxy = await startValidatingProxy({ upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, validator });
});
test.after.always(async () => {
  await proxy?.close();
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
});

/** Sends one request through the proxy with `answer` scripted; the violations it added. */
async function exchange(method: string, path: string, answer: Scripted, body?: string): Promise<{ status: number; text: string; violations: string[] }> {
  next = answer;
  const before = proxy.violations.length;
  const res = await fetch(`${proxy.url}${path}`, {
    method,
    redirect: 'manual',
    headers: { authorization: 'token k', ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body } : {}),
  });
  const text = await res.text();
  return { status: res.status, text, violations: proxy.violations.slice(before).map((v) => v.problem) };
}

const json = (value: unknown): Scripted => ({ status: 200, type: 'application/json; charset=utf-8', body: JSON.stringify(value) });
const INVOICE = {
  id: 'HMprBnL9BTXWuPvpoKBS6e',
  storeId: 'store1',
  amount: '23.50',
  paidAmount: '0',
  currency: 'EUR',
  type: 'Standard',
  checkoutLink: 'https://pay.example/s/abc',
  createdTime: 1592312018,
  expirationTime: 1592312918,
  monitoringExpiration: 1592398418,
  status: 'New',
  additionalStatus: 'None',
  availableStatusesForManualMarking: ['Settled', 'Invalid'],
  archived: false,
  metadata: { orderId: '42' },
  checkout: { speedPolicy: null, paymentMethods: ['BTC-CHAIN'], expirationMinutes: 15, redirectURL: 'https://shop.example/done' },
};

test.serial('an answer as BTCPay gives it passes, on the store-scoped path the PHP client calls', async (t) => {
  const r = await exchange('GET', '/btcpay/api/v1/stores/store1/invoices/HMprBnL9BTXWuPvpoKBS6e', json(INVOICE));
  t.deepEqual(r.violations, []);
  t.is(r.status, 200);
  t.deepEqual(JSON.parse(r.text), INVOICE);
  t.is(proxy.exchanges.at(-1)?.operation, 'GET /api/v1/invoices/{invoiceId}');
});

test.serial('the request reaches the gateway unchanged and a redirect is passed back, not followed', async (t) => {
  const body = JSON.stringify({ amount: '23.50', currency: 'EUR', metadata: { orderId: '42' } });
  const r = await exchange('POST', '/btcpay/api/v1/stores/store1/invoices?x=1', json(INVOICE), body);
  t.deepEqual(r.violations, []);
  t.like(received, { method: 'POST', url: '/btcpay/api/v1/stores/store1/invoices?x=1', body });
  t.is(received?.headers['authorization'], 'token k');
  const redirect = await exchange('GET', '/btcpay/api-keys/authorize?permissions=x', { status: 303, headers: { location: '/dashboard/sign-in' } });
  t.is(redirect.status, 303);
  t.deepEqual(redirect.violations, [], 'a signed-out browser is sent to sign in');
  t.regex((await exchange('GET', '/btcpay/api/v1/stores', { status: 303, headers: { location: '/x' } })).violations.join(), /status 303 is not one/);
});

test.serial('a field of the wrong type or format, a status outside the enum, is a violation naming the field', async (t) => {
  const r = await exchange('GET', '/btcpay/api/v1/stores/store1/invoices/x', json({ ...INVOICE, createdTime: '1592312018', status: 'paid', amount: 23.5 }));
  t.true(r.violations.some((v) => v.includes('/createdTime')));
  t.true(r.violations.some((v) => v.includes('/status')));
  t.true(r.violations.some((v) => v.includes('/amount')));
});

test.serial('a status the operation does not answer, and any 5xx, are violations', async (t) => {
  t.regex((await exchange('POST', '/btcpay/api/v1/stores/s/invoices', { ...json(INVOICE), status: 201 }, '{}')).violations.join(), /status 201 is not one/);
  t.regex(
    (await exchange('GET', '/btcpay/api/v1/server/info', { status: 500, type: 'application/json', body: '{"code":"x","message":"y"}' })).violations.join(),
    /5xx/,
  );
});

test.serial("errors must be BTCPay's shapes: { code, message }, a 422 list of { path, message }, missingPermission on a 403", async (t) => {
  const envelope = { status: 404, type: 'application/json', body: JSON.stringify({ error: { code: 'invoice_not_found', message: 'no' } }) };
  t.regex((await exchange('GET', '/btcpay/api/v1/stores/s/invoices/x', envelope)).violations.join(), /error shape/);
  const notFound = { status: 404, type: 'application/json', body: JSON.stringify({ code: 'invoice-not-found', message: 'The invoice was not found' }) };
  t.deepEqual((await exchange('GET', '/btcpay/api/v1/stores/s/invoices/x', notFound)).violations, []);
  const list = { status: 422, type: 'application/json', body: JSON.stringify([{ path: 'amount', message: 'Amount should be positive' }]) };
  t.deepEqual((await exchange('POST', '/btcpay/api/v1/stores/s/invoices', list, '{}')).violations, []);
  const notList = { status: 422, type: 'application/json', body: JSON.stringify({ code: 'validation', message: 'bad' }) };
  t.regex((await exchange('POST', '/btcpay/api/v1/stores/s/invoices', notList, '{}')).violations.join(), /validation error list/);
  const forbidden = { status: 403, type: 'application/json', body: JSON.stringify({ code: 'missing-permission', message: 'no' }) };
  t.regex((await exchange('GET', '/btcpay/api/v1/stores/s/invoices/x', forbidden)).violations.join(), /missingPermission/);
  const html = { status: 404, type: 'text/html', body: '<p>not found</p>' };
  t.regex((await exchange('GET', '/btcpay/api/v1/stores/s/invoices/x', html)).violations.join(), /application\/json/);
});

test.serial('a path that is no operation of the document is a violation; answers outside the prefix are not checked', async (t) => {
  t.regex((await exchange('GET', '/btcpay/api/v1/invoices-of-mine', json({}))).violations.join(), /no operation/);
  t.deepEqual((await exchange('GET', '/s/some-session', { status: 200, type: 'text/html', body: '<html></html>' })).violations, []);
});

test.serial("webhook events are checked against the document's x-webhooks", (t) => {
  const event = {
    deliveryId: 'd1',
    webhookId: 'w1',
    originalDeliveryId: 'd1',
    isRedelivery: false,
    type: 'InvoiceSettled',
    timestamp: 1592312018,
    storeId: 's',
    invoiceId: 'i',
    metadata: { orderId: '42' },
    manuallyMarked: false,
    overPaid: false,
  };
  t.deepEqual(validator.checkWebhookEvent(JSON.stringify(event)), []);
  t.regex(validator.checkWebhookEvent(JSON.stringify({ ...event, overPaid: 'no' })).join(), /overPaid/);
  t.regex(validator.checkWebhookEvent(JSON.stringify({ ...event, type: 'invoice.paid' })).join(), /not one of BTCPay's/);
});
