/**
 * What the webhook benchmarks' bare senders send: a fresh envelope signed now, POSTed with node's
 * `http` client. The drain baseline (`run.ts`) and the client comparison (`http-clients.ts`) share
 * it, so both measure the same request.
 */
import { type Agent, request } from 'node:http';
import { newId } from '@gw/kernel';
import { signWebhook } from '@gw/webhook-verify';

/** A fresh `invoice.paid` envelope (new event and invoice ids, created now) and its signature header under `secret`. */
export function signedEnvelope(secret: string): { eventId: string; body: string; signature: string } {
  const eventId = newId();
  const body = JSON.stringify({
    event_id: eventId,
    event_type: 'invoice.paid',
    mode: 'testnet',
    created_at_iso: new Date().toISOString(),
    data: { invoice_id: newId() },
  });
  return { eventId, body, signature: signWebhook({ secrets: [secret], rawBody: body, timestamp: Math.floor(Date.now() / 1000) }) };
}

/** POSTs `body` to `target` over `agent` with `headers` (content type and length added); resolves with the status once the response has been read. */
export function postViaNodeHttp(agent: Agent, target: URL, body: string, headers: Readonly<Record<string, string>>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
