/**
 * A partner's webhook receiver for the sandbox: verifies every delivery's X-Service-Signature with
 * the project's API secret, deduplicates on event_id, and prints one JSON line per delivery:
 * `{"accepted": <envelope>}`, `{"duplicate": "<event_id>"}` or `{"rejected": "<reason>"}`.
 *
 * Run: API_SECRET=sk_sandbox_... PORT=8787 node --import tsx examples/sandbox-partner/receiver.ts
 * (PORT 0 or unset picks a free port; the first line printed is `listening on <url>`.)
 *
 * The seen-id set lives in memory to keep the example short. A real receiver stores processed
 * event ids durably (a unique column written in the same transaction as the effect of the event).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADER, verifyWebhook, type WebhookEnvelope } from '@gw/client';

const secret = process.env['API_SECRET'];
if (!secret) throw new Error('API_SECRET is required');
const seen = new Set<string>();

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', async () => {
    const rawBody = Buffer.concat(chunks);
    const verified = await verifyWebhook({ header: req.headers[SIGNATURE_HEADER] as string | undefined, rawBody, secrets: [secret] });
    if (!verified.ok) {
      console.log(JSON.stringify({ rejected: verified.reason }));
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: verified.reason }));
      return;
    }
    const envelope = JSON.parse(rawBody.toString('utf8')) as WebhookEnvelope;
    if (envelope.mode !== 'sandbox') {
      // This receiver serves sandbox traffic only (spec 6, rule 1).
      console.log(JSON.stringify({ rejected: `mode ${envelope.mode}` }));
      res.writeHead(400).end();
      return;
    }
    if (seen.has(envelope.event_id)) {
      console.log(JSON.stringify({ duplicate: envelope.event_id }));
    } else {
      seen.add(envelope.event_id);
      console.log(JSON.stringify({ accepted: envelope }));
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
});
server.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
