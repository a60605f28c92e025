import test from 'ava';
import { CLI_ACTOR, createSecretBox } from '@gw/kernel';

/** startTestKernel's fixed master key. */
const TEST_MASTER_KEY = '0f'.repeat(32);
import { startTestKernel, signedFetch, type TestKernel } from '@gw/kernel/testing';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { probePlugin, probeRuns } from './probe-plugin.js';
import { cliRunner, pathnameSignedFetch } from '@gw/testing';

let gw: TestKernel;
let operatorId: string;
test.before(async () => {
  gw = await startTestKernel({ plugins: [tenancyPlugin, probePlugin], config: { 'security.keyRotationOverlapSeconds': 600 } });
  operatorId = (await gw.kernel.cradle.tenancyOperators.create('main', CLI_ACTOR)).id;
});
test.after.always(async () => {
  await gw?.close();
});

async function newProject(kind: 'production' | 'testnet' | 'sandbox', name = `p-${Math.random().toString(36).slice(2)}`) {
  const created = await gw.kernel.cradle.tenancyProjects.create({ name, kind, operator: operatorId }, CLI_ACTOR);
  return { projectId: created.project.id, secret: created.credentials.api_secret, operatorId: created.project.operator_id };
}

test('a correctly signed request authenticates as its project', async (t) => {
  const p = await newProject('testnet');
  const res = await signedFetch(gw.url, '/api/v1/project', p);
  t.is(res.status, 200);
  t.is(res.body.id, p.projectId);
  t.is(res.body.kind, 'testnet');
  t.truthy(res.headers.get('x-request-id'));
});

test('secrets have the spec forms and are encrypted at rest', async (t) => {
  const prod = await newProject('production');
  const sandbox = await newProject('sandbox');
  t.regex(prod.secret, /^[0-9a-f]{64}$/);
  t.regex(sandbox.secret, /^sk_sandbox_[0-9a-f]{48}$/);
  // Encrypted, not encoded: each stored row is AES-256-GCM under the master key (bound to its row
  // id), opens to the secret with that key only, and fails when altered. Mutation checked: with
  // seal() storing base64 of the plaintext in the same v1 layout, this fails (the plaintext was
  // never a substring, so the old check passed).
  const box = createSecretBox(TEST_MASTER_KEY);
  const other = createSecretBox('ab'.repeat(32));
  for (const project of [prod, sandbox]) {
    const rows: { id: string; sealed_secret: string }[] = await gw.kernel.cradle
      .db('tenancy_api_key_secrets as s')
      .join('tenancy_api_keys as k', 'k.id', 's.api_key_id')
      .where('k.project_id', project.projectId)
      .select('s.id', 's.sealed_secret');
    t.is(rows.length, 1);
    const { id, sealed_secret: sealed } = rows[0]!;
    t.regex(sealed, /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    for (const encoding of ['hex', 'base64', 'base64url', 'latin1'] as const)
      t.false(sealed.includes(Buffer.from(project.secret).toString(encoding)), encoding);
    t.is(box.open(sealed, id), project.secret);
    t.throws(() => other.open(sealed, id), undefined, 'opens under another master key');
    t.throws(() => box.open(sealed, `${id}x`), undefined, 'opens for another row');
    const data = sealed.split('.')[3]!;
    const flipped = `${data[0] === 'A' ? 'B' : 'A'}${data.slice(1)}`;
    t.throws(() => box.open(sealed.replace(`.${data}`, `.${flipped}`), id), undefined, 'an altered ciphertext opens');
  }
});

test('missing or malformed headers are auth_invalid', async (t) => {
  const p = await newProject('testnet');
  for (const headers of [
    { 'X-Project-Id': undefined },
    { 'X-Timestamp': undefined },
    { 'X-Signature': undefined },
    { 'X-Project-Id': 'not-a-ulid' },
    { 'X-Timestamp': '12.5' },
    { 'X-Timestamp': '-5' },
    { 'X-Signature': 'zz' },
  ]) {
    const res = await signedFetch(gw.url, '/api/v1/project', { ...p, headers });
    t.is(res.status, 401, JSON.stringify(headers));
    t.is(res.body.error_code, 'auth_invalid');
    t.is(typeof res.body.request_id, 'string');
  }
});

test('an unknown project is auth_invalid', async (t) => {
  const res = await signedFetch(gw.url, '/api/v1/project', { projectId: '01ARZ3NDEKTSV4RRFFQ69G5FAV', secret: 'a'.repeat(64) });
  t.is(res.status, 401);
  t.is(res.body.error_code, 'auth_invalid');
});

test('a wrong secret, a tampered body, method or path are signature_invalid', async (t) => {
  const p = await newProject('testnet');
  const wrongSecret = await signedFetch(gw.url, '/api/v1/project', { ...p, secret: 'b'.repeat(64) });
  t.is(wrongSecret.status, 401);
  t.is(wrongSecret.body.error_code, 'signature_invalid');

  // Signature made for another path is replayed here.
  const ts = Math.floor(Date.now() / 1000);
  const { signRequest } = await import('@gw/kernel');
  const forOtherPath = signRequest({ secret: p.secret, method: 'GET', target: '/api/v1/other', timestamp: ts });
  const replayed = await signedFetch(gw.url, '/api/v1/project', { ...p, timestamp: ts, headers: { 'X-Signature': forOtherPath } });
  t.is(replayed.body.error_code, 'signature_invalid');

  const forOtherBody = signRequest({ secret: p.secret, method: 'POST', target: '/api/v1/probe/writes', timestamp: ts, rawBody: '{"n":1}' });
  const tampered = await signedFetch(gw.url, '/api/v1/probe/writes', {
    ...p,
    method: 'POST',
    body: '{"n":2}',
    timestamp: ts,
    headers: { 'X-Signature': forOtherBody },
  });
  t.is(tampered.body.error_code, 'signature_invalid');
});

test('the query string is signed: a captured read does not pass with other filters (issue 26 finding 3)', async (t) => {
  const p = await newProject('production');
  const { signRequest } = await import('@gw/kernel');
  const signed = await signedFetch(gw.url, '/api/v1/probe/reads?limit=5', p);
  t.is(signed.status, 200);
  t.is(signed.body.limit, 5);
  const ts = Math.floor(Date.now() / 1000);
  const captured = signRequest({ secret: p.secret, method: 'GET', target: '/api/v1/probe/reads?limit=5', timestamp: ts });
  const swapped = await signedFetch(gw.url, '/api/v1/probe/reads?limit=7', { ...p, timestamp: ts, headers: { 'X-Signature': captured } });
  t.is(swapped.status, 401);
  t.is(swapped.body.error_code, 'signature_invalid');
  const dropped = await signedFetch(gw.url, '/api/v1/probe/reads', { ...p, timestamp: ts, headers: { 'X-Signature': captured } });
  t.is(dropped.body.error_code, 'signature_invalid');
  // Reads are not single-use: the captured read itself may be repeated within the window.
  for (let i = 0; i < 2; i++)
    t.is((await signedFetch(gw.url, '/api/v1/probe/reads?limit=5', { ...p, timestamp: ts, headers: { 'X-Signature': captured } })).status, 200);
});

test('an identical signed write gets the first answer without running again, on every instance; concurrent copies run once (issue 33 item 2)', async (t) => {
  const p = await newProject('production');
  const ts = Math.floor(Date.now() / 1000);
  const write = { ...p, method: 'POST', body: { n: 1 }, timestamp: ts };
  const first = await signedFetch(gw.url, '/api/v1/probe/writes', write);
  t.is(first.status, 201);
  t.is(first.headers.get('idempotent-replayed'), null);
  const again = await signedFetch(gw.url, '/api/v1/probe/writes', write);
  t.is(again.status, 201, 'a retry at once is no 401');
  t.deepEqual(again.body, first.body, 'the first answer');
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.is(again.headers.get('content-type'), first.headers.get('content-type'));
  t.is(again.headers.get('x-request-id'), first.headers.get('x-request-id'), 'the id of the request that had the effect');
  // Another instance on the same database answers the same: the answer is in PostgreSQL.
  const other = await startTestKernel({ plugins: [tenancyPlugin, probePlugin], database: gw.database });
  try {
    const elsewhere = await signedFetch(other.url, '/api/v1/probe/writes', write);
    t.is(elsewhere.status, 201);
    t.deepEqual(elsewhere.body, first.body);
    t.is(probeRuns('writes', p.projectId), 1, 'ran once');

    const concurrent = { ...write, body: { n: 2 } };
    const answers = await Promise.all([
      signedFetch(gw.url, '/api/v1/probe/slow-writes', concurrent),
      signedFetch(other.url, '/api/v1/probe/slow-writes', concurrent),
    ]);
    t.deepEqual(
      answers.map((a) => a.status),
      [201, 201],
      'two copies at once: both answered',
    );
    t.deepEqual(answers[0]!.body, answers[1]!.body);
    t.is(probeRuns('slow', p.projectId), 1, 'two copies at once: run once');
  } finally {
    await other.close();
  }
  const anew = await signedFetch(gw.url, '/api/v1/probe/writes', { ...write, timestamp: ts + 1 });
  t.is(anew.status, 201, 'signed anew');
  t.is(anew.body.run, first.body.run + 1, 'a new request runs');

  const { db, tenancySignedAnswers } = gw.kernel.cradle;
  const rows = await db('tenancy_signed_answers').where({ project_id: p.projectId });
  t.is(rows.length, 3);
  t.true(
    rows.every((row) => row.status === 201),
    'answers recorded',
  );
  t.true(
    rows.every((row) => new Date(row.expires_at).getTime() > (ts + 300) * 1000),
    'kept past the window',
  );
  await db('tenancy_signed_answers')
    .where({ project_id: p.projectId })
    .update({ expires_at: db.raw(`now() - interval '1 second'`) });
  t.true((await tenancySignedAnswers.sweep()) >= 3);
  t.is((await db('tenancy_signed_answers').where({ project_id: p.projectId })).length, 0);
});

test('a write idempotent by design (invoice creation) answers an identical copy with the first answer (issue 33 item 2)', async (t) => {
  const p = await newProject('production');
  const idempotent = { ...p, method: 'POST', body: { n: 3 }, timestamp: Math.floor(Date.now() / 1000) };
  const first = await signedFetch(gw.url, '/api/v1/probe/idempotent-writes', idempotent);
  t.is(first.status, 201);
  const [a, b] = await Promise.all([
    signedFetch(gw.url, '/api/v1/probe/idempotent-writes', idempotent),
    signedFetch(gw.url, '/api/v1/probe/idempotent-writes', idempotent),
  ]);
  for (const copy of [a!, b!]) {
    t.is(copy.status, 201);
    t.deepEqual(copy.body, first.body, 'the first answer, though the copy ran (the route itself makes that harmless)');
    t.is(copy.headers.get('idempotent-replayed'), 'true');
  }
});

test('a copy of a signed write that failed with a 5xx runs again: nothing is recorded (issue 33 item 2)', async (t) => {
  const p = await newProject('production');
  const write = { ...p, method: 'POST', timestamp: Math.floor(Date.now() / 1000) };
  t.is((await signedFetch(gw.url, '/api/v1/probe/failing-writes', write)).status, 500);
  const again = await signedFetch(gw.url, '/api/v1/probe/failing-writes', write);
  t.is(again.status, 500);
  t.is(again.headers.get('idempotent-replayed'), null);
  t.is(probeRuns('failing', p.projectId), 2, 'the copy ran: the first had no effect to protect');
  t.is((await gw.kernel.cradle.db('tenancy_signed_answers').where({ project_id: p.projectId })).length, 0, 'the claim was released');

  // A copy waiting for a first copy that then fails runs itself, rather than wait for nothing.
  const [a, b] = await Promise.all([
    signedFetch(gw.url, '/api/v1/probe/slow-failing-writes', write),
    signedFetch(gw.url, '/api/v1/probe/slow-failing-writes', write),
  ]);
  t.deepEqual([a!.status, b!.status], [500, 500]);
  t.is(probeRuns('slow-failing', p.projectId), 2);
  t.is((await gw.kernel.cradle.db('tenancy_signed_answers').where({ project_id: p.projectId })).length, 0);
});

test('the pathname alone, as spec 5.1 words it, verifies: filtered reads, writes and an immediate retry (issue 33 item 1)', async (t) => {
  const p = await newProject('production');
  const read = await pathnameSignedFetch(gw.url, '/api/v1/probe/reads?limit=5', p);
  t.is(read.status, 200);
  t.is(read.body.limit, 5);
  const plain = await pathnameSignedFetch(gw.url, '/api/v1/probe/reads', p);
  t.is(plain.status, 200);
  t.is(plain.body.limit, 50);
  const write = { ...p, method: 'POST', body: { n: 4 }, timestamp: Math.floor(Date.now() / 1000) };
  const first = await pathnameSignedFetch(gw.url, '/api/v1/probe/writes', write);
  t.is(first.status, 201);
  const retry = await pathnameSignedFetch(gw.url, '/api/v1/probe/writes', write);
  t.is(retry.status, 201);
  t.is(retry.text, first.text, 'byte for byte');
  // A sandbox write, signed the same way.
  const sandbox = await newProject('sandbox');
  t.is((await pathnameSignedFetch(gw.url, '/api/v1/sandbox/probe/writes', { ...sandbox, method: 'POST' })).status, 200);
});

test('security.signedQuery: required refuses the pathname-only form of a request with a query (issue 33 item 1)', async (t) => {
  const strict = await startTestKernel({ plugins: [tenancyPlugin, probePlugin], database: gw.database, config: { 'security.signedQuery': 'required' } });
  try {
    const p = await newProject('production');
    const pathnameOnly = await pathnameSignedFetch(strict.url, '/api/v1/probe/reads?limit=5', p);
    t.is(pathnameOnly.status, 401);
    t.is(pathnameOnly.body.error_code, 'signature_invalid');
    t.is((await signedFetch(strict.url, '/api/v1/probe/reads?limit=5', p)).status, 200, 'the form with the query');
    t.is((await pathnameSignedFetch(strict.url, '/api/v1/probe/reads', p)).status, 200, 'no query: the pathname is the whole target');
    t.is((await pathnameSignedFetch(strict.url, '/api/v1/probe/reads?', p)).status, 200, 'an empty query filters nothing');
  } finally {
    await strict.close();
  }
});

test('timestamps outside ±300 s are timestamp_out_of_window; inside is accepted', async (t) => {
  const p = await newProject('testnet');
  const now = Math.floor(Date.now() / 1000);
  for (const timestamp of [now - 301 - 5, now + 301 + 5]) {
    const res = await signedFetch(gw.url, '/api/v1/project', { ...p, timestamp });
    t.is(res.status, 401);
    t.is(res.body.error_code, 'timestamp_out_of_window');
  }
  const edge = await signedFetch(gw.url, '/api/v1/project', { ...p, timestamp: now - 290 });
  t.is(edge.status, 200);
});

test('revoked and suspended keys and suspended projects are refused with their codes', async (t) => {
  const { tenancyApiKeys, tenancyProjects } = gw.kernel.cradle;
  const p = await newProject('testnet');
  await tenancyApiKeys.suspend(p.projectId, CLI_ACTOR);
  t.is((await signedFetch(gw.url, '/api/v1/project', p)).body.error_code, 'key_suspended');
  await tenancyApiKeys.resume(p.projectId, CLI_ACTOR);
  t.is((await signedFetch(gw.url, '/api/v1/project', p)).status, 200);

  await tenancyProjects.suspend(p.projectId, CLI_ACTOR);
  const suspended = await signedFetch(gw.url, '/api/v1/project', p);
  t.is(suspended.status, 403);
  t.is(suspended.body.error_code, 'project_suspended');
  await tenancyProjects.resume(p.projectId, CLI_ACTOR);

  await tenancyApiKeys.revoke(p.projectId, CLI_ACTOR);
  const revoked = await signedFetch(gw.url, '/api/v1/project', p);
  t.is(revoked.status, 403);
  t.is(revoked.body.error_code, 'key_revoked');

  const reissued = await tenancyApiKeys.issue(p.projectId, CLI_ACTOR);
  t.is((await signedFetch(gw.url, '/api/v1/project', { projectId: p.projectId, secret: reissued.api_secret })).status, 200);
  t.is((await signedFetch(gw.url, '/api/v1/project', p)).body.error_code, 'signature_invalid');
});

test('rotation keeps the previous secret valid during the overlap only', async (t) => {
  const { tenancyApiKeys, db } = gw.kernel.cradle;
  const p = await newProject('testnet');
  const rotated = await tenancyApiKeys.rotate(p.projectId, CLI_ACTOR);
  t.not(rotated.api_secret, p.secret);
  t.is((await signedFetch(gw.url, '/api/v1/project', p)).status, 200, 'old secret within overlap');
  t.is((await signedFetch(gw.url, '/api/v1/project', { projectId: p.projectId, secret: rotated.api_secret })).status, 200);
  t.deepEqual((await tenancyApiKeys.liveSecrets(p.projectId)).sort(), [p.secret, rotated.api_secret].sort());
  // End the overlap.
  await db('tenancy_api_key_secrets')
    .whereNotNull('expires_at')
    .update({ expires_at: new Date(Date.now() - 1000) });
  t.is((await signedFetch(gw.url, '/api/v1/project', p)).body.error_code, 'signature_invalid');
  t.is((await signedFetch(gw.url, '/api/v1/project', { projectId: p.projectId, secret: rotated.api_secret })).status, 200);
});

test('key rotate --immediate ends the previous secret at once (issue 26 finding 10)', async (t) => {
  const p = await newProject('testnet');
  const run = cliRunner({ plugins: [tenancyPlugin], chains: [], databaseUrl: () => gw.database.url });
  const rotated = await run('key', 'rotate', '--project', p.projectId, '--immediate', '--json');
  t.is(rotated.code, 0, rotated.stderr);
  const secret = rotated.json.api_secret as string;
  t.not(secret, p.secret);
  t.is((await signedFetch(gw.url, '/api/v1/project', p)).body.error_code, 'signature_invalid', 'the old secret no longer signs');
  t.is((await signedFetch(gw.url, '/api/v1/project', { projectId: p.projectId, secret })).status, 200);
  t.deepEqual(await gw.kernel.cradle.tenancyApiKeys.liveSecrets(p.projectId), [secret], 'webhooks are signed with the new secret only');
  // Without the flag the overlap stays (the test kernel's overlap is 600 s).
  const overlapping = await run('key', 'rotate', '--project', p.projectId, '--json');
  t.is((await signedFetch(gw.url, '/api/v1/project', { projectId: p.projectId, secret })).status, 200);
  t.deepEqual((await gw.kernel.cradle.tenancyApiKeys.liveSecrets(p.projectId)).sort(), [secret, overlapping.json.api_secret].sort());
  const audit = await gw.kernel.cradle.db('kernel_audit_log').where({ action: 'key.rotate', project_id: p.projectId }).orderBy('id');
  t.deepEqual(
    audit.map((row) => row.details.immediate),
    [true, false],
  );
});

test('writes of non-sandbox projects need an active subscription (402); reads and sandbox writes do not', async (t) => {
  const { tenancyOperators } = gw.kernel.cradle;
  const operator = await tenancyOperators.create(`op-${Date.now()}`, CLI_ACTOR);
  const prod = await gw.kernel.cradle.tenancyProjects.create({ name: 'shop', kind: 'production', operator: operator.id }, CLI_ACTOR);
  const sandbox = await gw.kernel.cradle.tenancyProjects.create({ name: 'play', kind: 'sandbox', operator: operator.id }, CLI_ACTOR);
  const prodCreds = { projectId: prod.project.id, secret: prod.credentials.api_secret };
  const sandboxCreds = { projectId: sandbox.project.id, secret: sandbox.credentials.api_secret };
  t.is((await signedFetch(gw.url, '/api/v1/probe/writes', { ...prodCreds, method: 'POST', body: { n: 1 } })).status, 201);
  await tenancyOperators.setSubscription(operator.id, 'expired', CLI_ACTOR);
  const blocked = await signedFetch(gw.url, '/api/v1/probe/writes', { ...prodCreds, method: 'POST', body: { n: 1 } });
  t.is(blocked.status, 402);
  t.is(blocked.body.error_code, 'subscription_expired');
  t.is((await signedFetch(gw.url, '/api/v1/probe/reads', prodCreds)).status, 200);
  t.is((await signedFetch(gw.url, '/api/v1/sandbox/probe/writes', { ...sandboxCreds, method: 'POST' })).status, 200);
  await tenancyOperators.setSubscription(operator.id, 'active', CLI_ACTOR);
  t.is((await signedFetch(gw.url, '/api/v1/probe/writes', { ...prodCreds, method: 'POST', body: { n: 1 } })).status, 201);
});

test('project-kind guards and cross-mode checks', async (t) => {
  const prod = await newProject('production');
  const testnet = await newProject('testnet');
  const sandbox = await newProject('sandbox');
  const otherSandbox = await newProject('sandbox');

  // What each kind of key gets on each kind of route: [what, path, key, method, status, error_code].
  const cases = [
    ['a sandbox key on a production route', '/api/v1/probe/reads', sandbox, 'GET', 403, 'production_project_required'],
    ['a testnet key on a production route', '/api/v1/probe/reads', testnet, 'GET', 200, undefined],
    ['a production key on a sandbox route', '/api/v1/sandbox/probe/writes', prod, 'POST', 403, 'sandbox_project_required'],
    ['a sandbox key on its own project', `/api/v1/sandbox/${sandbox.projectId}/probe`, sandbox, 'POST', 200, undefined],
    ['a sandbox key at a production project', `/api/v1/sandbox/${prod.projectId}/probe`, sandbox, 'POST', 400, 'sandbox_key_against_production_project'],
    ['a production key at a sandbox project', `/api/v1/sandbox/${sandbox.projectId}/probe`, prod, 'POST', 400, 'production_key_against_sandbox_project'],
    ['a production key at its own project', `/api/v1/sandbox/${prod.projectId}/probe`, prod, 'POST', 403, 'sandbox_project_required'],
    ["a sandbox key at another's sandbox", `/api/v1/sandbox/${otherSandbox.projectId}/probe`, sandbox, 'POST', 403, 'permission_denied'],
  ] as const;
  for (const [what, path, key, method, status, code] of cases) {
    const res = await signedFetch(gw.url, path, { ...key, method });
    t.is(res.status, status, what);
    if (code) t.is(res.body.error_code, code, what);
  }
});

test('validation errors name the field; unknown fields are refused', async (t) => {
  const p = await newProject('testnet');
  const bad = await signedFetch(gw.url, '/api/v1/probe/writes', { ...p, method: 'POST', body: { n: 11 } });
  t.is(bad.status, 400);
  t.is(bad.body.error_code, 'validation_error');
  t.is(bad.body.details.field, 'n');
  const unknown = await signedFetch(gw.url, '/api/v1/probe/writes', { ...p, method: 'POST', body: { n: 1, extra: true } });
  t.is(unknown.body.error_code, 'validation_error');
  t.is(unknown.body.details.field, 'extra');
  const query = await signedFetch(gw.url, '/api/v1/probe/reads?limit=0', p);
  t.is(query.body.error_code, 'validation_error');
  t.is(query.body.details.field, 'query.limit');
  const coerced = await signedFetch(gw.url, '/api/v1/probe/reads?limit=7', p);
  t.is(coerced.body.limit, 7);
  const defaulted = await signedFetch(gw.url, '/api/v1/probe/reads', p);
  t.is(defaulted.body.limit, 50);
});

test('bodies over the limit get 413 and malformed JSON 400, never 500', async (t) => {
  const p = await newProject('testnet');
  const big = JSON.stringify({ n: 1, pad: 'x'.repeat(1_100_000) });
  const res = await signedFetch(gw.url, '/api/v1/probe/writes', { ...p, method: 'POST', body: big });
  t.is(res.status, 413);
  t.is(res.body.error_code, 'payload_too_large');
  const malformed = await signedFetch(gw.url, '/api/v1/probe/writes', { ...p, method: 'POST', body: '{"n":' });
  t.is(malformed.status, 400);
  t.is(malformed.body.error_code, 'validation_error');
});

test('unexpected errors are 500 internal_error without internals', async (t) => {
  const res = await fetch(`${gw.url}/api/v1/probe/crash`);
  t.is(res.status, 500);
  const body = (await res.json()) as { error_code: string; message: string };
  t.is(body.error_code, 'internal_error');
  t.false(body.message.includes('secret internals'));
});

test('rate limits answer 429 with Retry-After', async (t) => {
  const p = await newProject('testnet');
  for (let i = 0; i < 3; i++) t.is((await signedFetch(gw.url, '/api/v1/probe/limited', p)).status, 200);
  const limited = await signedFetch(gw.url, '/api/v1/probe/limited', p);
  t.is(limited.status, 429);
  t.is(limited.body.error_code, 'rate_limit_exceeded');
  const retryAfter = Number(limited.headers.get('retry-after'));
  t.true(retryAfter >= 1 && retryAfter <= 60);
});

test('metrics count requests by route template and status', async (t) => {
  const p = await newProject('testnet');
  await signedFetch(gw.url, '/api/v1/project', p);
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  t.regex(text, /gateway_http_requests_total\{method="GET",route="\/api\/v1\/project",status="200"\} \d+/);
  t.regex(text, /gateway_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/v1\/project"\}/);
});

test('/metrics: a direct loopback connection reads it, a forwarded one does not; with a token configured only the token does (issue 26 finding 5)', async (t) => {
  t.is((await fetch(`${gw.url}/metrics`)).status, 200);
  for (const header of ['X-Forwarded-For', 'Forwarded', 'X-Real-IP']) {
    const forwarded = await fetch(`${gw.url}/metrics`, { headers: { [header]: '203.0.113.9' } });
    t.is(forwarded.status, 401, header);
    t.is(((await forwarded.json()) as { error_code: string }).error_code, 'auth_invalid');
  }
  const token = 'm'.repeat(40);
  const guarded = await startTestKernel({ plugins: [tenancyPlugin], database: gw.database, config: { 'http.metricsToken': token } });
  try {
    const bare = await fetch(`${guarded.url}/metrics`);
    t.is(bare.status, 401, 'loopback alone is not enough once a token is configured');
    t.is(bare.headers.get('www-authenticate'), 'Bearer realm="metrics"');
    t.is((await fetch(`${guarded.url}/metrics`, { headers: { Authorization: `Bearer ${'n'.repeat(40)}` } })).status, 401);
    const read = await fetch(`${guarded.url}/metrics`, { headers: { Authorization: `Bearer ${token}`, 'X-Forwarded-For': '203.0.113.9' } });
    t.is(read.status, 200);
    t.regex(await read.text(), /gateway_http_requests_total/);
  } finally {
    await guarded.close();
  }
});

test('metrics never label a series with a project id (bounded cardinality)', async (t) => {
  const projects = await Promise.all([newProject('testnet'), newProject('production'), newProject('sandbox')]);
  for (const p of projects) {
    await signedFetch(gw.url, '/api/v1/project', p);
    await signedFetch(gw.url, `/api/v1/sandbox/${p.projectId}/probe`, { ...p, method: 'POST' });
    await fetch(`${gw.url}/api/v1/unknown/${p.projectId}`);
  }
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  for (const p of projects) t.false(text.includes(p.projectId), p.projectId);
  t.regex(text, /route="\/api\/v1\/sandbox\/:projectId\/probe"/);
});

test('readiness reports the database and job queue', async (t) => {
  const res = await fetch(`${gw.url}/readyz`);
  t.is(res.status, 200);
  t.deepEqual(((await res.json()) as { checks: unknown }).checks, { database: true, jobs: true, accepting: true });
});

test('readiness details (they name projects) only for whoever may read the metrics; the status for anyone', async (t) => {
  const direct = (await (await fetch(`${gw.url}/readyz`)).json()) as { status: string; details?: { ready_for_payments: boolean } };
  t.is(direct.status, 'ready');
  t.is(typeof direct.details?.ready_for_payments, 'boolean');
  const forwarded = await fetch(`${gw.url}/readyz`, { headers: { 'X-Forwarded-For': '203.0.113.9' } });
  t.is(forwarded.status, 200);
  const body = (await forwarded.json()) as { status: string; details?: unknown };
  t.is(body.status, 'ready');
  t.is(body.details, undefined);
});

test('a project whose secret cannot be opened fails alone; requests of other projects looked up with it are served', async (t) => {
  const healthy = await newProject('testnet');
  const broken = await newProject('testnet');
  const key = await gw.kernel.cradle.db('tenancy_api_keys').where({ project_id: broken.projectId }).first();
  await gw.kernel.cradle.db('tenancy_api_key_secrets').where({ api_key_id: key.id }).update({ sealed_secret: 'v1.AAAA.BBBB.CCCC' });
  const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => signedFetch(gw.url, '/api/v1/project', i % 2 === 0 ? healthy : broken)));
  for (const [i, res] of responses.entries()) {
    if (i % 2 === 0) t.is(res.status, 200);
    else t.like(res, { status: 503, body: { error_code: 'stored_secret_unreadable' } });
  }
});

test('concurrent creates of one operator, project or user name: one succeeds, the others get the "exists" error, never a database error', async (t) => {
  const { tenancyOperators, tenancyProjects, tenancyUsers } = gw.kernel.cradle;
  const codes = (results: PromiseSettledResult<unknown>[]) =>
    results.map((r) => (r.status === 'fulfilled' ? 'created' : ((r.reason as { code?: string }).code ?? String(r.reason)))).sort();
  const name = `race-${Math.random().toString(36).slice(2)}`;
  const operators = await Promise.allSettled(Array.from({ length: 6 }, () => tenancyOperators.create(name, CLI_ACTOR)));
  t.deepEqual(codes(operators), ['created', 'operator_exists', 'operator_exists', 'operator_exists', 'operator_exists', 'operator_exists']);
  const projects = await Promise.allSettled(
    Array.from({ length: 6 }, () => tenancyProjects.create({ name, kind: 'testnet', operator: operatorId }, CLI_ACTOR)),
  );
  t.deepEqual(codes(projects), ['created', 'project_exists', 'project_exists', 'project_exists', 'project_exists', 'project_exists']);
  const users = await Promise.allSettled(
    Array.from({ length: 6 }, () => tenancyUsers.invite({ email: `${name}@example.com`, operator: operatorId }, CLI_ACTOR)),
  );
  t.deepEqual(codes(users), ['created', 'user_exists', 'user_exists', 'user_exists', 'user_exists', 'user_exists']);
});
