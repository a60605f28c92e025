/**
 * A partner's script against the sandbox API, with @gw/client: creates an invoice whose webhooks go
 * to CALLBACK_URL, then drives it pending → detected → paid → reverted → paid and asks for a
 * duplicate delivery of the last terminal event. The client signs every request (spec 5.1),
 * retries the create safely and throws a GatewayError with the error code on any refusal. Prints
 * one JSON line per step: `{"step": ..., "body": ...}`; exits 1 on an error. The create and the
 * retrieve are the calls a live integration makes: the client calls the sandbox's routes because
 * the secret starts with `sk_sandbox_`; only the simulations are the sandbox's own.
 *
 * Run: GATEWAY_URL=http://127.0.0.1:3000 PROJECT_ID=... API_SECRET=sk_sandbox_... \
 *      CALLBACK_URL=http://127.0.0.1:8787/hooks node --import tsx examples/sandbox-partner/drive.ts
 */
import { GatewayClient, GatewayError } from '@gw/client';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const gateway = new GatewayClient({ baseUrl: env('GATEWAY_URL'), projectId: env('PROJECT_ID'), apiSecret: env('API_SECRET') });

async function step<T>(name: string, call: Promise<T>): Promise<T> {
  try {
    const body = await call;
    console.log(JSON.stringify({ step: name, body }));
    return body;
  } catch (error) {
    if (error instanceof GatewayError) console.error(`${name}: HTTP ${error.status} ${error.errorCode} (request ${error.requestId})`);
    else console.error(`${name}: ${(error as Error).message}`);
    process.exit(1);
  }
}

const invoice = await step(
  'create',
  gateway.invoices.create({ external_id: `example-${Date.now()}`, coin: 'eth', amount_crypto: '0.05', callback_url: env('CALLBACK_URL') }),
);
await step('detect', gateway.sandbox.simulate.detect(invoice.id, { seed: 'example' }));
await step('paid', gateway.sandbox.simulate.paid(invoice.id));
await step('reorg', gateway.sandbox.simulate.reorg(invoice.id));
await step('reconfirm', gateway.sandbox.simulate.reconfirm(invoice.id));
await step('duplicate-delivery', gateway.sandbox.simulate.duplicateDelivery(invoice.id));
const final = await step('retrieve', gateway.invoices.retrieve(invoice.id));
if (final.status !== 'paid') {
  console.error(`expected the invoice to end paid, it is ${final.status}`);
  process.exit(1);
}
