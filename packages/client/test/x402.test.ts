/**
 * The x402 helpers of @gw/client against a local HTTP server standing in for the gateway's
 * facilitator routes: the token's derivation, `gatewayPayTo` (a fresh offer per unpaid request, the
 * paid offer's address on the retry) and `gatewayAsset`, and the typed error of a refusal.
 */
import test from 'ava';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayError, gatewayAsset, gatewayPayTo, x402FacilitatorToken } from '../src/index.js';

const PROJECT = '01JAAAAAAAAAAAAAAAAAAAAAAA';
const TOKEN = 'x402_token_under_test';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly authorization: string | undefined;
  readonly body: unknown;
}

let server: Server;
let base: string;
const seen: Seen[] = [];
let offers = 0;

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

test.before(async () => {
  server = createServer((req, res) => {
    void readBody(req).then((body) => {
      seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body });
      const send = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
        res.end(JSON.stringify(value));
      };
      if (req.headers.authorization !== `Bearer ${TOKEN}`) {
        return send(401, { error_code: 'x402_credential_invalid', message: 'no', request_id: 'req-1' });
      }
      if (req.method === 'POST' && req.url === '/api/v1/x402/facilitator/pay-to') {
        const { coin } = body as { coin: string };
        if (coin === 'btc') return send(422, { error_code: 'x402_coin_unsupported', message: 'no EIP-3009', request_id: 'req-2' });
        if (coin === 'busy') return send(429, { error_code: 'rate_limit_exceeded', message: 'slow down', request_id: 'req-3' }, { 'Retry-After': '7' });
        offers += 1;
        const payTo = `0x${String(offers).padStart(40, '0')}`;
        return send(201, { invoice_id: `inv_${offers}`, requirements: { scheme: 'exact', network: 'eip155:31337', payTo, amount: '1000' } });
      }
      if (req.method === 'GET' && req.url === '/api/v1/x402/facilitator/assets') {
        return send(200, {
          data: [
            {
              coin: 'usdc_base',
              network: 'eip155:84532',
              chain: 'base',
              gateway_network: 'base-sepolia',
              asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
              decimals: 6,
              extra: { name: 'USDC', version: '2' },
            },
          ],
        });
      }
      return send(404, { error_code: 'not_found', message: 'No such route.', request_id: 'req-4' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/x402/facilitator`;
});
test.after.always(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('x402FacilitatorToken is x402_<project>_<base64url HMAC-SHA256(secret, "x402-facilitator:<project>")>', async (t) => {
  const secret = 'a'.repeat(64);
  const token = await x402FacilitatorToken(PROJECT, secret);
  const expected = createHmac('sha256', secret).update(`x402-facilitator:${PROJECT}`).digest('base64url');
  t.is(token, `x402_${PROJECT}_${expected}`);
  t.regex(token, /^x402_[0-9A-Z]{26}_[A-Za-z0-9_-]{43}$/);
  t.not(await x402FacilitatorToken(PROJECT, 'b'.repeat(64)), token, 'another secret, another token');
});

test.serial(
  'gatewayPayTo: a fresh offer for each unpaid request, with the resource (origin and path, never the query); the paid offer’s address on the retry',
  async (t) => {
    const payTo = gatewayPayTo({ facilitatorUrl: `${base}/`, token: TOKEN, coin: 'usdc_base', amount: '0.001', description: 'Weather' });
    const before = seen.length;
    const ctx = { path: '/weather', adapter: { getUrl: () => 'https://api.partner.example/weather?city=Oslo' } };
    const first = await payTo(ctx);
    const second = await payTo(ctx);
    t.regex(first, /^0x0{39}\d$/);
    t.not(first, second, 'each unpaid request is an invoice of its own');
    const calls = seen.slice(before);
    t.is(calls.length, 2);
    t.deepEqual(calls[0], {
      method: 'POST',
      url: '/api/v1/x402/facilitator/pay-to',
      authorization: `Bearer ${TOKEN}`,
      body: { coin: 'usdc_base', amount: '0.001', resource: { url: 'https://api.partner.example/weather', description: 'Weather' } },
    });

    const payment = { x402Version: 2, accepted: { scheme: 'exact', payTo: first, amount: '1000' }, payload: { signature: '0x' } };
    const header = Buffer.from(JSON.stringify(payment)).toString('base64');
    t.is(await payTo({ ...ctx, paymentHeader: header }), first, 'the retry carries the offer it paid');
    t.is(seen.length, before + 2, 'no new offer for a paid request');
    const third = await payTo({ ...ctx, paymentHeader: 'not base64 at all!' });
    t.not(third, first, 'an unreadable payment header is answered like no payment');
    t.is(await payTo({ path: '/only-path' }).then(() => (seen.at(-1)!.body as { resource: { url: string } }).resource.url), '/only-path');
    t.is(await payTo({ path: '/only-path?token=secret#x' }).then(() => (seen.at(-1)!.body as { resource: { url: string } }).resource.url), '/only-path');
    const fragment = { path: '/weather', adapter: { getUrl: () => 'https://api.partner.example:8443/weather/today?key=secret#top' } };
    t.is(await payTo(fragment).then(() => (seen.at(-1)!.body as { resource: { url: string } }).resource.url), 'https://api.partner.example:8443/weather/today');
  },
);

test.serial('gatewayPayTo: the gateway’s refusals are GatewayErrors with its code, status and Retry-After', async (t) => {
  const unsupported = await t.throwsAsync(gatewayPayTo({ facilitatorUrl: base, token: TOKEN, coin: 'btc', amount: '1' })({ path: '/x' }), {
    instanceOf: GatewayError,
  });
  t.is(unsupported.errorCode, 'x402_coin_unsupported');
  t.is(unsupported.status, 422);
  const limited = await t.throwsAsync(gatewayPayTo({ facilitatorUrl: base, token: TOKEN, coin: 'busy', amount: '1' })({ path: '/x' }), {
    instanceOf: GatewayError,
  });
  t.is(limited.errorCode, 'rate_limit_exceeded');
  t.is(limited.retryAfter, 7);
  const denied = await t.throwsAsync(gatewayPayTo({ facilitatorUrl: base, token: 'wrong', coin: 'usdc_base', amount: '1' })({ path: '/x' }), {
    instanceOf: GatewayError,
  });
  t.is(denied.errorCode, 'x402_credential_invalid');
  t.is(denied.status, 401);
  t.is(denied.requestId, 'req-1');
});

test('gatewayAsset: the network, token, EIP-712 domain and decimals of the coin; an unknown coin is x402_coin_unsupported', async (t) => {
  t.deepEqual(await gatewayAsset({ facilitatorUrl: base, token: TOKEN, coin: 'usdc_base' }), {
    network: 'eip155:84532',
    asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    extra: { name: 'USDC', version: '2' },
    decimals: 6,
  });
  const missing = await t.throwsAsync(gatewayAsset({ facilitatorUrl: base, token: TOKEN, coin: 'usdt_base' }), { instanceOf: GatewayError });
  t.is(missing.errorCode, 'x402_coin_unsupported');
});
