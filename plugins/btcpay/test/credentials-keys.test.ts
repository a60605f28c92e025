import test from 'ava';
import { CLI_ACTOR, type AuditRecord } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { issueKey, newOwner, productionStore, sandboxClient, startBtcpayKernel, type Owner } from './helpers.js';

let gw: TestKernel;
test.before(async () => {
  gw = await startBtcpayKernel();
});
test.after.always(async () => {
  await gw?.close();
});

const keys = () => gw.kernel.cradle.btcpayApiKeys;

async function auditOf(target: string): Promise<Pick<AuditRecord, 'action' | 'actor' | 'channel' | 'project_id' | 'details'>[]> {
  return gw.kernel.cradle.db('kernel_audit_log').where({ target }).orderBy('id').select('action', 'actor', 'channel', 'project_id', 'details');
}

test('a key is shown once, stored only as its SHA-256 with a hint, and authenticates its operator with its permissions', async (t) => {
  const owner = await newOwner(gw);
  const store = await sandboxClient(gw, undefined, owner.operatorId);
  const { key, token } = await keys().create(
    {
      operatorId: owner.operatorId,
      userId: owner.userId,
      label: '  WooCommerce shop  ',
      permissions: ['BTCPay.Store.CanCreateInvoice:' + store.projectId, 'btcpay.store.canviewinvoices', 'btcpay.store.canviewinvoices'],
      applicationIdentifier: 'woocommerce',
    },
    CLI_ACTOR,
  );
  t.regex(token, /^[0-9a-f]{40}$/);
  t.is(key.token_hint, token.slice(-4));
  t.is(key.label, 'WooCommerce shop');
  t.deepEqual(key.permissions, [`btcpay.store.cancreateinvoice:${store.projectId}`, 'btcpay.store.canviewinvoices']);
  const [row] = await gw.kernel.cradle.db('btcpay_api_keys').where({ id: key.id });
  t.not(row.token_hash, token);
  t.false(JSON.stringify(row).includes(token));
  t.deepEqual(await keys().authenticate(token), {
    keyId: key.id,
    operatorId: owner.operatorId,
    userId: owner.userId,
    label: 'WooCommerce shop',
    permissions: key.permissions,
  });
  t.is(await keys().authenticate(token.slice(0, -1) + (token.endsWith('0') ? '1' : '0')), undefined);
  const audit = await auditOf(`btcpay_key:${key.id}`);
  t.is(audit.length, 1);
  t.like(audit[0], { action: 'btcpay_key.create', actor: 'operator-cli', channel: 'cli', project_id: null });
  t.false(JSON.stringify(audit).includes(token));
});

test('last_used_at is recorded on use, at most once a minute', async (t) => {
  const owner = await newOwner(gw);
  const { token, keyId } = await issueKey(gw, owner, ['unrestricted']);
  t.is((await keys().get(keyId, owner.operatorId)).last_used_at_iso, null);
  await keys().authenticate(token);
  const first = (await keys().get(keyId, owner.operatorId)).last_used_at_iso;
  t.truthy(first);
  await keys().authenticate(token);
  t.is((await keys().get(keyId, owner.operatorId)).last_used_at_iso, first);
  await gw.kernel.cradle
    .db('btcpay_api_keys')
    .where({ id: keyId })
    .update({ last_used_at: gw.kernel.cradle.db.raw(`now() - interval '2 minutes'`) });
  await keys().authenticate(token);
  t.not((await keys().get(keyId, owner.operatorId)).last_used_at_iso, first);
});

test('permissions are checked: unknown ones, a store of another operator, a bound server permission and none at all are refused', async (t) => {
  const owner = await newOwner(gw);
  const other = await newOwner(gw);
  const theirs = await productionStore(gw, other);
  for (const permissions of [
    ['btcpay.store.cancreateinvoices'],
    [`btcpay.store.cancreateinvoice:${theirs.projectId}`],
    ['btcpay.server.canmanageusers:x'],
    [],
  ]) {
    const error = await t.throwsAsync(keys().create({ operatorId: owner.operatorId, userId: owner.userId, label: 'x', permissions }, CLI_ACTOR));
    t.like(error, { code: 'btcpay_validation_failed', status: 422 }, JSON.stringify(permissions));
  }
  t.deepEqual(await keys().list(owner.operatorId), []);
});

test('operators list and revoke only their own keys; a revoked key no longer authenticates; revocations are audited', async (t) => {
  const owner = await newOwner(gw);
  const other = await newOwner(gw);
  const first = await issueKey(gw, owner, ['btcpay.store.canviewstoresettings'], 'first');
  const second = await issueKey(gw, owner, ['btcpay.store.canviewstoresettings'], 'second');
  const theirs = await issueKey(gw, other, ['unrestricted'], 'theirs');
  t.deepEqual(
    (await keys().list(owner.operatorId)).map((k) => k.label),
    ['second', 'first'],
  );
  await t.throwsAsync(keys().revoke(theirs.keyId, CLI_ACTOR, { operatorId: owner.operatorId }), { message: 'The API key was not found.' });
  t.truthy(await keys().authenticate(theirs.token));
  const revoked = await keys().revoke(first.keyId, { actor: 'user:x', channel: 'dashboard' }, { operatorId: owner.operatorId });
  t.truthy(revoked.revoked_at_iso);
  t.is(revoked.revoked_by, 'user:x');
  t.is(await keys().authenticate(first.token), undefined);
  t.truthy(await keys().authenticate(second.token));
  const principal = (await keys().authenticate(second.token))!;
  await keys().revokeCurrent(principal, { actor: `btcpay_key:${second.keyId}`, channel: 'btcpay' });
  t.is(await keys().authenticate(second.token), undefined);
  t.deepEqual(
    (await auditOf(`btcpay_key:${second.keyId}`)).map((r) => [r.action, r.actor, r.channel]),
    [
      ['btcpay_key.create', 'operator-cli', 'cli'],
      ['btcpay_key.revoke', `btcpay_key:${second.keyId}`, 'btcpay'],
    ],
  );
});

test('disabling the user who approved a key revokes it, each key audited with the reason in the same transaction; ending their sessions does not', async (t) => {
  const { tenancyUsers, db } = gw.kernel.cradle;
  const owner = await newOwner(gw);
  const approver = await tenancyUsers.invite(
    { email: `approver-${owner.operatorId.toLowerCase()}@shop.example`, operator: owner.operatorId, role: 'admin' },
    CLI_ACTOR,
  );
  const theirs: Owner = { operatorId: owner.operatorId, userId: approver.id, email: approver.email };
  const store = await productionStore(gw, owner);
  const bound = await issueKey(gw, theirs, [`btcpay.store.canviewinvoices:${store.projectId}`], 'bound');
  const everything = await issueKey(gw, theirs, ['unrestricted'], 'everything');
  const earlier = await issueKey(gw, theirs, ['unrestricted'], 'earlier');
  await keys().revoke(earlier.keyId, { actor: 'user:x', channel: 'dashboard' });
  const ownersKey = await issueKey(gw, owner, ['unrestricted'], 'owner');

  await tenancyUsers.endSessions(approver.id, CLI_ACTOR);
  t.truthy(await keys().authenticate(bound.token), 'ending sessions leaves keys alone');

  // Rolled back with the transaction it ran in: neither the revocation nor its audit row remains.
  await t.throwsAsync(
    db.transaction(async (trx) => {
      t.is(await keys().endForUser(approver.id, 'everything', trx), 2);
      throw new Error('rolled back');
    }),
    { message: 'rolled back' },
  );
  t.truthy(await keys().authenticate(bound.token));
  t.deepEqual(
    (await auditOf(`btcpay_key:${bound.keyId}`)).map((r) => r.action),
    ['btcpay_key.create'],
  );

  const disabled = await tenancyUsers.disable(approver.id, CLI_ACTOR);
  t.is(disabled.ended['btcpay_api_keys'], 2);
  t.is(await keys().authenticate(bound.token), undefined);
  t.is(await keys().authenticate(everything.token), undefined);
  t.truthy(await keys().authenticate(ownersKey.token), "another user's key stays");
  t.is((await keys().get(bound.keyId, owner.operatorId)).revoked_by, 'system');
  const revokedBySystem = (target: string) => auditOf(target).then((rows) => rows.filter((r) => r.action === 'btcpay_key.revoke'));
  t.deepEqual(await revokedBySystem(`btcpay_key:${bound.keyId}`), [
    {
      action: 'btcpay_key.revoke',
      actor: 'system',
      channel: 'system',
      project_id: store.projectId,
      details: { label: 'bound', reason: 'user_disabled', user_id: approver.id },
    },
  ]);
  t.deepEqual(
    (await revokedBySystem(`btcpay_key:${everything.keyId}`)).map((r) => [r.actor, r.project_id, r.details]),
    [['system', null, { label: 'everything', reason: 'user_disabled', user_id: approver.id }]],
  );
  t.deepEqual(
    (await revokedBySystem(`btcpay_key:${earlier.keyId}`)).map((r) => r.actor),
    ['user:x'],
    'a key revoked before is not revoked (nor audited) again',
  );
});
