/**
 * The gateway as an x402 facilitator for a partner's own API (issue 41) on anvil with the EIP-3009
 * test token: the facilitator token (derived from the project's API secret, following its
 * rotation), `supported`, `assets`, `pay-to` (a fresh invoice per paid call), and `verify` /
 * `settle` of requirements the gateway offered, payment failures as HTTP 200 protocol bodies.
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { getAddress, Wallet } from 'ethers';
import { facilitatorToken } from '../src/facilitator-token.js';
import type { PaymentRequirements } from '../src/protocol/messages.js';
import { ANVIL_CAIP, signPayment, startX402, USDC, USDC_DOMAIN, type X402Harness } from './helpers.js';

let h: X402Harness;
let token: string;
test.before(async () => {
  h = await startX402();
  token = facilitatorToken(h.project.projectId, h.project.secret);
});
test.after.always(async () => {
  await h?.stop();
});

const BASE = '/api/v1/x402/facilitator';

async function call(method: 'GET' | 'POST', path: string, body?: unknown, bearer: string | null = token): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (bearer !== null) headers['Authorization'] = `Bearer ${bearer}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${h.gw.url}${BASE}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: await res.json() };
}

async function payTo(amount = '0.25', url = 'https://api.partner.example/weather'): Promise<{ invoice_id: string; requirements: PaymentRequirements }> {
  const res = await call('POST', '/pay-to', { coin: 'usdc', amount, resource: { url, description: 'Weather' } });
  if (res.status !== 201) throw new Error(`pay-to: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

test.serial('without the token, or with a wrong one, every route is 401 x402_credential_invalid', async (t) => {
  const other = facilitatorToken(h.project.projectId, 'f'.repeat(64));
  const forged = `${token.slice(0, -4)}AAAA`;
  const otherProject = token.replace(h.project.projectId, '01JAAAAAAAAAAAAAAAAAAAAAAA');
  for (const bearer of [null, 'x402_nonsense', other, forged, otherProject, h.project.secret]) {
    for (const [method, path] of [
      ['GET', '/supported'],
      ['GET', '/assets'],
      ['POST', '/verify'],
    ] as const) {
      const res = await call(method, path, method === 'POST' ? {} : undefined, bearer);
      t.is(res.status, 401, `${method} ${path} with ${bearer ?? 'no token'}`);
      t.is(res.body.error_code, 'x402_credential_invalid');
    }
  }
});

test.serial('supported lists the exact kind of the project’s network and the gas wallet; assets names the token as a route’s price does', async (t) => {
  const supported = await call('GET', '/supported');
  t.is(supported.status, 200);
  t.deepEqual(supported.body, {
    kinds: [{ x402Version: 2, scheme: 'exact', network: ANVIL_CAIP }],
    extensions: [],
    signers: { 'eip155:*': [h.gasWallet.address] },
  });
  const assets = await call('GET', '/assets');
  t.is(assets.status, 200);
  t.deepEqual(assets.body, {
    data: [{ coin: 'usdc', network: ANVIL_CAIP, chain: 'eth', gateway_network: 'anvil', asset: getAddress(h.usdc), decimals: 6, extra: { ...USDC_DOMAIN } }],
  });
});

test.serial('pay-to gives each call an invoice of its own at a distinct address; a coin without EIP-3009 is 422', async (t) => {
  const first = await payTo('0.25');
  const second = await payTo('0.25');
  t.not(first.invoice_id, second.invoice_id);
  t.not(first.requirements.payTo, second.requirements.payTo);
  for (const offer of [first, second]) {
    const invoice = await h.reload(offer.invoice_id);
    t.like(offer.requirements, {
      scheme: 'exact',
      network: ANVIL_CAIP,
      asset: getAddress(h.usdc),
      amount: (USDC / 4n).toString(),
      payTo: getAddress(invoice.address),
      extra: { ...USDC_DOMAIN },
    });
    t.is(invoice.coin, 'usdc');
    t.regex(invoice.external_id, /^x402_/);
  }
  const unsupported = await call('POST', '/pay-to', { coin: 'eth', amount: '0.01', resource: { url: 'https://api.partner.example/x' } });
  t.is(unsupported.status, 422);
  t.is(unsupported.body.error_code, 'x402_coin_unsupported');
  const invalid = await call('POST', '/pay-to', { coin: 'usdc', amount: '-1', resource: { url: 'https://api.partner.example/x' } });
  t.is(invalid.status, 400);
  t.is(invalid.body.error_code, 'validation_error');
});

test.serial('verify and settle a valid payment of an offer: the tokens land at the invoice’s address', async (t) => {
  const offer = await payTo('1');
  const payer = await h.payer(3n * USDC);
  const payment = await signPayment(payer, offer.requirements);
  const envelope = { x402Version: 2, paymentPayload: payment, paymentRequirements: offer.requirements };
  const verified = await call('POST', '/verify', envelope);
  t.is(verified.status, 200);
  t.deepEqual(verified.body, { isValid: true, payer: payer.address });
  const settled = await call('POST', '/settle', envelope);
  t.is(settled.status, 200);
  t.like(settled.body, { success: true, network: ANVIL_CAIP, payer: payer.address });
  t.regex(settled.body.transaction, /^0x[0-9a-f]{64}$/);
  t.is(await h.balanceOf(offer.requirements.payTo), USDC);

  const again = await call('POST', '/settle', envelope);
  t.is(again.status, 200, 'a refused settlement is still HTTP 200');
  t.like(again.body, { success: false, transaction: '', network: ANVIL_CAIP });
  t.is(await h.balanceOf(offer.requirements.payTo), USDC);
});

test.serial('requirements the gateway did not offer, an old protocol version and a bad payment are refused in protocol bodies (HTTP 200)', async (t) => {
  const offer = await payTo('0.5');
  const payer = await h.payer(USDC);
  const stranger = Wallet.createRandom().address;
  const unknown: PaymentRequirements = { ...offer.requirements, payTo: getAddress(stranger) };
  const unknownPayment = await signPayment(payer, unknown);
  const settle = await call('POST', '/settle', { x402Version: 2, paymentPayload: unknownPayment, paymentRequirements: unknown });
  t.is(settle.status, 200);
  t.deepEqual(settle.body, { success: false, errorReason: 'invalid_payment_requirements', transaction: '', network: ANVIL_CAIP, payer: payer.address });
  const verify = await call('POST', '/verify', { x402Version: 2, paymentPayload: unknownPayment, paymentRequirements: unknown });
  t.like(verify.body, { isValid: false, invalidReason: 'invalid_payment_requirements' });

  const payment = await signPayment(payer, offer.requirements);
  const old = await call('POST', '/verify', { x402Version: 1, paymentPayload: payment, paymentRequirements: offer.requirements });
  t.like(old.body, { isValid: false, invalidReason: 'invalid_x402_version' });

  const shapeless = await call('POST', '/verify', { x402Version: 2, paymentPayload: payment, paymentRequirements: { payTo: offer.requirements.payTo } });
  t.like(shapeless.body, { isValid: false, invalidReason: 'invalid_payment_requirements' });

  const expired = await signPayment(payer, offer.requirements, { authorization: { validBefore: String(Math.floor(Date.now() / 1000) - 60) } });
  const refused = await call('POST', '/verify', { x402Version: 2, paymentPayload: expired, paymentRequirements: offer.requirements });
  t.is(refused.status, 200);
  t.like(refused.body, { isValid: false, invalidReason: 'invalid_exact_evm_payload_authorization_valid_before' });

  const envelope = await call('POST', '/verify', { paymentPayload: payment });
  t.is(envelope.status, 400, 'an envelope without its fields is a REST validation error');
  t.is(envelope.body.error_code, 'validation_error');
  t.is(await h.balanceOf(offer.requirements.payTo), 0n);
});

test.serial('the token follows the API key: a suspended project is 403, a rotated-away secret’s token 401, the new secret’s works', async (t) => {
  const projects = h.gw.kernel.cradle.tenancyProjects;
  await projects.suspend(h.project.projectId, CLI_ACTOR);
  try {
    const suspended = await call('GET', '/supported');
    t.is(suspended.status, 403);
    t.is(suspended.body.error_code, 'project_suspended');
  } finally {
    await projects.resume(h.project.projectId, CLI_ACTOR);
  }
  const rotated = await h.gw.kernel.cradle.tenancyApiKeys.rotate(h.project.projectId, CLI_ACTOR, { immediate: true });
  const old = await call('GET', '/supported');
  t.is(old.status, 401);
  t.is(old.body.error_code, 'x402_credential_invalid');
  token = facilitatorToken(h.project.projectId, rotated.api_secret);
  t.is((await call('GET', '/supported')).status, 200);
});
