/**
 * x402 over MCP (issue 41, "MCP"), through the MCP SDK's own client over the gateway's streamable
 * HTTP endpoint with a PAT, on anvil: `get_x402_requirements` for invoices and checkout sessions,
 * and a paid tool (`create_invoice`, whose run leaves a trace) under x402's MCP transport: the
 * payment-required result, a signed payment in `_meta["x402/payment"]` settled on chain and seen by
 * the watchers, and refusals after which the tool did not run.
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { waitFor, type TestKernel } from '@gw/kernel/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { getAddress } from 'ethers';
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from '../src/protocol/messages.js';
import { ANVIL_CAIP, signPayment, startX402, USDC, USDC_DOMAIN, type X402Harness } from './helpers.js';

const PAID_TOOL = 'create_invoice';
const PRICE = '0.25';
const PRICE_UNITS = '250000';
/** Another paid tool, cheaper. */
const CHEAP_TOOL = 'get_invoice';

let h: X402Harness;
/** The gateway whose `create_invoice` costs PRICE usdc per call (paid into the harness's project). */
let paid: TestKernel;
let token: string;

test.before(async () => {
  h = await startX402({ poolSize: 32 });
  paid = await h.second({
    'plugins.x402.paidTools': {
      [PAID_TOOL]: { projectId: h.project.projectId, coin: 'usdc', amount: PRICE },
      [CHEAP_TOOL]: { projectId: h.project.projectId, coin: 'usdc', amount: '0.01' },
    },
  });
  const pat = await h.gw.kernel.cradle.tenancyPats.create(
    { scopes: ['projects:read', 'invoices:read', 'invoices:write'], operator: h.operatorId, name: 'x402-agent' },
    CLI_ACTOR,
  );
  token = pat.token;
});
test.after.always(() => h?.stop());

async function agent(gw: TestKernel = paid): Promise<Client> {
  const client = new Client({ name: 'x402-test-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gw.url}/api/mcp/transport`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return client;
}

interface ToolResult {
  readonly isError?: boolean;
  readonly structuredContent?: Record<string, unknown>;
  readonly content: readonly { readonly type: string; readonly text?: string }[];
  readonly _meta?: Record<string, unknown>;
}

async function call(client: Client, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as ToolResult;
}

const errorCode = (result: ToolResult) => (result.isError ? (result.structuredContent as { error_code?: string }).error_code : undefined);

/** A checkout session of 2 USD payable in tok or usdc (tok first, which x402 cannot pay), created with the CLI: it and its project's principal. */
async function sessionOfTwoCoins() {
  const principal = await h.principal();
  const { session } = await h.gw.kernel.cradle.sessionsCheckout.create(
    { id: principal.id, kind: principal.kind },
    { price_currency: 'USD', price_amount: '2', allowed_coins: ['tok', 'usdc'] },
    CLI_ACTOR,
  );
  return { principal, session };
}

/** The arguments of a call of the paid tool: an invoice of the harness's project. */
const createArgs = (externalId: string) => ({ project_id: h.project.projectId, external_id: externalId, coin: 'usdc', amount_crypto: '3' });

/** The payment-required result of a paid call: isError, PaymentRequired as structuredContent and as the text. */
function paymentRequired(t: { true(v: boolean): void; deepEqual(a: unknown, b: unknown): void }, result: ToolResult): PaymentRequired {
  t.true(result.isError === true);
  const required = result.structuredContent as unknown as PaymentRequired;
  t.deepEqual(JSON.parse(result.content[0]!.text!), required);
  return required;
}

test.serial('get_x402_requirements: an invoice’s requirements and its payer URL', async (t) => {
  const client = await agent(h.gw);
  const invoice = await h.invoice('1.5');
  const result = await call(client, 'get_x402_requirements', { project_id: h.project.projectId, invoice_id: invoice.id });
  t.falsy(result.isError, JSON.stringify(result.structuredContent));
  const answer = result.structuredContent as { pay_url: string; payment_required: PaymentRequired };
  t.is(answer.pay_url, invoice.checkout_url);
  t.like(answer.payment_required, { x402Version: 2, resource: { url: invoice.checkout_url, description: `Invoice ${invoice.id}` } });
  t.is(answer.payment_required.accepts.length, 1);
  t.deepEqual(answer.payment_required.accepts[0], {
    scheme: 'exact',
    network: ANVIL_CAIP,
    asset: getAddress(h.usdc),
    amount: '1500000',
    payTo: getAddress(invoice.address),
    maxTimeoutSeconds: 300,
    extra: { ...USDC_DOMAIN },
  });

  t.is(errorCode(await call(client, 'get_x402_requirements', { project_id: h.project.projectId })), 'validation_error');
  t.is(
    errorCode(await call(client, 'get_x402_requirements', { project_id: h.project.projectId, invoice_id: invoice.id, session_id: invoice.id })),
    'validation_error',
  );
  t.is(
    errorCode(await call(client, 'get_x402_requirements', { project_id: h.project.projectId, invoice_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' })),
    'invoice_not_found',
  );
  const tok = await h.invoice('2', { coin: 'tok' });
  t.is(errorCode(await call(client, 'get_x402_requirements', { project_id: h.project.projectId, invoice_id: tok.id })), 'x402_coin_unsupported');
  await h.gw.kernel.cradle.invoicesService.cancel(h.project.projectId, invoice.id, CLI_ACTOR);
  t.is(errorCode(await call(client, 'get_x402_requirements', { project_id: h.project.projectId, invoice_id: invoice.id })), 'x402_nothing_to_pay');
  await client.close();
});

test.serial('get_x402_requirements: a checkout session’s, its coin picked as the payer’s page picks it', async (t) => {
  const client = await agent(h.gw);
  const { principal, session } = await sessionOfTwoCoins();
  const args = { project_id: h.project.projectId, session_id: session.id };
  t.is(errorCode(await call(client, 'get_x402_requirements', { ...args, coin: 'tok' })), 'x402_coin_unsupported');
  t.is((await h.gw.kernel.cradle.sessionsCheckout.get(principal.id, session.id)).invoice_id, null, 'nothing picked for a coin x402 cannot pay');

  // No coin asked, none picked yet: the first allowed coin x402 can pay (usdc, after tok).
  const result = await call(client, 'get_x402_requirements', args);
  t.falsy(result.isError, JSON.stringify(result.structuredContent));
  const answer = result.structuredContent as { pay_url: string; payment_required: PaymentRequired };
  const now = await h.gw.kernel.cradle.sessionsCheckout.get(principal.id, session.id);
  t.is(now.coin, 'usdc');
  const invoice = await h.reload(now.invoice_id!);
  t.is(answer.pay_url, session.url);
  t.like(answer.payment_required, { resource: { url: session.url, description: `Checkout session ${session.id}` } });
  t.like(answer.payment_required.accepts[0], { amount: invoice.amount_crypto_units, payTo: getAddress(invoice.address), asset: getAddress(h.usdc) });

  // Asked again (with or without the coin): the same invoice.
  const again = (await call(client, 'get_x402_requirements', { ...args, coin: 'usdc' })).structuredContent as typeof answer;
  t.is(again.payment_required.accepts[0]!.payTo, getAddress(invoice.address));
  t.is(errorCode(await call(client, 'get_x402_requirements', { ...args, invoice_id: invoice.id })), 'validation_error');
  t.is(errorCode(await call(client, 'get_x402_requirements', { ...args, session_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' })), 'checkout_session_not_found');

  // Another coin once the session has an invoice: never switched.
  t.is(errorCode(await call(client, 'get_x402_requirements', { ...args, coin: 'tok' })), 'validation_error');
  t.is((await h.gw.kernel.cradle.sessionsCheckout.get(principal.id, session.id)).invoice_id, invoice.id, 'the coin is not switched');
  await client.close();
});

test.serial('get_x402_requirements: a session whose payer picked a coin x402 cannot pay is x402_coin_unsupported, and its coin stays', async (t) => {
  const client = await agent(h.gw);
  const { principal, session } = await sessionOfTwoCoins();
  await h.gw.kernel.cradle.sessionsCheckout.pick(new URL(session.url).pathname.split('/').pop()!, 'tok', CLI_ACTOR);
  const picked = await h.gw.kernel.cradle.sessionsCheckout.get(principal.id, session.id);
  const args = { project_id: h.project.projectId, session_id: session.id };
  for (const coin of [undefined, 'usdc']) {
    const result = await call(client, 'get_x402_requirements', coin === undefined ? args : { ...args, coin });
    t.is(errorCode(result), 'x402_coin_unsupported', JSON.stringify(result.structuredContent));
  }
  const now = await h.gw.kernel.cradle.sessionsCheckout.get(principal.id, session.id);
  t.is(now.coin, 'tok');
  t.is(now.invoice_id, picked.invoice_id);
  await client.close();
});

test.serial('a paid tool without payment: payment required, a fresh payTo of the tool’s project per call, and the tool did not run', async (t) => {
  const client = await agent();
  const first = paymentRequired(t, await call(client, PAID_TOOL, createArgs('unpaid-1')));
  const second = paymentRequired(t, await call(client, PAID_TOOL, createArgs('unpaid-2')));
  t.like(first, { x402Version: 2, error: 'Payment required', resource: { url: `mcp://tool/${PAID_TOOL}` } });
  t.is(first.accepts.length, 1);
  t.like(first.accepts[0], { scheme: 'exact', network: ANVIL_CAIP, asset: getAddress(h.usdc), amount: PRICE_UNITS, extra: { ...USDC_DOMAIN } });
  t.not(first.accepts[0]!.payTo, second.accepts[0]!.payTo);

  // Each payTo is an invoice of its own: the offer's, with x402's metadata.
  const { items } = await h.gw.kernel.cradle.invoicesService.list(h.project.projectId, { limit: 50 });
  const offers = items.filter((invoice) => [first, second].some((r) => getAddress(invoice.address) === r.accepts[0]!.payTo));
  t.is(offers.length, 2);
  for (const offer of offers) {
    t.like(offer, { coin: 'usdc', amount_crypto_units: PRICE_UNITS, status: 'pending', metadata: { x402: { source: 'tool', tool: PAID_TOOL } } });
    t.regex(offer.external_id, /^x402_/);
  }
  t.false(await h.gw.kernel.cradle.invoicesService.hasExternalId(h.project.projectId, 'unpaid-1'));
  t.false(await h.gw.kernel.cradle.invoicesService.hasExternalId(h.project.projectId, 'unpaid-2'));
  await client.close();
});

test.serial('a paid tool with a signed payment: its real result, the settlement in _meta, the transfer on chain, the offer’s invoice paid', async (t) => {
  const client = await agent();
  const offer = paymentRequired(t, await call(client, PAID_TOOL, createArgs('paid-1'))).accepts[0]!;
  const payer = await h.payer(5n * USDC);
  const payment = await signPayment(payer, offer);

  const result = await call(client, PAID_TOOL, createArgs('paid-1'), { 'x402/payment': payment });
  t.falsy(result.isError, JSON.stringify(result.structuredContent));
  t.like(result.structuredContent, { external_id: 'paid-1', coin: 'usdc', amount_crypto: '3', status: 'pending' });
  const settled = result._meta?.['x402/payment-response'] as SettleResponse;
  t.like(settled, { success: true, network: ANVIL_CAIP });
  t.is(getAddress(settled.payer!), payer.address);
  t.regex(settled.transaction, /^0x[0-9a-f]{64}$/);
  t.true(await h.gw.kernel.cradle.invoicesService.hasExternalId(h.project.projectId, 'paid-1'));

  // The same payment again is a replay: refused, and the tool does not run.
  const replay = paymentRequired(t, await call(client, PAID_TOOL, createArgs('paid-replay'), { 'x402/payment': payment }));
  t.is(replay.error, 'invalid_exact_evm_nonce_already_used');
  t.false(await h.gw.kernel.cradle.invoicesService.hasExternalId(h.project.projectId, 'paid-replay'));

  // The money is in the offer's address; the watchers see it and the lifecycle credits it.
  t.is(await h.balanceOf(offer.payTo), BigInt(PRICE_UNITS));
  t.is(await h.balanceOf(payer.address), 5n * USDC - BigInt(PRICE_UNITS));
  const { items } = await h.gw.kernel.cradle.invoicesService.list(h.project.projectId, { limit: 50 });
  const invoice = items.find((i) => getAddress(i.address) === offer.payTo)!;
  await h.scan();
  const seen = await h.reload(invoice.id);
  t.is(seen.transactions[0]?.tx_hash, settled.transaction);
  await h.chain.anvil.mine(seen.confirmation_threshold);
  const paidInvoice = await waitFor(
    async () => {
      await h.scan();
      const now = await h.reload(invoice.id);
      return now.status === 'paid' && now;
    },
    30_000,
    'the offer’s invoice to turn paid',
  );
  t.is(paidInvoice.status, 'paid');

  // Once its invoice is paid, the offer asks for nothing more: the same payment is still a replay, with a fresh offer.
  const late = paymentRequired(t, await call(client, PAID_TOOL, createArgs('paid-replay'), { 'x402/payment': payment }));
  t.is(late.error, 'invalid_exact_evm_nonce_already_used');
  t.not(late.accepts[0]!.payTo, offer.payTo);
  t.false(await h.gw.kernel.cradle.invoicesService.hasExternalId(h.project.projectId, 'paid-replay'));
  await client.close();
});

test.serial('bad payments: payment required with the reason, the tool did not run, nothing moved', async (t) => {
  const client = await agent();
  const payer = await h.payer(5n * USDC);
  const attempt = async (externalId: string, sign: (offer: PaymentRequirements) => Promise<unknown>) => {
    const offer = paymentRequired(t, await call(client, PAID_TOOL, createArgs(externalId))).accepts[0]!;
    const refused = paymentRequired(t, await call(client, PAID_TOOL, createArgs(externalId), { 'x402/payment': await sign(offer) }));
    t.false(await h.gw.kernel.cradle.invoicesService.hasExternalId(h.project.projectId, externalId), `${externalId}: the tool did not run`);
    t.is(await h.balanceOf(offer.payTo), 0n);
    return { offer, refused };
  };

  const value = await attempt('bad-value', (offer) => signPayment(payer, offer, { authorization: { value: '1' } }));
  t.is(value.refused.error, 'invalid_exact_evm_payload_authorization_value_mismatch');
  t.deepEqual(value.refused.accepts, [value.offer], 'the same offer again, to pay properly');

  const expired = await attempt('bad-expired', (offer) =>
    signPayment(payer, offer, { authorization: { validBefore: String(Math.floor(Date.now() / 1000) - 60) } }),
  );
  t.is(expired.refused.error, 'invalid_exact_evm_payload_authorization_valid_before');

  const signature = await attempt('bad-signature', (offer) => signPayment(payer, offer, { domain: { name: 'Not USD Coin' } }));
  t.is(signature.refused.error, 'invalid_exact_evm_signature');

  const poor = await h.payer(1n);
  const balance = await attempt('bad-balance', (offer) => signPayment(poor, offer));
  t.is(balance.refused.error, 'invalid_exact_evm_insufficient_balance');

  // A payTo that is no offer of this tool: a fresh offer, with the reason.
  const invoice = await h.invoice('0.25');
  const foreign = await attempt('bad-payto', async (offer) => signPayment(payer, { ...offer, payTo: getAddress(invoice.address) }));
  t.is(foreign.refused.error, 'invalid_payment_requirements');
  t.not(foreign.refused.accepts[0]!.payTo, getAddress(invoice.address));

  // An offer of another tool (a cheaper one), or a partner's offer, pays for no call of this tool.
  const cheap = paymentRequired(t, await call(client, CHEAP_TOOL, { project_id: h.project.projectId, invoice_id: invoice.id })).accepts[0]!;
  t.is(cheap.amount, '10000');
  const other = await attempt('bad-tool', () => signPayment(payer, cheap));
  t.is(other.refused.error, 'invalid_payment_requirements');
  const partner = await h.gw.kernel.cradle.x402Offers.create(
    await h.principal(),
    { coin: 'usdc', amount: PRICE, resource: { url: 'https://api.example.com/paid' }, source: 'facilitator' },
    CLI_ACTOR,
  );
  const partners = await attempt('bad-partner', () => signPayment(payer, partner.requirements));
  t.is(partners.refused.error, 'invalid_payment_requirements');

  const garbage = await attempt('bad-payload', async () => ({ x402Version: 2, accepted: 'nothing' }));
  t.is(garbage.refused.error, 'invalid_payload');
  t.is(await h.balanceOf(payer.address), 5n * USDC);
  await client.close();
});

test.serial('a paid call whose tool fails is returned unsettled: nothing taken, the payment still good for a call that works', async (t) => {
  const client = await agent();
  const offer = paymentRequired(t, await call(client, PAID_TOOL, createArgs('fails'))).accepts[0]!;
  const payer = await h.payer(5n * USDC);
  const payment: PaymentPayload = await signPayment(payer, offer);
  // An external id the project already used with other terms: the tool itself refuses.
  const result = await call(client, PAID_TOOL, { ...createArgs('paid-1'), amount_crypto: '4' }, { 'x402/payment': payment });
  t.is(errorCode(result), 'external_id_conflict');
  t.is(result._meta?.['x402/payment-response'], undefined);
  t.is(await h.balanceOf(payer.address), 5n * USDC);
  t.is(await h.balanceOf(offer.payTo), 0n);

  const retried = await call(client, PAID_TOOL, createArgs('fails'), { 'x402/payment': payment });
  t.falsy(retried.isError, JSON.stringify(retried.structuredContent));
  t.like(retried._meta?.['x402/payment-response'], { success: true });
  t.is(await h.balanceOf(offer.payTo), BigInt(PRICE_UNITS));
  await client.close();
});

test.serial('with settlement off, get_x402_requirements answers x402_off', async (t) => {
  const off = await h.second({ 'plugins.x402.settlement': 'off' });
  const client = await agent(off);
  const invoice = await h.invoice('1');
  t.is(errorCode(await call(client, 'get_x402_requirements', { project_id: h.project.projectId, invoice_id: invoice.id })), 'x402_off');
  await client.close();
});

test('start-up refuses a paid tool that names no tool, an unknown project or a coin x402 cannot pay', async (t) => {
  const error = await t.throwsAsync(
    h.second({
      'plugins.x402.paidTools': {
        no_such_tool: { projectId: h.project.projectId, coin: 'usdc', amount: '1' },
        get_invoice: { projectId: '01ARZ3NDEKTSV4RRFFQ69G5FAV', coin: 'usdc', amount: '1' },
        list_invoices: { projectId: h.project.projectId, coin: 'tok', amount: '1' },
      },
    }),
  );
  t.regex(error!.message, /paidTools\.no_such_tool: this gateway serves no MCP tool no_such_tool/);
  t.regex(error!.message, /paidTools\.get_invoice: no project 01ARZ3NDEKTSV4RRFFQ69G5FAV/);
  t.regex(error!.message, /paidTools\.list_invoices: tok cannot be paid with x402 on eth anvil/);
});
