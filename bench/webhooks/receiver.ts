/**
 * The partner side of the webhook benchmark, in its own process: verifies every delivery's
 * signature (as a real receiver must), answers 200, and records per event the delay between the
 * envelope's `created_at_iso` (enqueue) and arrival. Prints `{"url": ...}` when listening.
 * `GET /stats` returns `{count, distinct, bad, firstAt, lastAt, latenciesMs}`; `POST /reset` clears.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '@gw/webhook-verify';

const secret = process.env['BENCH_SECRET']!;
let count = 0;
let bad = 0;
let firstAt = 0;
let lastAt = 0;
const seen = new Set<string>();
let latencies: number[] = [];

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.end(JSON.stringify({ count, distinct: seen.size, bad, firstAt, lastAt, latenciesMs: latencies }));
    return;
  }
  if (req.method === 'POST' && req.url === '/reset') {
    count = 0;
    bad = 0;
    firstAt = 0;
    lastAt = 0;
    seen.clear();
    latencies = [];
    res.end('{}');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const now = Date.now();
    const raw = Buffer.concat(chunks).toString('utf8');
    const verdict = verifyWebhook({ header: req.headers['x-service-signature'] as string | undefined, rawBody: raw, secrets: [secret] });
    if (!verdict.ok) {
      bad += 1;
      res.statusCode = 401;
      res.end();
      return;
    }
    const envelope = JSON.parse(raw) as { event_id: string; created_at_iso: string };
    count += 1;
    seen.add(envelope.event_id);
    if (firstAt === 0) firstAt = now;
    lastAt = now;
    latencies.push(now - Date.parse(envelope.created_at_iso));
    res.end('{"ok":true}');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
process.on('SIGTERM', () => process.exit(0));
