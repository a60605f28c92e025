import test, { type ExecutionContext } from 'ava';
import { CLI_ACTOR, toBaseUnits } from '@gw/kernel';
import { lateExternalId } from '@gw/plugin-sessions';
import type { TestKernel } from '@gw/kernel/testing';
import { assertGreenfieldAnswer, greenfieldDocument } from './greenfield-document.js';
import { greenfield, issueKey, newOwner, sandboxClient, startBtcpayKernel, type GreenfieldAnswer, type Owner, type SandboxClient } from './helpers.js';

/*
 * Refunds through the Greenfield API on a running gateway: BTCPay invoices created through the API,
 * paid through the sandbox (the payer's pick, then detect and confirm), refunded with each of
 * BTCPay's refund variants and through a store pull payment as BTCPay's WooCommerce plugin makes
 * it, read back as pull payments and payouts. Every answer is checked against BTCPay's document.
 * Fixed rates: 1 BTC = 65 000 USD, 1 EUR = 1.08 USD.
 */

let gw: TestKernel;
let owner: Owner;
let store: SandboxClient;
let token: string;
let orders = 0;

const REFUND_PERMISSION = 'btcpay.store.cancreatenonapprovedpullpayments';

test.before(async () => {
  gw = await startBtcpayKernel();
  owner = await newOwner(gw);
  store = await sandboxClient(gw, undefined, owner.operatorId);
  ({ token } = await issueKey(gw, owner, [
    `btcpay.store.cancreateinvoice:${store.projectId}`,
    `btcpay.store.canviewinvoices:${store.projectId}`,
    `${REFUND_PERMISSION}:${store.projectId}`,
  ]));
});
test.after.always(async () => {
  await gw?.close();
});

/** The document's form of a path: BTCPay's newer document lists the store-less form of the invoice and pull payment operations. */
const documented = (path: string) => path.replace(/^\/api\/v1\/stores\/[^/]+\/(invoices\/[^/]+\/refund|pull-payments\/[^/]+$)/, '/api/v1/$1');

/** A Greenfield call whose answer must be one BTCPay's document allows. */
async function call(t: ExecutionContext, method: string, path: string, body?: unknown, key: string | undefined = token): Promise<GreenfieldAnswer> {
  const answer = await greenfield(gw, key, method, path, body);
  assertGreenfieldAnswer(t, method, documented(path.split('?')[0]!), answer);
  return answer;
}

interface PaidInvoice {
  /** The BTCPay invoice (the checkout session). */
  readonly id: string;
  /** The invoice of the coin the payer picked. */
  readonly invoiceId: string;
}

/**
 * A BTCPay invoice of `amount` `currency` created through the API, its coin picked by the payer and
 * then driven by the sandbox simulations (`detect` + `paid` settles it; `overpaid` pays 1.5 times).
 */
async function btcpayInvoice(
  t: ExecutionContext,
  amount: string,
  currency: string,
  simulations: readonly [string, unknown?][] = [['detect'], ['paid']],
  orderId = `order-${++orders}`,
): Promise<PaidInvoice> {
  const created = await call(t, 'POST', `/api/v1/stores/${store.projectId}/invoices`, { amount, currency, metadata: { orderId } });
  if (created.status !== 200) throw new Error(`create: ${created.status} ${created.text}`);
  const id: string = created.body.id;
  if (simulations.length === 0) return { id, invoiceId: '' };
  const picked = await store.call('POST', `/checkout-sessions/${id}/simulate-pick`, { coin: 'btc' });
  if (picked.status !== 200) throw new Error(`pick: ${picked.status} ${JSON.stringify(picked.body)}`);
  const invoiceId: string = picked.body.invoice_id;
  for (const [what, body] of simulations) {
    const simulated = await store.call('POST', `/invoices/${invoiceId}/simulate-${what}`, body ?? {});
    if (simulated.status !== 200) throw new Error(`simulate-${what}: ${simulated.status} ${JSON.stringify(simulated.body)}`);
  }
  return { id, invoiceId };
}

const refundPath = (invoice: PaidInvoice | string) => `/api/v1/stores/${store.projectId}/invoices/${typeof invoice === 'string' ? invoice : invoice.id}/refund`;
const refundsOf = (invoice: PaidInvoice) => gw.kernel.cradle.payoutsItems.refundsOf(store.projectId, invoice.invoiceId);
const simulateRefund = (refundId: string, what: string) => store.call('POST', `/refunds/${refundId}/simulate-${what}`, {});

test('RateThen: a refund of the coin received, answered as a pull payment whose viewLink is the claim page; read back publicly; its payout follows the refund', async (t) => {
  const invoice = await btcpayInvoice(t, '130', 'USD');
  const made = await call(t, 'POST', refundPath(invoice), { refundVariant: 'RateThen' });
  t.is(made.status, 200, made.text);
  const pp = made.body;
  t.regex(pp.id, /^[0-9A-Za-z]{27}$/);
  t.like(pp, {
    name: `Refund ${invoice.id}`,
    description: '',
    currency: 'BTC',
    amount: '0.002',
    BOLT11Expiration: '30',
    autoApproveClaims: false,
    archived: false,
    expiresAt: null,
  });
  // The claim page at the gateway's public base URL (the test gateway's is its configured one, not the port it listens on).
  t.regex(pp.viewLink, /^https?:\/\/[^/]+\/refunds\/claim\/[0-9A-Za-z]{32}$/);

  const [refund, ...others] = await refundsOf(invoice);
  t.is(others.length, 0);
  t.like(refund, { status: 'awaiting_claim', amount: '0.002', rate_rule: 'coin_amount', claim_url: pp.viewLink });
  t.is(refund!.reason, `Refund ${invoice.id}`);

  // Public reads, without a key, as BTCPay's.
  const read = await call(t, 'GET', `/api/v1/pull-payments/${pp.id}`, undefined, undefined);
  t.is(read.status, 200);
  t.deepEqual(read.body, pp);
  const page = await fetch(`${gw.url}${new URL(pp.viewLink).pathname}`);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /text\/html/);
  t.deepEqual((await call(t, 'GET', `/api/v1/pull-payments/${pp.id}/payouts`, undefined, undefined)).body, [], 'nobody claimed yet');

  // The payer claims: a payout awaiting approval, to the address claimed; the viewLink stays.
  t.is((await simulateRefund(refund!.id, 'claim')).status, 200);
  const claimed = await call(t, 'GET', `/api/v1/pull-payments/${pp.id}/payouts`, undefined, undefined);
  t.is(claimed.body.length, 1);
  const [payout] = claimed.body;
  t.like(payout, {
    id: refund!.id,
    revision: 0,
    pullPaymentId: pp.id,
    originalCurrency: 'BTC',
    originalAmount: '0.002',
    payoutCurrency: 'BTC',
    payoutAmount: '0.002',
    payoutMethodId: 'BTC-CHAIN',
    state: 'AwaitingApproval',
    metadata: {},
  });
  t.is(payout.destination, (await gw.kernel.cradle.payoutsItems.get(store.projectId, 'refund', refund!.id)).address);
  t.regex(payout.date, /^\d+$/);
  t.is(payout.paymentProof, undefined);
  t.is(
    (await call(t, 'GET', `/api/v1/pull-payments/${pp.id}`, undefined, undefined)).body.viewLink,
    pp.viewLink,
    'the claim page stays the pull payment’s page',
  );
  t.deepEqual((await call(t, 'GET', `/api/v1/pull-payments/${pp.id}/payouts/${refund!.id}`, undefined, undefined)).body, payout);
  const noPayout = await call(t, 'GET', `/api/v1/pull-payments/${pp.id}/payouts/${pp.id}`, undefined, undefined);
  t.is(noPayout.status, 404);
  t.is(noPayout.body.code, 'payout-not-found');

  // Approved, sent, confirmed: BTCPay's payout states, the transaction as its proof.
  const states: string[] = [];
  for (const step of ['approve', 'send', 'confirm']) {
    t.is((await simulateRefund(refund!.id, step)).status, 200);
    const [now] = (await call(t, 'GET', `/api/v1/pull-payments/${pp.id}/payouts`, undefined, undefined)).body;
    states.push(now.state);
    if (step !== 'approve') t.like(now.paymentProof, { proofType: 'PayoutTransactionOnChainBlob' });
  }
  t.deepEqual(states, ['AwaitingPayment', 'InProgress', 'Completed']);

  // Everything received is refunded: another refund is over what came.
  const again = await call(t, 'POST', refundPath(invoice), { refundVariant: 'RateThen' });
  t.is(again.status, 422);
  t.is(again.body[0].path, 'refundVariant');
  t.regex(again.body[0].message, /exceeds what the invoice received/);
  t.is((await refundsOf(invoice)).length, 1, 'nothing was written');
});

test('CurrentRate with subtractPercentage: the USD value at payment at today’s rate, less the percentage (as BTCPay’s PHP client sends it, a number)', async (t) => {
  const invoice = await btcpayInvoice(t, '130', 'USD');
  const made = await call(t, 'POST', refundPath(invoice), {
    name: 'Refund for order 12',
    description: 'Returned goods',
    paymentMethod: 'BTC',
    refundVariant: 'CurrentRate',
    subtractPercentage: 10,
    customAmount: null,
    customCurrency: null,
  });
  t.is(made.status, 200, made.text);
  t.like(made.body, { name: 'Refund for order 12', description: 'Returned goods', currency: 'BTC', amount: '0.0018' });
  const [refund] = await refundsOf(invoice);
  t.like(refund, { rate_rule: 'fiat_now', spread_percent: '10', amount: '0.0018' });
  t.is(refund!.reason, 'Refund for order 12 — Returned goods');
});

test('CurrentRate of an overpaid invoice: all that came, at today’s rate (not only the excess)', async (t) => {
  const overpaid = await btcpayInvoice(t, '130', 'USD', [['detect'], ['overpaid', { multiplier: 1.5 }]]);
  const made = await call(t, 'POST', refundPath(overpaid), { refundVariant: 'CurrentRate' });
  t.is(made.status, 200, made.text);
  t.like(made.body, { currency: 'BTC', amount: '0.003' });
  const [refund] = await refundsOf(overpaid);
  t.like(refund, { rate_rule: 'fiat_now', amount: '0.003' });
});

test('Fiat: the fiat paid, in the invoice currency; the coin refunded is what came', async (t) => {
  const invoice = await btcpayInvoice(t, '65', 'EUR');
  const made = await call(t, 'POST', refundPath(invoice), { refundVariant: 'Fiat', subtractPercentage: '0' });
  t.is(made.status, 200, made.text);
  t.like(made.body, { currency: 'EUR', amount: '65.00' });
  const [refund] = await refundsOf(invoice);
  t.like(refund, { amount: '0.00108', rate_rule: 'coin_amount', spread_percent: null });
});

test('OverpaidAmount: what came above the price, for an overpaid invoice only', async (t) => {
  const settled = await btcpayInvoice(t, '130', 'USD');
  const refused = await call(t, 'POST', refundPath(settled), { refundVariant: 'OverpaidAmount' });
  t.is(refused.status, 422);
  t.deepEqual(refused.body, [{ path: 'refundVariant', message: 'Invoice is not overpaid' }]);
  const overpaid = await btcpayInvoice(t, '130', 'USD', [['detect'], ['overpaid', { multiplier: 1.5 }]]);
  const made = await call(t, 'POST', refundPath(overpaid), { refundVariant: 'OverpaidAmount' });
  t.is(made.status, 200, made.text);
  t.like(made.body, { currency: 'BTC', amount: '0.001' });
});

test('Custom: an amount of the coin, of the invoice currency or of USD at the payment’s rate, up to what is left to refund', async (t) => {
  const invoice = await btcpayInvoice(t, '130', 'USD');
  const usd = await call(t, 'POST', refundPath(invoice), { refundVariant: 'Custom', customAmount: '13', customCurrency: 'usd' });
  t.is(usd.status, 200, usd.text);
  t.like(usd.body, { currency: 'USD', amount: '13.00' });
  const coin = await call(t, 'POST', refundPath(invoice), { refundVariant: 'Custom', customAmount: 0.0005, customCurrency: 'BTC' });
  t.like(coin.body, { currency: 'BTC', amount: '0.0005' });
  t.deepEqual(
    (await refundsOf(invoice)).map((refund) => refund.amount),
    ['0.0002', '0.0005'],
  );
  const over = await call(t, 'POST', refundPath(invoice), { refundVariant: 'Custom', customAmount: '0.0014', customCurrency: 'BTC' });
  t.is(over.status, 422);
  t.is(over.body[0].path, 'customAmount');
  t.regex(over.body[0].message, /0\.0013 BTC left to refund/);
  const gbp = await call(t, 'POST', refundPath(invoice), { refundVariant: 'Custom', customAmount: '5', customCurrency: 'GBP' });
  t.is(gbp.status, 422);
  t.is(gbp.body[0].path, 'customCurrency');
  t.is((await refundsOf(invoice)).length, 2, 'the refusals wrote nothing');
});

test('a session completed by a late payment to the coin the payer switched away from: refunds are priced from the session’s price, not from what arrived', async (t) => {
  // 100 EUR; the payer picks BTC, switches to ETH, then 150 EUR-worth of bitcoin arrives at the abandoned BTC address.
  const orderId = `late-${++orders}`;
  const created = await call(t, 'POST', `/api/v1/stores/${store.projectId}/invoices`, {
    amount: '100',
    currency: 'EUR',
    metadata: { orderId },
    checkout: { paymentMethods: ['BTC-CHAIN', 'ETH-CHAIN'] },
  });
  t.is(created.status, 200, created.text);
  const id: string = created.body.id;
  const btc: string = (await store.call('POST', `/checkout-sessions/${id}/simulate-pick`, { coin: 'btc' })).body.invoice_id;
  t.is((await store.call('POST', `/checkout-sessions/${id}/simulate-pick`, { coin: 'eth' })).status, 200);
  const abandoned = await gw.kernel.cradle.invoicesService.get(store.projectId, btc);
  t.is(abandoned.status, 'cancelled');
  const priceUnits = BigInt(abandoned.amount_crypto_units);
  const arrived = (priceUnits * 3n) / 2n;
  // What the sessions' late-payments pass does with the orphan payment: attribute it to the session as its first late payment.
  const row = await gw.kernel.cradle.db('invoices_invoices').where('id', btc).first('address', 'pool_address_id', 'derivation_path');
  const attributed = await gw.kernel.cradle.db.transaction((trx) =>
    gw.kernel.cradle.invoicesAttribution.createPaid(
      trx,
      {
        projectId: store.projectId,
        projectKind: 'sandbox',
        externalId: lateExternalId(id, 1),
        coin: 'btc',
        address: row.address,
        poolAddressId: row.pool_address_id,
        derivationPath: row.derivation_path,
        txHash: 'cd'.repeat(32),
        outputIndex: 0,
        amountUnits: arrived,
        confirmations: 6,
        blockHeight: 100n,
        blockHash: null,
      },
      CLI_ACTOR,
    ),
  );
  if (!('invoice' in attributed)) return t.fail('attribution refused');
  const late = attributed.invoice.id;
  t.like(await gw.kernel.cradle.sessionsCheckout.get(store.projectId, id), { status: 'completed', invoice_id: late });
  const refunds = () => gw.kernel.cradle.payoutsItems.refundsOf(store.projectId, late);

  // WooCommerce refunds the order's 100 EUR: the coin the price was quoted at, not the 150 EUR-worth that came.
  const woo = await call(t, 'POST', `/api/v1/stores/${store.projectId}/pull-payments`, {
    name: `Refund of order ${orderId}; returned`,
    amount: '100',
    currency: 'EUR',
    payoutMethods: ['BTC_CHAIN'],
  });
  t.is(woo.status, 200, woo.text);
  t.like(woo.body, { currency: 'EUR', amount: '100' });
  t.deepEqual(
    (await refunds()).map((refund) => toBaseUnits(refund.amount, 8)),
    [priceUnits],
  );

  // Fiat: the 150 EUR paid, refunding every satoshi that came; what is left after the first refund is refused.
  const fiat = await call(t, 'POST', refundPath(id), { refundVariant: 'Fiat' });
  t.is(fiat.status, 422);
  t.regex(fiat.body[0].message, /exceeds what the invoice received/);
  const archived = await greenfield(
    gw,
    (await issueKey(gw, owner, [`btcpay.store.canmanagepullpayments:${store.projectId}`])).token,
    'DELETE',
    `/api/v1/stores/${store.projectId}/pull-payments/${woo.body.id}`,
  );
  t.is(archived.status, 200, archived.text);
  const again = await call(t, 'POST', refundPath(id), { refundVariant: 'Fiat' });
  t.is(again.status, 200, again.text);
  t.like(again.body, { currency: 'EUR', amount: '150.00' });
  t.deepEqual(
    (await refunds()).filter((refund) => refund.status !== 'cancelled').map((refund) => toBaseUnits(refund.amount, 8)),
    [arrived],
  );
});

test('the refund and pull payment calls are BTCPay’s: none is in the gateway’s own OpenAPI document', async (t) => {
  const doc = (await fetch(`${gw.url}/api/v1/openapi.json`).then((r) => r.json())) as { paths: Record<string, unknown> };
  t.true(Object.keys(doc.paths).length > 0);
  t.deepEqual(
    Object.keys(doc.paths).filter((path) => /refund|pull-payments/.test(path) && path.startsWith('/btcpay/')),
    [],
  );
});

test('bad requests answer BTCPay’s 422 list, every problem at once, and write nothing', async (t) => {
  const invoice = await btcpayInvoice(t, '130', 'USD');
  const many = await call(t, 'POST', refundPath(invoice), { refundVariant: 'RateThen', customAmount: '1', customCurrency: 'BTC', subtractPercentage: '120' });
  t.is(many.status, 422);
  t.deepEqual(
    many.body.map((problem: { path: string }) => problem.path),
    ['customAmount', 'customCurrency', 'subtractPercentage'],
  );
  const missing = await call(t, 'POST', refundPath(invoice), {});
  t.deepEqual(missing.body, [{ path: 'refundVariant', message: '`refundVariant` is mandatory' }]);
  const unknown = await call(t, 'POST', refundPath(invoice), { refundVariant: 'Everything' });
  t.deepEqual(unknown.body, [{ path: 'refundVariant', message: 'Please select a valid refund option' }]);
  const method = await call(t, 'POST', refundPath(invoice), { refundVariant: 'RateThen', payoutMethods: ['ETH-CHAIN'] });
  t.is(method.status, 422);
  t.is(method.body[0].path, 'payoutMethods');
  const notJson = await call(t, 'POST', refundPath(invoice), '[1]');
  t.is(notJson.status, 422);
  t.deepEqual(await refundsOf(invoice), []);
  // The invoice's own payout method is accepted (the WooCommerce plugin's form of it: the store pull payment test).
  const own = await call(t, 'POST', refundPath(invoice), { refundVariant: 'Custom', customAmount: '1', customCurrency: 'USD', payoutMethods: ['BTC-CHAIN'] });
  t.is(own.status, 200, own.text);
});

/**
 * BTCPay's refusal of an invoice it does not refund: 400 `{ "code": "non-refundable" }` (its
 * `CreateAPIError`), a `ProblemDetails`, where the document's `Invoices_Refund` lists only the
 * validation list under 400: checked against `ProblemDetails`, as BTCPay's server answers.
 */
async function notRefundable(t: ExecutionContext, invoice: PaidInvoice): Promise<void> {
  const answer = await greenfield(gw, token, 'POST', refundPath(invoice), { refundVariant: 'RateThen' });
  t.is(answer.status, 400, answer.text);
  t.deepEqual(answer.body, { code: 'non-refundable', message: 'Cannot refund this invoice' });
  t.deepEqual(greenfieldDocument().schemaProblems('ProblemDetails', answer.body), []);
}

test('an invoice that is not settled or received nothing is not refundable (400 non-refundable)', async (t) => {
  await notRefundable(t, await btcpayInvoice(t, '130', 'USD', []));
  const waiting = await btcpayInvoice(t, '130', 'USD', [['detect']]);
  await notRefundable(t, waiting);
  t.deepEqual(await refundsOf(waiting), []);
});

test('permissions and stores: a key without the pull payment permission, another operator’s key, another store’s or an unknown invoice', async (t) => {
  const invoice = await btcpayInvoice(t, '130', 'USD');
  const { token: viewer } = await issueKey(gw, owner, [`btcpay.store.canviewinvoices:${store.projectId}`]);
  const denied = await call(t, 'POST', refundPath(invoice), { refundVariant: 'RateThen' }, viewer);
  t.is(denied.status, 403);
  t.like(denied.body, { code: 'missing-permission', missingPermission: REFUND_PERMISSION });

  const stranger = await newOwner(gw);
  const { token: theirs } = await issueKey(gw, stranger, ['unrestricted']);
  t.is((await call(t, 'POST', refundPath(invoice), { refundVariant: 'RateThen' }, theirs)).status, 403, 'not their store');
  const storeless = await call(t, 'POST', `/api/v1/invoices/${invoice.id}/refund`, { refundVariant: 'RateThen' }, theirs);
  t.is(storeless.status, 404);
  t.is(storeless.body.code, 'invoice-not-found');

  const otherStore = await sandboxClient(gw, undefined, owner.operatorId);
  const { token: both } = await issueKey(gw, owner, [REFUND_PERMISSION]);
  const elsewhere = await call(t, 'POST', `/api/v1/stores/${otherStore.projectId}/invoices/${invoice.id}/refund`, { refundVariant: 'RateThen' }, both);
  t.is(elsewhere.status, 404);
  t.is(elsewhere.body.code, 'invoice-not-found');
  t.is((await call(t, 'POST', refundPath('01J0000000000000000000NONE'), { refundVariant: 'RateThen' })).body.code, 'invoice-not-found');
  t.deepEqual(await refundsOf(invoice), [], 'nothing was written');

  // The store-less path finds the store from the invoice.
  const found = await call(t, 'POST', `/api/v1/invoices/${invoice.id}/refund`, { refundVariant: 'RateThen' });
  t.is(found.status, 200, found.text);

  const unknown = await call(t, 'GET', '/api/v1/pull-payments/0000000000000000000000000000', undefined, undefined);
  t.is(unknown.status, 404);
  t.is(unknown.body.code, 'pullpayment-not-found');
});

test('a store pull payment as BTCPay’s WooCommerce plugin refunds an order: the order’s invoice refunded, listed, archived', async (t) => {
  const invoice = await btcpayInvoice(t, '130', 'USD', [['detect'], ['paid']], 'woo-1001');
  const pullPayments = `/api/v1/stores/${store.projectId}/pull-payments`;
  const woo = (body: Record<string, unknown>) => ({
    name: 'Refund of order woo-1001; damaged',
    amount: '13',
    currency: 'USD',
    period: null,
    BOLT11Expiration: null,
    autoApproveClaims: false,
    startsAt: null,
    expiresAt: null,
    paymentMethods: ['BTC_CHAIN'],
    payoutMethods: ['BTC_CHAIN'],
    ...body,
  });
  const made = await call(t, 'POST', pullPayments, woo({}));
  t.is(made.status, 200, made.text);
  t.like(made.body, { name: 'Refund of order woo-1001; damaged', description: '', currency: 'USD', amount: '13', autoApproveClaims: false });
  const [refund] = await refundsOf(invoice);
  t.like(refund, { amount: '0.0002', rate_rule: 'coin_amount', claim_url: made.body.viewLink });

  const nameless = await call(t, 'POST', pullPayments, woo({ name: 'Refund of order 99999; nothing' }));
  t.is(nameless.status, 422);
  t.is(nameless.body[0].path, 'name');
  const approving = await call(t, 'POST', pullPayments, woo({ autoApproveClaims: true }));
  t.is(approving.status, 403);
  t.is(approving.body.missingPermission, 'btcpay.store.cancreatepullpayments');
  const recurring = await call(t, 'POST', pullPayments, woo({ period: 604800 }));
  t.is(recurring.status, 422);
  t.is(recurring.body[0].path, 'period');

  // Listing needs the view permission, which the create permission includes.
  const listed = await call(t, 'GET', pullPayments);
  t.is(listed.status, 200);
  t.true(listed.body.some((pp: { id: string }) => pp.id === made.body.id));
  const archived = await greenfield(gw, token, 'DELETE', `${pullPayments}/${made.body.id}`);
  t.is(archived.status, 403, 'archiving needs canarchivepullpayments');
  const { token: manager } = await issueKey(gw, owner, [`btcpay.store.canmanagepullpayments:${store.projectId}`]);
  const done = await greenfield(gw, manager, 'DELETE', `${pullPayments}/${made.body.id}`);
  t.is(done.status, 200, done.text);
  assertGreenfieldAnswer(t, 'DELETE', `/api/v1/pull-payments/${made.body.id}`, done);
  t.is((await gw.kernel.cradle.payoutsItems.get(store.projectId, 'refund', refund!.id)).status, 'cancelled');
  t.false((await call(t, 'GET', pullPayments)).body.some((pp: { id: string }) => pp.id === made.body.id));
  const all = await call(t, 'GET', `${pullPayments}?includeArchived=true`);
  t.like(
    all.body.find((pp: { id: string }) => pp.id === made.body.id),
    { archived: true },
  );
});

test('a sandbox reset removes the store’s pull payments with its refunds', async (t) => {
  const own = await sandboxClient(gw, undefined, owner.operatorId);
  const { token: key } = await issueKey(gw, owner, [`btcpay.store.canmodifystoresettings:${own.projectId}`]);
  const created = await greenfield(gw, key, 'POST', `/api/v1/stores/${own.projectId}/invoices`, { amount: '130', currency: 'USD' });
  const picked = await own.call('POST', `/checkout-sessions/${created.body.id}/simulate-pick`, { coin: 'btc' });
  for (const what of ['detect', 'paid']) await own.call('POST', `/invoices/${picked.body.invoice_id}/simulate-${what}`, {});
  const made = await greenfield(gw, key, 'POST', `/api/v1/stores/${own.projectId}/invoices/${created.body.id}/refund`, { refundVariant: 'RateThen' });
  t.is(made.status, 200, made.text);
  const rows = () => gw.kernel.cradle.db('btcpay_pull_payments').where({ project_id: own.projectId });
  t.is((await rows()).length, 1);
  await gw.kernel.cradle.sandboxProjects.reset(own.projectId, CLI_ACTOR);
  t.deepEqual(await rows(), []);
  t.is((await greenfield(gw, undefined, 'GET', `/api/v1/pull-payments/${made.body.id}`)).status, 404);
});
