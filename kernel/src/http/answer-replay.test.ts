import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import test from 'ava';
import Koa from 'koa';
import { pino } from 'pino';
import { answerReplayMiddleware, attachAnswerReplay, type RecordedAnswer } from './answer-replay.js';

/**
 * A server whose one route answers `status` and `body()` (with `type` when given) behind the
 * middleware. Returns what each request's replay handle was given to record, and whether the body
 * left the middleware as bytes.
 */
async function serve(t: { teardown(fn: () => unknown): void }, status: number, body: () => unknown, type?: string) {
  const recorded: (RecordedAnswer | undefined)[] = [];
  const sentAsBytes: boolean[] = [];
  const koa = new Koa();
  koa.silent = true;
  koa.use(async (ctx, next) => {
    await next();
    sentAsBytes.push(Buffer.isBuffer(ctx.body));
  });
  koa.use(answerReplayMiddleware(pino({ level: 'silent' })));
  koa.use(async (ctx) => {
    attachAnswerReplay(ctx, {
      settle: async (answer) => {
        recorded.push(answer);
        return undefined;
      },
    });
    ctx.status = status;
    ctx.body = body();
    if (type) ctx.type = type;
  });
  const server: Server = createServer(koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, recorded, sentAsBytes };
}

test('a JSON answer is serialised once: the response sends the bytes recorded, with its JSON type and length', async (t) => {
  const { url, recorded, sentAsBytes } = await serve(t, 201, () => ({ id: 'inv_1', amount: '12.50', note: 'ünïcode' }));
  const response = await fetch(url, { method: 'POST' });
  const bytes = Buffer.from(await response.arrayBuffer());
  t.is(response.status, 201);
  t.is(response.headers.get('content-type'), 'application/json; charset=utf-8');
  t.is(Number(response.headers.get('content-length')), bytes.length);
  t.is(recorded.length, 1);
  t.deepEqual(bytes, recorded[0]!.body);
  t.deepEqual(JSON.parse(bytes.toString('utf8')), { id: 'inv_1', amount: '12.50', note: 'ünïcode' });
  t.is(recorded[0]!.headers['content-type'], 'application/json; charset=utf-8');
  t.deepEqual(sentAsBytes, [true], 'Koa is handed the recorded bytes, not the object to serialise again');
});

test('an error document keeps its own JSON type', async (t) => {
  const { url, recorded } = await serve(t, 409, () => ({ error: { code: 'external_id_conflict' } }), 'application/problem+json');
  const response = await fetch(url, { method: 'POST' });
  t.is(response.status, 409);
  t.is(response.headers.get('content-type'), 'application/problem+json');
  t.deepEqual(await response.json(), { error: { code: 'external_id_conflict' } });
  t.is(recorded[0]!.headers['content-type'], 'application/problem+json');
});

for (const [kind, body, text] of [
  ['a Node stream', () => Readable.from(['line 1\n', 'line 2\n']), 'line 1\nline 2\n'],
  ['a Blob', () => new Blob(['blob text']), 'blob text'],
  ['a web stream', () => new Blob(['web stream text']).stream(), 'web stream text'],
  ['a fetch Response', () => new Response('response text'), 'response text'],
] as const) {
  test(`${kind} is sent as Koa sends it, and not recorded`, async (t) => {
    const { url, recorded, sentAsBytes } = await serve(t, 200, body);
    const response = await fetch(url, { method: 'POST' });
    t.is(await response.text(), text);
    t.deepEqual(recorded, [undefined]);
    t.deepEqual(sentAsBytes, [false]);
  });
}

test('a text answer is recorded as its bytes and sent unchanged', async (t) => {
  const { url, recorded } = await serve(t, 200, () => 'plain text');
  const response = await fetch(url, { method: 'POST' });
  t.is(await response.text(), 'plain text');
  t.is(response.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.deepEqual(recorded[0]!.body, Buffer.from('plain text'));
});

test('a body that cannot be serialised releases the copy (nothing recorded) and fails as Koa fails it', async (t) => {
  const { url, recorded } = await serve(t, 201, () => ({ amount: 1n }));
  const response = await fetch(url, { method: 'POST' });
  t.is(response.status, 500);
  t.deepEqual(recorded, [undefined]);
});
