/**
 * The behaviour every receiver of docs/webhooks.md must have, checked with real HTTP requests
 * against the snippet running as a child process, signed with `signWebhook`.
 */
import { existsSync } from 'node:fs';
import type { TestFn } from 'ava';
import { signWebhook } from '../src/index.js';
import { envelope, extractSnippet, nowSeconds, post, readDocs, startReceiver, ulid, type ReceiverLaunch, type RunningReceiver } from './helpers.js';

const SECRET = '3b9f0c2e7a4d61f8b5c09e2d7f6a1b4c8e3d5f7a9b0c2d4e6f8a1b3c5d7e9f0a';
const SECOND_SECRET = 'sk_sandbox_5d2c8e1f4a7b0c3d6e9f2a5b8c1d4e7f0a3b6c9d2e5f8a1b';
const OLD_SECRET = 'a1c3e5f7092b4d6f8a0c2e4f6b8d0a2c4e6f8b0d2a4c6e8f0b2d4f6a8c0e2b4d';

/**
 * `receiverSuite` for the `language` snippet of docs/webhooks.md run by `command`, a Debian
 * package's binary (.ci/run installs the package), after a test that the binary is there.
 */
export function debianReceiverSuite(
  test: TestFn,
  options: { language: string; command: string; debianPackage: string; fileName: string; launch: (dir: string, file: string) => Promise<ReceiverLaunch> },
): void {
  const { language, command, debianPackage, fileName, launch } = options;
  test(`${debianPackage} is installed`, (t) => {
    t.true(existsSync(command), `${command} is missing (Debian package ${debianPackage}; .ci/run installs it)`);
  });
  receiverSuite(test, language, command, fileName, () => extractSnippet(readDocs(), language), launch);
}

export function receiverSuite(
  test: TestFn,
  language: string,
  command: string,
  fileName: string,
  source: () => string,
  launch?: (dir: string, file: string) => ReceiverLaunch | Promise<ReceiverLaunch>,
): void {
  let receiver: RunningReceiver | undefined;
  const running = (): RunningReceiver => {
    if (!receiver) throw new Error('receiver not started');
    return receiver;
  };

  test.before(async () => {
    // The receiver holds two secrets, as during a rotation overlap.
    receiver = await startReceiver(command, fileName, source(), [SECRET, SECOND_SECRET], launch);
  });
  test.after.always(async () => {
    await receiver?.stop();
  });

  const deliver = (body: string, header: string | undefined) =>
    post(running().port, body, { 'x-service-signature': header, 'x-service-event-type': 'invoice.paid', 'x-service-delivery-attempt': '1' });

  test(`${language}: a correctly signed delivery is 200 {"ok":true} and printed`, async (t) => {
    const event = envelope('invoice.paid');
    const body = JSON.stringify(event, null, 2);
    const res = await deliver(body, signWebhook({ secrets: [SECRET], rawBody: body, timestamp: nowSeconds() }));
    t.is(res.status, 200);
    t.deepEqual(res.body, { ok: true });
    const printed = await running().waitForEvent((line) => line['event_id'] === event.event_id);
    t.like(printed, { event_id: event.event_id, event_type: 'invoice.paid', invoice_id: event.data.invoice_id, status: 'paid' });
  });

  test(`${language}: missing or malformed headers are 401 malformed_signature_header`, async (t) => {
    const body = JSON.stringify(envelope());
    const now = nowSeconds();
    const valid = signWebhook({ secrets: [SECRET], rawBody: body, timestamp: now });
    const v1 = valid.split(',')[1]!;
    for (const header of [
      undefined,
      '',
      'garbage',
      v1,
      `t=${now}`,
      `t=abc,${v1}`,
      `t=${now}.5,${v1}`,
      `t=${now},t=${now},${v1}`,
      `t=${now},v1=`,
      `t=${now},v0=${v1.slice(3)}`,
    ]) {
      const res = await deliver(body, header);
      t.is(res.status, 401, `header ${header}`);
      t.deepEqual(res.body, { error: 'malformed_signature_header' }, `header ${header}`);
    }
  });

  test(`${language}: a wrong HMAC is 401 signature_mismatch`, async (t) => {
    const body = JSON.stringify(envelope());
    const now = nowSeconds();
    const cases = [
      signWebhook({ secrets: [OLD_SECRET], rawBody: body, timestamp: now }), // a secret the receiver does not hold
      signWebhook({ secrets: [SECRET], rawBody: `${body} `, timestamp: now }), // another body
      signWebhook({ secrets: [SECRET], rawBody: body, timestamp: now - 1 }).replace(`t=${now - 1}`, `t=${now}`), // another t
      signWebhook({ secrets: [SECRET], rawBody: body, timestamp: now })
        .toUpperCase()
        .replace('T=', 't=')
        .replace('V1=', 'v1='), // uppercase hex
      `t=${now},v1=abc`, // wrong length
    ];
    for (const header of cases) {
      const res = await deliver(body, header);
      t.is(res.status, 401, header);
      t.deepEqual(res.body, { error: 'signature_mismatch' }, header);
    }
  });

  test(`${language}: a timestamp more than 300 s away is 401 timestamp_out_of_window`, async (t) => {
    const body = JSON.stringify(envelope());
    for (const timestamp of [nowSeconds() - 400, nowSeconds() + 400, 0]) {
      const res = await deliver(body, signWebhook({ secrets: [SECRET], rawBody: body, timestamp }));
      t.is(res.status, 401, String(timestamp));
      t.deepEqual(res.body, { error: 'timestamp_out_of_window' }, String(timestamp));
    }
  });

  test(`${language}: rotation headers are accepted when one v1 matches one secret; unknown schemes are ignored`, async (t) => {
    const ids: string[] = [];
    const headers = [
      (body: string, now: number) => signWebhook({ secrets: [OLD_SECRET, SECRET], rawBody: body, timestamp: now }),
      (body: string, now: number) => signWebhook({ secrets: [SECRET, OLD_SECRET], rawBody: body, timestamp: now }),
      (body: string, now: number) => signWebhook({ secrets: [SECOND_SECRET], rawBody: body, timestamp: now }),
      (body: string, now: number) => signWebhook({ secrets: [SECRET], rawBody: body, timestamp: now }).replace(',v1=', ',v0=deadbeef, v1='),
    ];
    for (const sign of headers) {
      const event = envelope();
      ids.push(event.event_id);
      const body = JSON.stringify(event);
      const header = sign(body, nowSeconds());
      const res = await deliver(body, header);
      t.is(res.status, 200, header);
      t.deepEqual(res.body, { ok: true });
    }
    for (const id of ids) await running().waitForEvent((line) => line['event_id'] === id);
  });

  test(`${language}: a redelivered event_id is answered 200 and processed once`, async (t) => {
    const first = envelope('invoice.detected');
    const body = JSON.stringify(first);
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const res = await deliver(body, signWebhook({ secrets: [SECRET], rawBody: body, timestamp: nowSeconds() }));
      t.is(res.status, 200);
      t.deepEqual(res.body, { ok: true });
    }
    // A later event: once it is printed, every earlier request has been handled.
    const marker = envelope('invoice.paid', ulid());
    const markerBody = JSON.stringify(marker);
    t.is((await deliver(markerBody, signWebhook({ secrets: [SECRET], rawBody: markerBody, timestamp: nowSeconds() }))).status, 200);
    await running().waitForEvent((line) => line['event_id'] === marker.event_id);
    t.is(running().events.filter((line) => line['event_id'] === first.event_id).length, 1);
  });
}
