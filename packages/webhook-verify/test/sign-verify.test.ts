import test from 'ava';
import { createHmac } from 'node:crypto';
import { parseSignatureHeader, signWebhook, verifyWebhook } from '../src/index.js';
import { readDocs } from './helpers.js';

const SECRET = '3b9f0c2e7a4d61f8b5c09e2d7f6a1b4c8e3d5f7a9b0c2d4e6f8a1b3c5d7e9f0a';
const NEW_SECRET = 'a1c3e5f7092b4d6f8a0c2e4f6b8d0a2c4e6f8b0d2a4c6e8f0b2d4f6a8c0e2b4d';
const T = 1_795_269_797;
const BODY = '{"event_id":"01M7Z6P948RZV7552T7SSGS6E4","event_type":"invoice.paid"}';

const hmac = (secret: string, payload: string): string => createHmac('sha256', secret).update(payload).digest('hex');

test('signWebhook builds t=<seconds>,v1=<lowercase hex of HMAC(secret, "t.body")>', (t) => {
  const header = signWebhook({ secrets: [SECRET], rawBody: BODY, timestamp: T });
  t.is(header, `t=${T},v1=${hmac(SECRET, `${T}.${BODY}`)}`);
  t.regex(header, /^t=\d+,v1=[0-9a-f]{64}$/);
});

test('signWebhook: one v1 per secret, in order', (t) => {
  t.is(
    signWebhook({ secrets: [NEW_SECRET, SECRET], rawBody: BODY, timestamp: T }),
    `t=${T},v1=${hmac(NEW_SECRET, `${T}.${BODY}`)},v1=${hmac(SECRET, `${T}.${BODY}`)}`,
  );
});

test('the test vectors of docs/webhooks.md hold', (t) => {
  const docs = readDocs();
  const [first, second] = signWebhook({ secrets: [SECRET, NEW_SECRET], rawBody: BODY, timestamp: T })
    .split(',')
    .slice(1);
  t.true(docs.includes(`\`${first}\``), 'first vector');
  t.true(docs.includes(`\`${second!.slice(3)}\``), 'second vector');
  t.true(docs.includes(`body \`${BODY}\``));
});

test('signWebhook keys the HMAC with the secret as a UTF-8 string, body as UTF-8', (t) => {
  const secret = 'clé-secrète-✓';
  const body = '{"note":"Zoë 🚀"}';
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.from(`${T}.${body}`, 'utf8'))
    .digest('hex');
  t.is(signWebhook({ secrets: [secret], rawBody: body, timestamp: T }), `t=${T},v1=${expected}`);
});

test('signWebhook refuses no secrets, empty secrets and bad timestamps', (t) => {
  t.throws(() => signWebhook({ secrets: [], rawBody: BODY, timestamp: T }), { instanceOf: TypeError });
  t.throws(() => signWebhook({ secrets: [''], rawBody: BODY, timestamp: T }), { instanceOf: TypeError });
  for (const timestamp of [-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1]) {
    t.throws(() => signWebhook({ secrets: [SECRET], rawBody: BODY, timestamp }), { instanceOf: TypeError }, String(timestamp));
  }
});

test('verifyWebhook accepts a correct signature, string or Buffer body', (t) => {
  const header = signWebhook({ secrets: [SECRET], rawBody: BODY, timestamp: T });
  t.deepEqual(verifyWebhook({ header, rawBody: BODY, secrets: [SECRET], nowSeconds: T }), { ok: true, timestamp: T });
  t.deepEqual(verifyWebhook({ header, rawBody: Buffer.from(BODY, 'utf8'), secrets: [SECRET], nowSeconds: T }), { ok: true, timestamp: T });
});

test('verifyWebhook hashes Buffer bodies as raw bytes (no UTF-8 round trip)', (t) => {
  const raw = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]); // not valid UTF-8
  const header = `t=${T},v1=${createHmac('sha256', SECRET).update(`${T}.`).update(raw).digest('hex')}`;
  t.true(verifyWebhook({ header, rawBody: raw, secrets: [SECRET], nowSeconds: T }).ok);
  t.deepEqual(verifyWebhook({ header, rawBody: raw.toString('utf8'), secrets: [SECRET], nowSeconds: T }), { ok: false, reason: 'signature_mismatch' });
});

test('verifyWebhook uses the real clock by default', (t) => {
  const now = Math.floor(Date.now() / 1000);
  t.true(verifyWebhook({ header: signWebhook({ secrets: [SECRET], rawBody: BODY, timestamp: now }), rawBody: BODY, secrets: [SECRET] }).ok);
  t.deepEqual(verifyWebhook({ header: signWebhook({ secrets: [SECRET], rawBody: BODY, timestamp: now - 1000 }), rawBody: BODY, secrets: [SECRET] }), {
    ok: false,
    reason: 'timestamp_out_of_window',
  });
});

test('rotation: any v1 matching any secret is accepted', (t) => {
  const both = signWebhook({ secrets: [NEW_SECRET, SECRET], rawBody: BODY, timestamp: T });
  // The receiver still has only the old secret, only the new one, or both.
  for (const secrets of [[SECRET], [NEW_SECRET], [SECRET, NEW_SECRET], [NEW_SECRET, SECRET]]) {
    t.true(verifyWebhook({ header: both, rawBody: BODY, secrets, nowSeconds: T }).ok, secrets.join('+'));
  }
  // The gateway signs with one secret; the receiver holds two.
  const single = signWebhook({ secrets: [NEW_SECRET], rawBody: BODY, timestamp: T });
  t.true(verifyWebhook({ header: single, rawBody: BODY, secrets: [SECRET, NEW_SECRET], nowSeconds: T }).ok);
  // Neither secret matches.
  t.deepEqual(verifyWebhook({ header: both, rawBody: BODY, secrets: ['someone-else'], nowSeconds: T }), { ok: false, reason: 'signature_mismatch' });
});

test('a valid v1 is found after wrong ones of any length', (t) => {
  const good = hmac(SECRET, `${T}.${BODY}`);
  const header = `t=${T},v1=abc,v1=${'0'.repeat(64)},v1=${good.toUpperCase()},v1=${good}`;
  t.true(verifyWebhook({ header, rawBody: BODY, secrets: [SECRET], nowSeconds: T }).ok);
});

test('unknown schemes are ignored; whitespace around items is tolerated', (t) => {
  const good = hmac(SECRET, `${T}.${BODY}`);
  t.true(verifyWebhook({ header: `t=${T},v0=${good},v1=${good},v2=zzz`, rawBody: BODY, secrets: [SECRET], nowSeconds: T }).ok);
  t.true(verifyWebhook({ header: ` t=${T} , v1=${good} `, rawBody: BODY, secrets: [SECRET], nowSeconds: T }).ok);
  t.true(verifyWebhook({ header: `v1=${good},t=${T}`, rawBody: BODY, secrets: [SECRET], nowSeconds: T }).ok, 'order of items is free');
  // v0 alone is not a v1: malformed.
  t.deepEqual(verifyWebhook({ header: `t=${T},v0=${good}`, rawBody: BODY, secrets: [SECRET], nowSeconds: T }), { ok: false, reason: 'malformed_header' });
});

test('malformed headers', (t) => {
  const good = hmac(SECRET, `${T}.${BODY}`);
  const cases: (string | undefined)[] = [
    undefined,
    '',
    'garbage',
    `v1=${good}`,
    `t=${T}`,
    `t=,v1=${good}`,
    `t=abc,v1=${good}`,
    `t=-5,v1=${good}`,
    `t=${T}.0,v1=${good}`,
    `t=1e9,v1=${good}`,
    `t=${T},t=${T},v1=${good}`,
    `t=${T},v1=`,
    `t=${T},v1`,
    `T=${T},V1=${good}`,
    `t=${'9'.repeat(16)},v1=${good}`,
  ];
  for (const header of cases) {
    t.deepEqual(verifyWebhook({ header, rawBody: BODY, secrets: [SECRET], nowSeconds: T }), { ok: false, reason: 'malformed_header' }, String(header));
    t.is(parseSignatureHeader(header), undefined, String(header));
  }
});

test('parseSignatureHeader returns the timestamp and every v1 in order', (t) => {
  t.deepEqual(parseSignatureHeader('t=1700000000,v1=aa,v0=bb,v1=cc'), { timestamp: 1_700_000_000, signatures: ['aa', 'cc'] });
});

test('wrong HMAC: other secret, tampered body, other timestamp', (t) => {
  const header = signWebhook({ secrets: [SECRET], rawBody: BODY, timestamp: T });
  const mismatch = { ok: false, reason: 'signature_mismatch' } as const;
  t.deepEqual(verifyWebhook({ header, rawBody: BODY, secrets: [NEW_SECRET], nowSeconds: T }), mismatch);
  t.deepEqual(verifyWebhook({ header, rawBody: BODY.replace('paid', 'PAID'), secrets: [SECRET], nowSeconds: T }), mismatch);
  t.deepEqual(verifyWebhook({ header, rawBody: `${BODY}\n`, secrets: [SECRET], nowSeconds: T }), mismatch);
  t.deepEqual(verifyWebhook({ header: header.replace(`t=${T}`, `t=${T + 1}`), rawBody: BODY, secrets: [SECRET], nowSeconds: T }), mismatch);
});

test('the window is 300 s either side: exactly 300 s is accepted, 301 s is refused', (t) => {
  const header = signWebhook({ secrets: [SECRET], rawBody: BODY, timestamp: T });
  const at = (nowSeconds: number) => verifyWebhook({ header, rawBody: BODY, secrets: [SECRET], nowSeconds });
  t.true(at(T + 300).ok);
  t.true(at(T - 300).ok);
  t.deepEqual(at(T + 301), { ok: false, reason: 'timestamp_out_of_window' });
  t.deepEqual(at(T - 301), { ok: false, reason: 'timestamp_out_of_window' });
});

test('toleranceSeconds overrides the window', (t) => {
  const header = signWebhook({ secrets: [SECRET], rawBody: BODY, timestamp: T });
  t.true(verifyWebhook({ header, rawBody: BODY, secrets: [SECRET], nowSeconds: T + 60, toleranceSeconds: 60 }).ok);
  t.deepEqual(verifyWebhook({ header, rawBody: BODY, secrets: [SECRET], nowSeconds: T + 61, toleranceSeconds: 60 }), {
    ok: false,
    reason: 'timestamp_out_of_window',
  });
});

test('check order: malformed before stale before mismatch', (t) => {
  // Stale and wrong: the window is checked first.
  const wrong = signWebhook({ secrets: [NEW_SECRET], rawBody: BODY, timestamp: T });
  t.deepEqual(verifyWebhook({ header: wrong, rawBody: BODY, secrets: [SECRET], nowSeconds: T + 1000 }), { ok: false, reason: 'timestamp_out_of_window' });
  // Malformed and stale: malformed wins.
  t.deepEqual(verifyWebhook({ header: `t=1,t=2,v1=ab`, rawBody: BODY, secrets: [SECRET], nowSeconds: T }), { ok: false, reason: 'malformed_header' });
});

test('verifyWebhook refuses to run without a usable secret', (t) => {
  const header = signWebhook({ secrets: [SECRET], rawBody: BODY, timestamp: T });
  t.throws(() => verifyWebhook({ header, rawBody: BODY, secrets: [], nowSeconds: T }), { instanceOf: TypeError });
  t.throws(() => verifyWebhook({ header, rawBody: BODY, secrets: [SECRET, ''], nowSeconds: T }), { instanceOf: TypeError });
});
