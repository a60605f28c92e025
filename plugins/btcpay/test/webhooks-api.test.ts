/**
 * Greenfield's webhook calls (issue 39): create (the secret answered once, generated when not
 * given), get, list, replace (the secret kept unless given), delete, under the store and under the
 * webhook alone; bad input in BTCPay's 422 list; the permission and another operator's store; the
 * secret sealed at rest; every write audited. Each answer is checked against BTCPay's document.
 */
import test, { type ExecutionContext } from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { assertGreenfieldAnswer, greenfieldDocument } from './greenfield-document.js';
import { greenfield, issueKey, newOwner, productionStore, sandboxClient, startBtcpayKernel, type GreenfieldAnswer, type Owner } from './helpers.js';

const MODIFY = 'btcpay.store.webhooks.canmodifywebhooks';
const EVENTS = ['InvoiceReceivedPayment', 'InvoicePaymentSettled', 'InvoiceProcessing', 'InvoiceExpired', 'InvoiceSettled', 'InvoiceInvalid'];

let gw: TestKernel;
let owner: Owner;
let storeId: string;
let token: string;
test.before(async () => {
  gw = await startBtcpayKernel();
  owner = await newOwner(gw);
  storeId = (await sandboxClient(gw, undefined, owner.operatorId)).projectId;
  token = (await issueKey(gw, owner, [`${MODIFY}:${storeId}`])).token;
});
test.after.always(async () => {
  await gw?.close();
});

/** A Greenfield call; its answer is checked against BTCPay's document where the document has the operation. */
async function call(t: ExecutionContext, method: string, path: string, body?: unknown, key: string | undefined = token): Promise<GreenfieldAnswer> {
  const answer = await greenfield(gw, key, method, path, body);
  if (greenfieldDocument().operation(method, path)) assertGreenfieldAnswer(t, method, path, answer);
  return answer;
}

/** A webhook answer (`WebhookData`, `WebhookDataCreateResult`) is valid against BTCPay's schema. */
function isWebhookData(t: ExecutionContext, body: unknown, schema = 'WebhookData'): void {
  t.deepEqual(greenfieldDocument().schemaProblems(schema, body), [], JSON.stringify(body));
}

/** The webhooks path of a store. */
const under = (store: string) => `/api/v1/stores/${store}/webhooks`;

test('create answers the webhook with its generated secret once; get, list and the webhook-alone path answer it without', async (t) => {
  const created = await call(t, 'POST', under(storeId), {
    url: 'https://shop.example/?wc-api=btcpaygf_default',
    authorizedEvents: { everything: false, specificEvents: EVENTS },
  });
  t.is(created.status, 200, created.text);
  isWebhookData(t, created.body, 'WebhookDataCreateResult');
  t.like(created.body, {
    enabled: true,
    automaticRedelivery: true,
    url: 'https://shop.example/?wc-api=btcpaygf_default',
    authorizedEvents: { everything: false, specificEvents: EVENTS },
  });
  t.regex(created.body.secret, /^[A-Za-z0-9_-]{22}$/);
  const id = created.body.id as string;
  const { secret, ...data } = created.body;
  t.truthy(secret);

  const got = await call(t, 'GET', `${under(storeId)}/${id}`);
  t.deepEqual([got.status, got.body], [200, data]);
  isWebhookData(t, got.body);
  t.false('secret' in got.body);
  const alone = await call(t, 'GET', `/api/v1/webhooks/${id}`);
  t.deepEqual([alone.status, alone.body], [200, data]);
  const listed = await call(t, 'GET', under(storeId));
  t.is(listed.status, 200);
  t.deepEqual(
    listed.body.find((w: { id: string }) => w.id === id),
    data,
  );

  // Sealed at rest, bound to its row; the audit names the webhook, never the secret.
  const row = await gw.kernel.cradle.db('btcpay_webhooks').where({ id }).first();
  t.not(row.sealed_secret, secret);
  t.false(row.sealed_secret.includes(secret));
  t.is(gw.kernel.cradle.secretBox.open(row.sealed_secret, `btcpay_webhooks:${id}`), secret);
  const audit = await gw.kernel.cradle
    .db('kernel_audit_log')
    .where({ target: `btcpay_webhook:${id}`, action: 'btcpay_webhook.create' })
    .first();
  t.like(audit, { channel: 'btcpay', project_id: storeId });
  t.false(JSON.stringify(audit.details).includes(secret));
});

test('a given secret is kept; defaults are BTCPay’s (enabled, automatic redelivery, every event)', async (t) => {
  const created = await call(t, 'POST', under(storeId), { url: 'https://shop.example/hook', secret: 'my own long secret' });
  t.is(created.status, 200);
  t.like(created.body, { enabled: true, automaticRedelivery: true, authorizedEvents: { everything: true, specificEvents: [] }, secret: 'my own long secret' });
});

test('PUT replaces the webhook (left-out fields take their defaults) and keeps the secret unless one is given; DELETE removes it', async (t) => {
  const created = await call(t, 'POST', under(storeId), { url: 'https://shop.example/a', secret: 'first secret', enabled: false, automaticRedelivery: false });
  const id = created.body.id as string;
  const secretOf = async () =>
    gw.kernel.cradle.secretBox.open((await gw.kernel.cradle.db('btcpay_webhooks').where({ id }).first()).sealed_secret, `btcpay_webhooks:${id}`);

  const replaced = await call(t, 'PUT', `${under(storeId)}/${id}`, {
    url: 'https://shop.example/b',
    authorizedEvents: { everything: false, specificEvents: ['InvoiceSettled'] },
  });
  t.is(replaced.status, 200, replaced.text);
  isWebhookData(t, replaced.body);
  t.deepEqual(replaced.body, {
    id,
    enabled: true,
    automaticRedelivery: true,
    url: 'https://shop.example/b',
    authorizedEvents: { everything: false, specificEvents: ['InvoiceSettled'] },
  });
  t.is(await secretOf(), 'first secret');

  const again = await call(t, 'PUT', `/api/v1/webhooks/${id}`, { url: 'https://shop.example/c', secret: 'second secret', enabled: false });
  t.is(again.status, 200);
  t.like(again.body, { id, enabled: false, url: 'https://shop.example/c' });
  t.false('secret' in again.body);
  t.is(await secretOf(), 'second secret');
  t.is((await gw.kernel.cradle.db('kernel_audit_log').where({ target: `btcpay_webhook:${id}`, action: 'btcpay_webhook.update' })).length, 2);

  const deleted = await call(t, 'DELETE', `${under(storeId)}/${id}`);
  t.deepEqual([deleted.status, deleted.text], [200, '']);
  const gone = await call(t, 'GET', `${under(storeId)}/${id}`);
  t.deepEqual([gone.status, gone.body], [404, { code: 'webhook-not-found', message: 'The webhook was not found.' }]);
  t.is((await call(t, 'DELETE', `/api/v1/webhooks/${id}`)).status, 404);
  t.is((await call(t, 'PUT', `${under(storeId)}/${id}`, { url: 'https://shop.example/d' })).status, 404);
  t.truthy(
    await gw.kernel.cradle
      .db('kernel_audit_log')
      .where({ target: `btcpay_webhook:${id}`, action: 'btcpay_webhook.delete' })
      .first(),
  );
});

test('bad input is BTCPay’s 422 list, nothing written: no or a relative URL, wrong types, a production store’s http URL', async (t) => {
  // A store of its own: the other tests write webhooks concurrently.
  const store = (await sandboxClient(gw, undefined, owner.operatorId)).projectId;
  const own = (await issueKey(gw, owner, [`${MODIFY}:${store}`])).token;
  const refused = async (body: unknown, paths: string[]) => {
    const res = await call(t, 'POST', under(store), body, own);
    t.is(res.status, 422, res.text);
    t.deepEqual(
      (res.body as { path: string }[]).map((issue) => issue.path),
      paths,
      res.text,
    );
    return res.body as { path: string; message: string }[];
  };
  t.is((await refused({}, ['url']))[0]!.message, 'Invalid Url');
  await refused({ url: '/relative/hook' }, ['url']);
  await refused({ url: 'https://shop.example/h', enabled: 'yes', automaticRedelivery: 1 }, ['enabled', 'automaticRedelivery']);
  await refused({ url: 'https://shop.example/h', authorizedEvents: { everything: false, specificEvents: 'InvoiceSettled' } }, [
    'authorizedEvents.specificEvents',
  ]);
  await refused({ url: 'https://shop.example/h', secret: 42 }, ['secret']);
  await refused({ url: 'https://user:pw@shop.example/h' }, ['url']);
  await refused([{ url: 'https://shop.example/h' }], ['']);
  const notJson = await greenfield(gw, own, 'POST', under(store), '{"url":');
  t.is(notJson.status, 422);
  t.deepEqual(await gw.kernel.cradle.db('btcpay_webhooks').where({ project_id: store }), []);

  const production = (await productionStore(gw, owner)).projectId;
  const key = (await issueKey(gw, owner, [`${MODIFY}:${production}`])).token;
  const http = await call(t, 'POST', under(production), { url: 'http://shop.example/hook' }, key);
  t.is(http.status, 422);
  t.is(http.body[0].path, 'url');
  t.regex(http.body[0].message, /https/);
});

test('the permission is needed on the store; another operator’s store and webhook are out of reach', async (t) => {
  const created = await call(t, 'POST', under(storeId), { url: 'https://shop.example/mine' });
  const id = created.body.id as string;
  const viewer = (await issueKey(gw, owner, [`btcpay.store.canviewinvoices:${storeId}`])).token;
  const denied = await call(t, 'GET', under(storeId), undefined, viewer);
  t.is(denied.status, 403);
  t.like(denied.body, { code: 'missing-permission', missingPermission: MODIFY });
  t.is((await call(t, 'POST', under(storeId), { url: 'https://shop.example/x' }, viewer)).status, 403);
  // The store-wide permission of the whole store settings includes it.
  const admin = (await issueKey(gw, owner, [`btcpay.store.canmodifystoresettings:${storeId}`])).token;
  t.is((await call(t, 'GET', `${under(storeId)}/${id}`, undefined, admin)).status, 200);

  const stranger = await newOwner(gw);
  const theirs = (await issueKey(gw, stranger, [MODIFY])).token;
  t.is((await call(t, 'GET', under(storeId), undefined, theirs)).status, 403);
  t.is((await call(t, 'GET', `${under(storeId)}/${id}`, undefined, theirs)).status, 403);
  const alone = await call(t, 'GET', `/api/v1/webhooks/${id}`, undefined, theirs);
  t.deepEqual([alone.status, alone.body.code], [404, 'webhook-not-found']);
  t.is((await call(t, 'DELETE', `/api/v1/webhooks/${id}`, undefined, theirs)).status, 404);
  // A webhook id of another store of the same key: not found there.
  const other = (await sandboxClient(gw, undefined, owner.operatorId)).projectId;
  const both = (await issueKey(gw, owner, [MODIFY])).token;
  t.is((await call(t, 'GET', `${under(other)}/${id}`, undefined, both)).status, 404);
  t.is((await call(t, 'GET', `${under(storeId)}/not-a-webhook`, undefined, both)).status, 404);
});

test('the deliveries of an unknown webhook and an unknown delivery are 404 in BTCPay’s codes; count must be a number', async (t) => {
  const created = await call(t, 'POST', under(storeId), { url: 'https://shop.example/deliveries' });
  const id = created.body.id as string;
  const none = await call(t, 'GET', `${under(storeId)}/${id}/deliveries`);
  t.deepEqual([none.status, none.body], [200, []]);
  const unknown = await call(t, 'GET', `/api/v1/webhooks/${id}/deliveries/01ARZ3NDEKTSV4RRFFQ69G5FAV`);
  t.deepEqual([unknown.status, unknown.body.code], [404, 'webhookdelivery-not-found']);
  t.is((await call(t, 'POST', `${under(storeId)}/${id}/deliveries/01ARZ3NDEKTSV4RRFFQ69G5FAV/redeliver`)).status, 404);
  t.is((await call(t, 'GET', `${under(storeId)}/${id}/deliveries?count=lots`)).status, 422);
  t.is((await call(t, 'GET', `${under(storeId)}/01ARZ3NDEKTSV4RRFFQ69G5FAV/deliveries`)).body.code, 'webhook-not-found');
});
