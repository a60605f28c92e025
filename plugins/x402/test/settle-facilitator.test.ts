/**
 * Settlement through an external facilitator (issue 41, item 2: the operator who holds no key) on
 * a real anvil node: the facilitator is the official one (`x402Facilitator` of @x402/core with the
 * `exact` EVM scheme of @x402/evm and a viem wallet of its own) behind a small HTTP server of the
 * test, as `examples/typescript/facilitator/basic` serves it. The gateway asks it `/settle` (and
 * `/verify`, `/supported`) with the `Authorization` of its file; a refusal passes through, a
 * facilitator answering what is no protocol message, or none at all, is `unexpected_settle_error`,
 * and nothing is recorded then.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { Wallet } from 'ethers';
import { X402_REASONS } from '../src/protocol/reasons.js';
import { ANVIL_CAIP, officialFacilitator, resourceOf, signPayment, startX402, USDC, type X402Harness } from './helpers.js';
import { SMALL_POOLS, settlementsWith, verifiedPayment } from './settle-payment.js';

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly type?: string;
}
type Handler = (method: string, path: string, body: any) => Promise<Answer>;

let h: X402Harness;
/** The settlement services in `settlement: facilitator` mode, pointed at the test's facilitator, on the harness's gateway. */
let gw: ReturnType<typeof settlementsWith>;
let server: Server;
let facilitatorUrl: string;
/** The facilitator's own wallet, which pays the gas of what it settles. */
let facilitatorWallet: Wallet;
let authorizationFile: string;
/** What the facilitator server does with a request now (the official facilitator unless a test swaps it). */
let handle: Handler;
let official: Handler;
/** Every request the facilitator server received: path and Authorization header. */
const seen: { path: string; authorization: string | undefined }[] = [];

const json = (value: unknown, status = 200): Answer => ({ status, body: JSON.stringify(value) });

test.before(async () => {
  h = await startX402({ poolSize: 12 });
  facilitatorWallet = new Wallet(Wallet.createRandom().privateKey);
  await h.chain.anvil.sendEth(h.chain.funder, facilitatorWallet.address, 10n ** 19n);
  const facilitator = officialFacilitator(h, facilitatorWallet);
  official = async (method, path, body) => {
    if (method === 'GET' && path === '/facilitator/supported') return json(facilitator.getSupported());
    if (method !== 'POST' || !body?.paymentPayload || !body?.paymentRequirements) return json({ error: 'Missing paymentPayload or paymentRequirements' }, 400);
    try {
      if (path === '/facilitator/verify') return json(await facilitator.verify(body.paymentPayload, body.paymentRequirements));
      if (path === '/facilitator/settle') return json(await facilitator.settle(body.paymentPayload, body.paymentRequirements));
    } catch (error) {
      return json({ success: false, errorReason: (error as Error).message, transaction: '', network: body.paymentRequirements.network });
    }
    return json({ error: 'not found' }, 404);
  };
  handle = official;
  server = createServer((req: IncomingMessage, res) => {
    let data = '';
    req.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
      handle(req.method ?? '', req.url ?? '', data ? JSON.parse(data) : undefined).then(
        (answer) => {
          res.writeHead(answer.status, { 'content-type': answer.type ?? 'application/json' });
          res.end(answer.body);
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  facilitatorUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/facilitator/`;
  authorizationFile = join(h.gasKeyFile, '..', 'facilitator-authorization');
  await writeFile(authorizationFile, '  Bearer facilitator-token-1\n', { mode: 0o600 });
  gw = settlementsWith(h.gw, facilitatorSettings());
});
test.after.always(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await h?.stop();
});
test.afterEach.always(() => {
  handle = official;
});

function facilitatorSettings(extra: { url?: string; timeoutSeconds?: number } = {}) {
  return { settlement: 'facilitator' as const, facilitator: { url: facilitatorUrl, authorizationFile, timeoutSeconds: 10, ...extra } };
}
const settlements = (on: TestKernel | ReturnType<typeof settlementsWith> = gw) => ('kernel' in on ? on.kernel.cradle.x402Settlements : on.settlements);
const rowsOf = async (invoiceId: string) =>
  (await settlements().list({ projectId: h.project.projectId, limit: 1000 })).filter((r) => r.invoice_id === invoiceId);
const settleRequests = () => seen.filter((s) => s.path === '/facilitator/settle').length;

/** A new invoice of `amount` USDC: its x402 requirements, a payer's payload signed for them, and the settlement's context. */
async function signedForInvoice(amount: string) {
  const invoice = await h.invoice(amount);
  const required = await gw.payments.requirementsFor(invoice, resourceOf(`${h.gw.url}/checkout/x`, `Invoice ${invoice.id}`));
  const requirements = required!.accepts[0]!;
  const payer = await h.payer(USDC);
  const payload = await signPayment(payer, requirements);
  return { invoice, requirements, payer, payload, context: { projectId: h.project.projectId, invoiceId: invoice.id, source: 'invoice' as const } };
}

test.serial('the external facilitator settles the verified payment with its own gas; the row says facilitator and settled', async (t) => {
  const invoice = await h.invoice('1.5');
  const payer = await h.payer(2n * USDC);
  const payment = await verifiedPayment(h, invoice, payer);
  const facilitatorBefore = await h.sentCount(facilitatorWallet.address);
  const gasBefore = await h.sentCount(h.gasWallet.address);
  const asked = seen.length;

  const settled = await settlements().settle(payment);

  t.like(settled, { success: true, network: ANVIL_CAIP, payer: payer.address });
  t.regex(settled.transaction, /^0x[0-9a-f]{64}$/);
  t.is(await h.balanceOf(invoice.address), 1_500_000n);
  t.is(await h.sentCount(facilitatorWallet.address), facilitatorBefore + 1);
  t.is(await h.sentCount(h.gasWallet.address), gasBefore);
  t.deepEqual(seen.slice(asked), [{ path: '/facilitator/settle', authorization: 'Bearer facilitator-token-1' }]);
  t.like((await rowsOf(invoice.id))[0], {
    mode: 'facilitator',
    status: 'settled',
    tx_hash: settled.transaction,
    gas_address: null,
    spend_units: null,
    payer: payer.address.toLowerCase(),
  });
});

test.serial('through x402Payments.settle: the gateway verifies, asks the facilitator /verify, then /settle; the payment lands', async (t) => {
  const { invoice, requirements, payer, payload, context } = await signedForInvoice('0.35');
  const asked = seen.length;

  const settled = await gw.payments.settle(payload, requirements, context);

  t.like(settled, { success: true, payer: payer.address, network: ANVIL_CAIP });
  t.deepEqual(
    seen.slice(asked).map((s) => s.path),
    ['/facilitator/verify', '/facilitator/settle'],
  );
  t.is(await h.balanceOf(invoice.address), 350_000n);
  t.like((await rowsOf(invoice.id))[0], { mode: 'facilitator', status: 'settled', tx_hash: settled.transaction });
});

test.serial('verification, then settleVerified (a payer URL, a paid tool): the facilitator is asked /verify once and /settle once', async (t) => {
  const { invoice, requirements, payer, payload, context } = await signedForInvoice('0.55');
  const asked = seen.length;

  const verified = await gw.payments.verification(payload, requirements, context);
  t.deepEqual(verified.response, { isValid: true, payer: payer.address });
  const settled = await gw.payments.settleVerified(verified.payment!);

  t.like(settled, { success: true, payer: payer.address, network: ANVIL_CAIP });
  t.deepEqual(
    seen.slice(asked).map((s) => s.path),
    ['/facilitator/verify', '/facilitator/settle'],
  );
  t.is(await h.balanceOf(invoice.address), 550_000n);

  // Verified again, it is refused (a replay, or nothing due once the watchers saw it): nothing to settle, the facilitator not asked.
  const again = seen.length;
  const refused = await gw.payments.verification(payload, requirements, context);
  t.is(refused.response.isValid, false);
  t.true([X402_REASONS.nonceUsed, X402_REASONS.requirements].includes(refused.response.invalidReason as never), refused.response.invalidReason);
  t.is(seen.length, again);
  t.is(refused.payment, undefined);
});

test.serial(
  'one authorization settled at once by two gateways in facilitator mode: the facilitator is asked once, the other settler gets invalid_exact_evm_nonce_already_used',
  async (t) => {
    const other = await h.second({ ...SMALL_POOLS, 'plugins.x402.settlement': 'facilitator', 'plugins.x402.facilitator': facilitatorSettings().facilitator });
    const invoice = await h.invoice('0.7');
    const payer = await h.payer(USDC);
    const payment = await verifiedPayment(h, invoice, payer);
    const asked = settleRequests();

    const answers = await Promise.all([settlements().settle(payment), settlements(other).settle(payment)]);

    t.is(answers.filter((a) => a.success).length, 1);
    t.like(
      answers.find((a) => !a.success),
      { errorReason: X402_REASONS.nonceUsed, transaction: '' },
    );
    t.is(settleRequests(), asked + 1);
    t.is(await h.balanceOf(invoice.address), 700_000n);
  },
);

test.serial('verify and supported through the external facilitator; the Authorization file is read at each call', async (t) => {
  const facilitator = gw.facilitator;
  const invoice = await h.invoice('0.25');
  const payer = await h.payer(USDC);
  const payment = await verifiedPayment(h, invoice, payer);

  t.deepEqual(await facilitator.verify(payment.request), { isValid: true, payer: payer.address });
  await writeFile(authorizationFile, 'Bearer facilitator-token-2', { mode: 0o600 });
  const supported = await facilitator.supported();
  await writeFile(authorizationFile, 'Bearer facilitator-token-1\n', { mode: 0o600 });

  t.deepEqual(supported.kinds, [{ x402Version: 2, scheme: 'exact', network: ANVIL_CAIP }]);
  t.deepEqual(supported.signers['eip155:*'], [facilitatorWallet.address]);
  t.deepEqual(
    seen.slice(-2).map((s) => s.authorization),
    ['Bearer facilitator-token-1', 'Bearer facilitator-token-2'],
  );
  // The facilitator's own refusal comes back as it gave it.
  const other = await verifiedPayment(h, invoice, payer, { payment: { authorization: { value: '1' } } });
  t.like(await facilitator.verify(other.request), { isValid: false, invalidReason: 'invalid_exact_evm_payload_authorization_value_mismatch' });
});

test.serial("the facilitator's refusal passes through: nothing recorded, nothing sent", async (t) => {
  const invoice = await h.invoice('0.3');
  const payer = await h.payer(USDC);
  // Valid on chain for 5 more seconds: the official facilitator wants 6 (a block's margin).
  const payment = await verifiedPayment(h, invoice, payer, { payment: { authorization: { validBefore: String(Math.floor(Date.now() / 1000) + 5) } } });
  const facilitatorBefore = await h.sentCount(facilitatorWallet.address);

  const refused = await settlements().settle(payment);

  t.like(refused, { success: false, errorReason: 'invalid_exact_evm_payload_authorization_valid_before', transaction: '', network: ANVIL_CAIP });
  t.deepEqual(await rowsOf(invoice.id), []);
  t.false(await settlements().known(payment.asset, payer.address, payment.authorization.nonce));
  t.is(await h.sentCount(facilitatorWallet.address), facilitatorBefore);
  t.is(await h.balanceOf(invoice.address), 0n);
});

/** What a payer is told when the external facilitator settled nothing, whatever it answered. */
const FACILITATOR_REFUSED = 'The facilitator did not settle the payment; nothing was sent.';

test.serial(
  'a facilitator answering what is no protocol message: unexpected_settle_error (verify: unexpected_verify_error), nothing recorded, then it settles once it answers',
  async (t) => {
    const invoice = await h.invoice('0.4');
    const payer = await h.payer(USDC);
    const payment = await verifiedPayment(h, invoice, payer);
    const garbage: Answer[] = [
      json({ status: 'ok' }),
      { status: 200, body: '<html><body>Welcome</body></html>', type: 'text/html' },
      json({ success: true, transaction: 'settled!', network: ANVIL_CAIP }),
      json({ success: false, transaction: '' }),
      { status: 502, body: '' },
      json(['success', true]),
    ];
    for (const answer of garbage) {
      handle = async () => answer;
      const settled = await settlements().settle(payment);
      t.like(settled, { success: false, errorReason: X402_REASONS.settle, transaction: '', network: ANVIL_CAIP, payer: payer.address }, answer.body);
      // A fixed text: the facilitator's address and answer go to the log only.
      t.is(settled.errorMessage, FACILITATOR_REFUSED);
      t.deepEqual(await rowsOf(invoice.id), []);
    }
    handle = async () => json({ valid: 'yes' });
    t.like(await gw.facilitator.verify(payment.request), { isValid: false, invalidReason: X402_REASONS.verify });
    await t.throwsAsync(gw.facilitator.supported(), {
      name: 'ExternalFacilitatorError',
      message: /answered \/supported with no supported response/,
    });
    t.is(await h.balanceOf(invoice.address), 0n);

    handle = official;
    t.like(await settlements().settle(payment), { success: true });
    t.is(await h.balanceOf(invoice.address), 400_000n);
  },
);

test.serial('a facilitator that cannot be reached or does not answer in time: unexpected_settle_error, nothing recorded', async (t) => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const unreachable = settlementsWith(h.gw, facilitatorSettings({ url: `http://127.0.0.1:${port}` }));
  const slow = settlementsWith(h.gw, facilitatorSettings({ timeoutSeconds: 1 }));
  const invoice = await h.invoice('0.45');
  const payer = await h.payer(USDC);
  const payment = await verifiedPayment(h, invoice, payer);

  const refused = await settlements(unreachable).settle(payment);
  t.like(refused, { success: false, errorReason: X402_REASONS.settle, transaction: '' });
  t.is(refused.errorMessage, FACILITATOR_REFUSED);

  handle = () => new Promise<Answer>(() => undefined);
  const late = await settlements(slow).settle(payment);
  t.like(late, { success: false, errorReason: X402_REASONS.settle, transaction: '' });
  t.is(late.errorMessage, FACILITATOR_REFUSED);
  t.deepEqual(await rowsOf(invoice.id), []);
  t.is(await h.balanceOf(invoice.address), 0n);
});
