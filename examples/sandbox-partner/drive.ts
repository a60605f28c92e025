/**
 * A partner's script against the sandbox API: creates an invoice whose webhooks go to
 * CALLBACK_URL, then drives it pending → detected → paid → reverted → paid and asks for a
 * duplicate delivery of the last terminal event. Every request is signed as spec 5.1 says
 * (HMAC-SHA256 over method, path, timestamp and raw body, keyed with the API secret). Prints one
 * JSON line per step: `{"step": ..., "status": <HTTP status>, "body": ...}`; exits 1 on any
 * unexpected answer.
 *
 * Run: GATEWAY_URL=http://127.0.0.1:3000 PROJECT_ID=... API_SECRET=sk_sandbox_... \
 *      CALLBACK_URL=http://127.0.0.1:8787/hooks node --import tsx examples/sandbox-partner/drive.ts
 */
import { createHmac } from 'node:crypto';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const base = env('GATEWAY_URL');
const projectId = env('PROJECT_ID');
const secret = env('API_SECRET');
const callbackUrl = env('CALLBACK_URL');

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const pathname = `/api/v1/sandbox${path}`;
  const rawBody = body === undefined ? '' : JSON.stringify(body);
  const timestamp = String(Math.floor(Date.now() / 1000));
  // The signed target is the path plus the query string as sent (this script sends none).
  const signature = createHmac('sha256', secret).update(`${method}\n${pathname}\n${timestamp}\n${rawBody}`).digest('hex');
  const headers: Record<string, string> = { 'X-Project-Id': projectId, 'X-Timestamp': timestamp, 'X-Signature': signature };
  if (rawBody) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${base}${pathname}`, { method, headers, ...(rawBody ? { body: rawBody } : {}) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function step(name: string, expected: number, method: string, path: string, body?: unknown): Promise<any> {
  const result = await call(method, path, body);
  console.log(JSON.stringify({ step: name, status: result.status, body: result.body }));
  if (result.status !== expected) {
    console.error(`${name}: expected HTTP ${expected}, got ${result.status}`);
    process.exit(1);
  }
  return result.body;
}

const invoice = await step('create', 201, 'POST', '/invoices', { external_id: `example-${Date.now()}`, coin: 'eth', amount_crypto: '0.05', callback_url: callbackUrl });
await step('detect', 200, 'POST', `/invoices/${invoice.id}/simulate-detect`, { seed: 'example' });
await step('paid', 200, 'POST', `/invoices/${invoice.id}/simulate-paid`, {});
await step('reorg', 200, 'POST', `/invoices/${invoice.id}/simulate-reorg`, {});
await step('reconfirm', 200, 'POST', `/invoices/${invoice.id}/simulate-reconfirm`, {});
await step('duplicate-delivery', 200, 'POST', `/invoices/${invoice.id}/simulate-duplicate-delivery`, {});
const final = await step('retrieve', 200, 'GET', `/invoices/${invoice.id}`);
if (final.status !== 'paid') {
  console.error(`expected the invoice to end paid, it is ${final.status}`);
  process.exit(1);
}
