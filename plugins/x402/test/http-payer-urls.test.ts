/**
 * The payer URLs as x402 resources (issue 41, "HTTP: payer URLs") on anvil with the EIP-3009 test
 * token: an invoice's checkout URL and a session's page URL answer an x402 client 402 with the
 * requirements, take a signed payment (ethers `signTypedData`, as a client signs) and settle it
 * into the invoice's address; a browser still gets the page; refusals carry the protocol's reason.
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { freePort, signedFetch } from '@gw/kernel/testing';
import { getAddress } from 'ethers';
import { decodeX402Header, encodeX402Header } from '../src/protocol/headers.js';
import type { PaymentRequired, PaymentRequirements, SettleResponse } from '../src/protocol/messages.js';
import { ANVIL_CAIP, signPayment, startX402, USDC, USDC_DOMAIN, type X402Harness } from './helpers.js';

let h: X402Harness;
test.before(async () => {
  h = await startX402();
});
test.after.always(async () => {
  await h?.stop();
});

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** The payer URL on this gateway (the views name the configured base URL). */
function local(url: string): string {
  const parsed = new URL(url);
  return `${h.gw.url}${parsed.pathname}${parsed.search}`;
}

function ask(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(local(url), { headers: { Accept: 'application/json', ...headers }, redirect: 'manual' });
}

/** The 402's requirements: the header and the body say the same. */
async function required(res: Response): Promise<PaymentRequired> {
  const header = decodeX402Header(res.headers.get('payment-required') ?? undefined) as PaymentRequired | undefined;
  if (!header) throw new Error(`no decodable PAYMENT-REQUIRED (status ${res.status})`);
  const body = (await res.json()) as PaymentRequired;
  if (JSON.stringify(body) !== JSON.stringify(header)) throw new Error('the body is not the PAYMENT-REQUIRED header');
  return header;
}

async function session(body: Record<string, unknown>): Promise<{ id: string; url: string; coin: string | null; invoice_id: string | null }> {
  const res = await signedFetch(h.gw.url, '/api/v1/checkout-sessions', { ...h.project, method: 'POST', body });
  if (res.status !== 201) throw new Error(`session: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function sessionNow(id: string): Promise<{ coin: string | null; invoice_id: string | null; invoices: unknown[] }> {
  return (await signedFetch(h.gw.url, `/api/v1/checkout-sessions/${id}`, h.project)).body;
}

test.serial('an invoice URL asked without HTML answers 402 with its requirement; a browser gets the page as before', async (t) => {
  const invoice = await h.invoice('1.5');
  const res = await ask(invoice.checkout_url);
  t.is(res.status, 402);
  t.is(res.headers.get('cache-control'), 'no-store');
  t.is(res.headers.get('access-control-expose-headers'), 'PAYMENT-REQUIRED, PAYMENT-RESPONSE');
  t.regex(res.headers.get('content-type') ?? '', /^application\/json/);
  const asked = await required(res);
  t.deepEqual(asked, {
    x402Version: 2,
    error: 'Payment required',
    resource: { url: invoice.checkout_url, description: `Invoice ${invoice.id}`, mimeType: 'application/json' },
    accepts: [
      {
        scheme: 'exact',
        network: ANVIL_CAIP,
        asset: getAddress(h.usdc),
        amount: ((15n * USDC) / 10n).toString(),
        payTo: getAddress(invoice.address),
        maxTimeoutSeconds: 300,
        extra: { ...USDC_DOMAIN },
      },
    ],
  });

  const anyAccept = await fetch(local(invoice.checkout_url), { redirect: 'manual' });
  t.is(anyAccept.status, 402, 'a client that names no type (fetch: */*) is a machine');
  await anyAccept.body?.cancel();

  const page = await ask(invoice.checkout_url, { Accept: BROWSER });
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
  t.is(page.headers.get('payment-required'), null);
  t.true((await page.text()).includes(invoice.address), 'the page shows the address to pay');
});

test.serial(
  'a payment signed with ethers is verified and settled: 200 with PAYMENT-RESPONSE naming the transaction; the tokens are at the invoice’s address',
  async (t) => {
    const invoice = await h.invoice('2');
    const offer = (await required(await ask(invoice.checkout_url))).accepts[0]!;
    const payer = await h.payer(5n * USDC);
    const payment = await signPayment(payer, offer);
    const res = await ask(invoice.checkout_url, { 'PAYMENT-SIGNATURE': encodeX402Header(payment) });
    t.is(res.status, 200);
    const settled = decodeX402Header(res.headers.get('payment-response') ?? undefined) as SettleResponse | undefined;
    t.truthy(settled, 'PAYMENT-RESPONSE decodes');
    t.like(settled, { success: true, network: ANVIL_CAIP, payer: payer.address });
    t.regex(settled!.transaction, /^0x[0-9a-f]{64}$/);
    const body = (await res.json()) as { status: string; session_id?: string };
    t.like(body, { object: 'x402_payment', invoice_id: invoice.id, transaction: settled!.transaction, network: ANVIL_CAIP, payer: payer.address });
    t.is(body.session_id, undefined);
    t.true(['pending', 'detected', 'paid', 'partial'].includes(body.status));
    t.is(await h.balanceOf(invoice.address), 2n * USDC, 'settled into the invoice’s own address');
    t.is(await h.balanceOf(payer.address), 3n * USDC);

    const replay = await ask(invoice.checkout_url, { 'PAYMENT-SIGNATURE': encodeX402Header(payment) });
    t.is(replay.status, 402);
    const refused = await required(replay);
    t.true(['invalid_exact_evm_nonce_already_used', 'invalid_payment_requirements'].includes(refused.error ?? ''), `a replay is refused (${refused.error})`);
    t.is(await h.balanceOf(invoice.address), 2n * USDC, 'nothing more arrived');
  },
);

test.serial('a bad payment is 402 with the reason as the requirements’ error, and nothing is sent', async (t) => {
  const invoice = await h.invoice('1');
  const offer = (await required(await ask(invoice.checkout_url))).accepts[0]!;
  const payer = await h.payer(5n * USDC);
  const sent = await h.sentCount(h.gasWallet.address);

  const tooLittle = await signPayment(payer, offer, { authorization: { value: (USDC / 2n).toString() } });
  const res = await ask(invoice.checkout_url, { 'PAYMENT-SIGNATURE': encodeX402Header(tooLittle) });
  t.is(res.status, 402);
  const refused = await required(res);
  t.is(refused.error, 'invalid_exact_evm_payload_authorization_value_mismatch');
  t.deepEqual(refused.accepts, [offer], 'the requirement is offered again');
  t.is(res.headers.get('payment-response'), null, 'nothing was settled');

  const elsewhere = await signPayment(payer, offer, { authorization: { to: payer.address } });
  t.is((await required(await ask(invoice.checkout_url, { 'PAYMENT-SIGNATURE': encodeX402Header(elsewhere) }))).error, 'invalid_exact_evm_recipient_mismatch');

  const garbage = await ask(invoice.checkout_url, { 'PAYMENT-SIGNATURE': 'not a payment' });
  t.is(garbage.status, 402);
  t.is((await required(garbage)).error, 'invalid_payload');

  t.is(await h.balanceOf(invoice.address), 0n);
  t.is(await h.sentCount(h.gasWallet.address), sent, 'the gas wallet sent nothing');
});

test.serial('an invoice x402 cannot pay (a native coin) is the page to a machine; a payment to it is refused with nothing to accept', async (t) => {
  const invoice = await h.invoice('0.01', { coin: 'eth' });
  const page = await ask(invoice.checkout_url);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
  await page.body?.cancel();
  const payer = await h.payer(USDC);
  const offer: PaymentRequirements = {
    scheme: 'exact',
    network: ANVIL_CAIP,
    asset: getAddress(h.usdc),
    amount: '1000',
    payTo: getAddress(invoice.address),
    maxTimeoutSeconds: 300,
    extra: { ...USDC_DOMAIN },
  };
  const res = await ask(invoice.checkout_url, { 'PAYMENT-SIGNATURE': encodeX402Header(await signPayment(payer, offer)) });
  t.is(res.status, 402);
  const refused = await required(res);
  t.is(refused.error, 'invalid_payment_requirements');
  t.deepEqual(refused.accepts, []);
});

test.serial('with settlement off, the payer URLs are pages to every client', async (t) => {
  const off = await h.second({ 'plugins.x402.settlement': 'off' });
  const invoice = await h.invoice('1');
  const res = await fetch(`${off.url}${new URL(invoice.checkout_url).pathname}`, { headers: { Accept: 'application/json' } });
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
  await res.body?.cancel();
});

test.serial('a session URL picks the first allowed payable coin and answers its invoice’s requirement; again, the same invoice', async (t) => {
  const opened = await session({ price_currency: 'USD', price_amount: '3', allowed_coins: ['eth', 'usdc'] });
  t.is(opened.invoice_id, null);
  const page = await ask(opened.url, { Accept: BROWSER });
  t.is(page.status, 200, 'a browser gets the page');
  await page.body?.cancel();
  t.is((await sessionNow(opened.id)).invoice_id, null, 'the page picks nothing');

  const res = await ask(opened.url);
  t.is(res.status, 402);
  const asked = await required(res);
  const now = await sessionNow(opened.id);
  t.is(now.coin, 'usdc', 'eth (native, no EIP-3009) is passed over');
  t.truthy(now.invoice_id);
  const invoice = await h.reload(now.invoice_id!);
  t.deepEqual(asked.resource, { url: opened.url, description: `Checkout session ${opened.id}`, mimeType: 'application/json' });
  t.like(asked.accepts[0], { network: ANVIL_CAIP, asset: getAddress(h.usdc), payTo: getAddress(invoice.address), amount: invoice.amount_crypto_units });

  const again = await required(await ask(opened.url));
  t.deepEqual(again.accepts, asked.accepts);
  t.is((await sessionNow(opened.id)).invoices.length, 1, 'no second pick');

  const payer = await h.payer(10n * USDC);
  const paid = await ask(opened.url, { 'PAYMENT-SIGNATURE': encodeX402Header(await signPayment(payer, asked.accepts[0]!)) });
  t.is(paid.status, 200);
  t.like(await paid.json(), { object: 'x402_payment', invoice_id: invoice.id, session_id: opened.id });
  t.is(await h.balanceOf(invoice.address), BigInt(invoice.amount_crypto_units));
});

test.serial('a session whose payer picked another coin is the page, ?coin= included: a GET never switches its coin', async (t) => {
  const opened = await session({ price_currency: 'USD', price_amount: '2', allowed_coins: ['eth', 'usdc'] });
  const token = new URL(opened.url).pathname.split('/').pop()!;
  await h.gw.kernel.cradle.sessionsCheckout.pick(token, 'eth', CLI_ACTOR);
  const page = await ask(opened.url);
  t.is(page.status, 200, 'the payer chose eth on the page');
  t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
  await page.body?.cancel();

  const notAllowed = await ask(`${opened.url}?coin=tok`);
  t.is(notAllowed.status, 200);
  await notAllowed.body?.cancel();
  t.is((await sessionNow(opened.id)).coin, 'eth');

  const before = await sessionNow(opened.id);
  const notSwitched = await ask(`${opened.url}?coin=usdc`);
  t.is(notSwitched.status, 200);
  t.regex(notSwitched.headers.get('content-type') ?? '', /^text\/html/);
  await notSwitched.body?.cancel();
  const now = await sessionNow(opened.id);
  t.is(now.coin, 'eth');
  t.is(now.invoice_id, before.invoice_id);
  t.is(now.invoices.length, 1);
});

test.serial('?coin= picks before the session has an invoice; afterwards it changes nothing', async (t) => {
  const opened = await session({ price_currency: 'USD', price_amount: '2', allowed_coins: ['eth', 'usdc'] });
  const notPayable = await ask(`${opened.url}?coin=eth`);
  t.is(notPayable.status, 200, 'eth cannot be paid with x402: the page, nothing picked');
  await notPayable.body?.cancel();
  t.is((await sessionNow(opened.id)).invoice_id, null);

  const picked = await required(await ask(`${opened.url}?coin=usdc`));
  const now = await sessionNow(opened.id);
  t.is(now.coin, 'usdc');
  t.is(picked.accepts[0]!.payTo, getAddress((await h.reload(now.invoice_id!)).address));
  t.is(picked.extensions, undefined, 'no other payable coin to name');
  const again = await ask(`${opened.url}?coin=eth`);
  t.is(again.status, 402, 'the current invoice is answered');
  t.deepEqual((await required(again)).accepts, picked.accepts);
  t.is((await sessionNow(opened.id)).invoices.length, 1);
});

test.serial('a node that does not answer: the page to a machine without a payment, 402 unexpected_verify_error with one, never a 500', async (t) => {
  const invoice = await h.invoice('1');
  const opened = await session({ price_currency: 'USD', price_amount: '2', allowed_coins: ['usdc'] });
  const required402 = await required(await ask(invoice.checkout_url));
  const payment = encodeX402Header(await signPayment(await h.payer(10n * USDC), required402.accepts[0]!));
  // A second instance whose only provider is a closed port: the token's EIP-3009 probe fails there.
  const closed = await freePort();
  const down = await h.second({
    'plugins.watchers.chains': { eth: { anvil: { providers: [{ name: 'down', url: `http://127.0.0.1:${closed}` }], startHeight: 1 } } },
  });
  const on = (url: string) => `${down.url}${new URL(url).pathname}`;
  for (const url of [invoice.checkout_url, opened.url]) {
    const page = await fetch(on(url), { headers: { Accept: 'application/json' }, redirect: 'manual' });
    t.is(page.status, 200, url);
    t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
    await page.body?.cancel();
  }
  t.is((await sessionNow(opened.id)).invoice_id, null, 'nothing picked');
  const paid = await fetch(on(invoice.checkout_url), { headers: { Accept: 'application/json', 'PAYMENT-SIGNATURE': payment }, redirect: 'manual' });
  t.is(paid.status, 402);
  t.like(await required(paid), { error: 'unexpected_verify_error', accepts: [] });
  t.is((await h.reload(invoice.id)).status, 'pending');
});
