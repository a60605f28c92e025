import test, { type ExecutionContext } from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { assertGreenfieldAnswer } from './greenfield-document.js';
import { greenfield, issueKey, newOwner, productionStore, sandboxClient, startBtcpayKernel, type GreenfieldAnswer, type Owner } from './helpers.js';

let gw: TestKernel;
let owner: Owner;
let sandboxId: string;
let productionId: string;
test.before(async () => {
  gw = await startBtcpayKernel();
  owner = await newOwner(gw);
  sandboxId = (await sandboxClient(gw, undefined, owner.operatorId)).projectId;
  productionId = (await productionStore(gw, owner)).projectId;
});
test.after.always(async () => {
  await gw?.close();
});

/** A Greenfield call whose answer is checked against BTCPay's document before the test looks at it. */
async function call(
  t: ExecutionContext,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string | undefined>,
): Promise<GreenfieldAnswer> {
  const answer = await greenfield(gw, token, method, path, body, headers);
  assertGreenfieldAnswer(t, method, path.split('?')[0]!, answer);
  return answer;
}

test('server info answers any key with the version, every coin as a payment method id and a synchronised state; health needs no key', async (t) => {
  const { token } = await issueKey(gw, owner, [`btcpay.store.canviewinvoices:${sandboxId}`]);
  const info = await call(t, token, 'GET', '/api/v1/server/info');
  t.is(info.status, 200);
  t.is(info.body.version, '2.4.1');
  t.true(info.body.fullySynched);
  t.deepEqual(info.body.syncStatus, []);
  t.true(info.body.supportedPaymentMethods.includes('BTC-CHAIN'));
  t.true(info.body.supportedPaymentMethods.includes('ETH-CHAIN'));
  t.true(info.body.supportedPaymentMethods.includes('USDT_TRC20-CHAIN'));
  t.is(info.body.supportedPaymentMethods.length, gw.kernel.cradle.chains.coinIds().length);
  const health = await call(t, undefined, 'GET', '/api/v1/health');
  t.deepEqual([health.status, health.body], [200, { synchronized: true }]);
});

test('a missing, unknown or revoked key, and Basic auth, are 401 unauthenticated in BTCPay’s shape', async (t) => {
  const { token, keyId } = await issueKey(gw, owner, ['unrestricted']);
  const missing = await call(t, undefined, 'GET', '/api/v1/stores');
  t.deepEqual([missing.status, missing.body], [401, { code: 'unauthenticated', message: 'Authentication is required for accessing this endpoint' }]);
  const unknown = await call(t, 'f'.repeat(40), 'GET', '/api/v1/server/info');
  t.deepEqual([unknown.status, unknown.body], [401, { code: 'unauthenticated', message: 'ApiKey authentication failed: Unknown API Key' }]);
  const basic = await call(t, undefined, 'GET', '/api/v1/api-keys/current', undefined, {
    Authorization: `Basic ${Buffer.from('me@shop.example:secret').toString('base64')}`,
  });
  t.is(basic.status, 401);
  t.is(basic.body.code, 'unauthenticated');
  t.regex(basic.body.message, /Basic authentication is not supported/);
  const bearer = await call(t, undefined, 'GET', '/api/v1/api-keys/current', undefined, { Authorization: `Bearer ${token}` });
  t.is(bearer.status, 200);
  await gw.kernel.cradle.btcpayApiKeys.revoke(keyId, { actor: 'test', channel: 'cli' });
  const revoked = await call(t, token, 'GET', '/api/v1/api-keys/current');
  t.deepEqual([revoked.status, revoked.body.code], [401, 'unauthenticated']);
});

test('the current key answers its key, label and permissions, and DELETE revokes it (audited as the key, channel btcpay)', async (t) => {
  const permissions = [`btcpay.store.cancreateinvoice:${sandboxId}`, `btcpay.store.canviewinvoices:${sandboxId}`, 'btcpay.store.webhooks.canmodifywebhooks'];
  const { token, keyId } = await issueKey(gw, owner, permissions, 'My shop');
  const current = await call(t, token, 'GET', '/api/v1/api-keys/current');
  t.deepEqual([current.status, current.body], [200, { apiKey: token, label: 'My shop', permissions }]);
  const revoked = await call(t, token, 'DELETE', '/api/v1/api-keys/current');
  t.deepEqual([revoked.status, revoked.body], [200, { apiKey: token, label: 'My shop', permissions }]);
  t.is((await call(t, token, 'GET', '/api/v1/api-keys/current')).status, 401);
  const audit = await gw.kernel.cradle
    .db('kernel_audit_log')
    .where({ target: `btcpay_key:${keyId}`, action: 'btcpay_key.revoke' })
    .first();
  // The key reaches one store but also holds a permission for every store: no single project.
  t.like(audit, { actor: `btcpay_key:${keyId}`, channel: 'btcpay', project_id: null });
});

test('stores: the operator’s projects its key reaches, each as BTCPay’s StoreData; a store-bound key sees its store only', async (t) => {
  const other = await newOwner(gw);
  const theirs = await sandboxClient(gw, undefined, other.operatorId);
  const all = await issueKey(gw, owner, ['btcpay.store.canviewstoresettings']);
  const listed = await call(t, all.token, 'GET', '/api/v1/stores');
  t.is(listed.status, 200);
  t.deepEqual(listed.body.map((s: { id: string }) => s.id).sort(), [sandboxId, productionId].sort());
  t.false(listed.body.some((s: { id: string }) => s.id === theirs.projectId));
  const sandbox = listed.body.find((s: { id: string }) => s.id === sandboxId);
  t.like(sandbox, { id: sandboxId, defaultCurrency: 'USD', archived: false, lazyPaymentMethods: true, defaultPaymentMethod: 'BTC-CHAIN' });
  const production = listed.body.find((s: { id: string }) => s.id === productionId);
  t.false('defaultPaymentMethod' in production);

  const bound = await issueKey(gw, owner, [`btcpay.store.canmodifystoresettings:${productionId}`]);
  const boundList = await call(t, bound.token, 'GET', '/api/v1/stores');
  t.deepEqual(
    boundList.body.map((s: { id: string }) => s.id),
    [productionId],
  );
  const one = await call(t, bound.token, 'GET', `/api/v1/stores/${productionId}`);
  t.deepEqual([one.status, one.body.id, one.body.name], [200, productionId, production.name]);
});

test('wrong permissions, another store of the operator, another operator’s store and an unknown store are 403 missing-permission', async (t) => {
  const other = await newOwner(gw);
  const theirs = await sandboxClient(gw, undefined, other.operatorId);
  const invoicesOnly = await issueKey(gw, owner, ['btcpay.store.canviewinvoices', 'btcpay.store.cancreateinvoice']);
  const noView = await call(t, invoicesOnly.token, 'GET', '/api/v1/stores');
  t.deepEqual(
    [noView.status, noView.body],
    [
      403,
      {
        code: 'missing-permission',
        message:
          'Insufficient API Permissions. Please use an API key with permission "btcpay.store.canviewstoresettings". You can create an API key in your account\'s settings / Api Keys.',
        missingPermission: 'btcpay.store.canviewstoresettings',
      },
    ],
  );
  const bound = await issueKey(gw, owner, [`btcpay.store.canviewstoresettings:${sandboxId}`]);
  const unrestricted = await issueKey(gw, owner, ['unrestricted']);
  for (const [token, storeId] of [
    [bound.token, productionId],
    [unrestricted.token, theirs.projectId],
    [unrestricted.token, 'no-such-store'],
  ] as const) {
    for (const path of [`/api/v1/stores/${storeId}`, `/api/v1/stores/${storeId}/payment-methods`, `/api/v1/stores/${storeId}/payment-methods/BTC-CHAIN`]) {
      const refused = await call(t, token, 'GET', path);
      t.deepEqual([refused.status, refused.body.code, refused.body.missingPermission], [403, 'missing-permission', 'btcpay.store.canviewstoresettings'], path);
    }
  }
});

test('payment methods: the store’s coins with a verified wallet, by list and by id (BTCPay’s and legacy forms); config needs canmodifystoresettings', async (t) => {
  const viewer = await issueKey(gw, owner, [`btcpay.store.canviewstoresettings:${sandboxId}`]);
  const listed = await call(t, viewer.token, 'GET', `/api/v1/stores/${sandboxId}/payment-methods`);
  t.is(listed.status, 200);
  const ids = listed.body.map((m: { paymentMethodId: string }) => m.paymentMethodId);
  const expected = (await gw.kernel.cradle.btcpayStorePaymentMethods.of({ id: sandboxId, kind: 'sandbox' })).map((m) => m.paymentMethodId);
  t.deepEqual(ids, expected);
  t.true(ids.includes('BTC-CHAIN'));
  t.true(ids.includes('ETH-CHAIN'));
  t.true(listed.body.every((m: Record<string, unknown>) => m['enabled'] === true && !('config' in m)));
  t.deepEqual((await call(t, viewer.token, 'GET', `/api/v1/stores/${sandboxId}/payment-methods?onlyEnabled=true`)).body, listed.body);

  const none = await call(t, (await issueKey(gw, owner, ['btcpay.store.canviewstoresettings'])).token, 'GET', `/api/v1/stores/${productionId}/payment-methods`);
  t.deepEqual([none.status, none.body], [200, []]);

  for (const id of ['BTC-CHAIN', 'btc-chain', 'BTC', 'BTC-OnChain', 'BTC_OnChain']) {
    const one = await call(t, viewer.token, 'GET', `/api/v1/stores/${sandboxId}/payment-methods/${id}`);
    t.deepEqual([one.status, one.body], [200, { enabled: true, paymentMethodId: 'BTC-CHAIN' }], id);
  }
  const legacy = await greenfield(gw, viewer.token, 'GET', `/api/v1/stores/${sandboxId}/payment-methods/onchain/eth`);
  t.deepEqual([legacy.status, legacy.body], [200, { enabled: true, paymentMethodId: 'ETH-CHAIN' }]);
  for (const id of ['BTC-LN', 'BTC-LNURL', 'DOGE-CHAIN', 'OnChain']) {
    const missing = await call(t, viewer.token, 'GET', `/api/v1/stores/${sandboxId}/payment-methods/${id}`);
    t.deepEqual([missing.status, missing.body], [404, { code: 'paymentmethod-not-found', message: 'The payment method is not found' }], id);
  }

  const noConfig = await call(t, viewer.token, 'GET', `/api/v1/stores/${sandboxId}/payment-methods?includeConfig=true`);
  t.deepEqual([noConfig.status, noConfig.body.missingPermission], [403, 'btcpay.store.canmodifystoresettings']);
  const modifier = await issueKey(gw, owner, [`btcpay.store.canmodifystoresettings:${sandboxId}`]);
  const withConfig = await call(t, modifier.token, 'GET', `/api/v1/stores/${sandboxId}/payment-methods?includeConfig=true`);
  t.is(withConfig.status, 200);
  const wallets = await gw.kernel.cradle.walletsWallets.listVerified({ projectId: sandboxId });
  const btc = withConfig.body.find((m: { paymentMethodId: string }) => m.paymentMethodId === 'BTC-CHAIN');
  t.deepEqual(btc.config, { derivationScheme: wallets.find((w) => w.chain === 'btc')!.key.input, label: null, accountKeyPath: null });
});

test('errors under the prefix are BTCPay’s: an unknown path or method, a bad query value, a body where none is taken, not JSON, not JSON at all, too large', async (t) => {
  const { token } = await issueKey(gw, owner, ['unrestricted']);
  const unknown = await greenfield(gw, token, 'GET', '/api/v1/no-such-thing');
  t.deepEqual([unknown.status, unknown.body.code], [404, 'not-found']);
  const method = await greenfield(gw, token, 'PATCH', '/api/v1/stores');
  t.deepEqual([method.status, method.body.code], [405, 'method-not-allowed']);
  const badQuery = await call(t, token, 'GET', `/api/v1/stores/${sandboxId}/payment-methods?includeConfig=maybe`);
  t.is(badQuery.status, 422);
  t.deepEqual(
    badQuery.body.map((issue: { path: string }) => issue.path),
    ['includeConfig'],
  );
  const notJson = await greenfield(gw, token, 'DELETE', '/api/v1/api-keys/current', '{not json');
  t.is(notJson.status, 422);
  t.true(Array.isArray(notJson.body));
  const unexpected = await greenfield(gw, token, 'DELETE', '/api/v1/api-keys/current', { label: 'x' });
  t.deepEqual([unexpected.status, unexpected.body], [422, [{ path: '', message: 'This endpoint takes no request body.' }]]);
  const media = await greenfield(gw, token, 'DELETE', '/api/v1/api-keys/current', 'label=x', { 'Content-Type': 'text/plain' });
  t.deepEqual([media.status, media.body.code], [415, 'unsupported-media-type']);
  const large = await greenfield(gw, token, 'DELETE', '/api/v1/api-keys/current', { label: 'x'.repeat(2_000_000) });
  t.deepEqual([large.status, large.body.code], [413, 'payload-too-large']);
  t.is((await greenfield(gw, token, 'GET', '/api/v1/api-keys/current')).status, 200);
});
