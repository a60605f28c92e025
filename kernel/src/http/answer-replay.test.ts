import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import test from 'ava';
import Koa from 'koa';
import { pino } from 'pino';
import { answerReplayMiddleware, attachAnswerReplay, type RecordedAnswer } from './answer-replay.js';

/** A server whose one route answers `body` with `status`; returns what each request's replay handle was given to record. */
async function serve(t: { teardown(fn: () => unknown): void }, status: number, body: () => unknown) {
  const recorded: (RecordedAnswer | undefined)[] = [];
  const koa = new Koa();
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
  });
  const server: Server = createServer(koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, recorded };
}

test('a JSON answer is sent as the bytes recorded for it, with its JSON type and length', async (t) => {
  const { url, recorded } = await serve(t, 201, () => ({ id: 'inv_1', amount: '12.50', note: 'ünïcode' }));
  const response = await fetch(url, { method: 'POST' });
  const bytes = Buffer.from(await response.arrayBuffer());
  t.is(response.status, 201);
  t.is(response.headers.get('content-type'), 'application/json; charset=utf-8');
  t.is(Number(response.headers.get('content-length')), bytes.length);
  t.is(recorded.length, 1);
  t.deepEqual(bytes, recorded[0]!.body);
  t.deepEqual(JSON.parse(bytes.toString('utf8')), { id: 'inv_1', amount: '12.50', note: 'ünïcode' });
  t.is(recorded[0]!.headers['content-type'], 'application/json; charset=utf-8');
});

test('a streamed answer is sent as it streams and not recorded', async (t) => {
  const { url, recorded } = await serve(t, 200, () => Readable.from(['line 1\n', 'line 2\n']));
  const response = await fetch(url, { method: 'POST' });
  t.is(await response.text(), 'line 1\nline 2\n');
  t.deepEqual(recorded, [undefined]);
});

test('a text answer is recorded as its bytes and sent unchanged', async (t) => {
  const { url, recorded } = await serve(t, 200, () => 'plain text');
  const response = await fetch(url, { method: 'POST' });
  t.is(await response.text(), 'plain text');
  t.is(response.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.deepEqual(recorded[0]!.body, Buffer.from('plain text'));
});
