/**
 * Refunds and payouts end to end on a real Bitcoin node (issue 37, "Tests with real parts: bcoin"),
 * one bcoin regtest node and one gateway of the shipped composition for the whole file:
 *
 * 1. an invoice overpaid on chain gets a refund of its natural amount (the excess) over the signed
 *    partner API; the payer claims it on the claim page in Chromium;
 * 2. an administrator signs in to the dashboard (code from the SMTP sink) and approves it there;
 * 3. a two-recipient payout is proposed over the API and approved; the three items become one
 *    batch (the dashboard's form), a multi-output PSBT that `gateway-signer` signs offline;
 * 4. the gateway verifies, broadcasts and tracks it to its confirmations; the refund and payout
 *    webhooks arrive signed (checked with @gw/webhook-verify) and in each item's order;
 * 5. after a sweep too, the project's books balance: received = held + moved out + fees.
 *
 * Scans and the treasury's tracking pass are driven by the test (no timers); the webhook delivery
 * and the claim-mail jobs run in the gateway's own worker.
 */
import test, { type ExecutionContext } from 'ava';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chains, plugins } from '@gw/app-gateway';
import { CLI_ACTOR, type ChainId } from '@gw/kernel';
import { signedFetch, startTestKernel, waitFor, type TestKernel } from '@gw/kernel/testing';
import { MailSink } from '@gw/plugin-oauth/testing';
import { Bcoin, CHROMIUM, cliRunner, projectWithPools, Receiver, type TestProject, stopAll } from '@gw/testing';
import { verifyWebhook } from '@gw/webhook-verify';
import { bcoinTreasuryConfig, signOffline, treasuryApi } from '@gw/plugin-treasury/testing';
import { scanOnce } from '@gw/plugin-watchers/testing';
import { axeViolations } from './axe.js';

const FEE_RATE = 2n;
const ADMIN = 'refunds-admin@example.test';

let node: Bcoin;
let gw: TestKernel;
let sink: MailSink;
let receiver: Receiver;
let browser: Browser;
let project: TestProject;
let operatorId: string;
let token: string;
let config: Record<string, unknown>;
let cli: ReturnType<typeof cliRunner>;

test.before(async () => {
  node = await Bcoin.startMature();
  sink = await MailSink.start();
  receiver = await Receiver.start();
  config = {
    ...(await bcoinTreasuryConfig(node, { poolSize: 10, feeRate: FEE_RATE })),
    'plugins.webhooks.allowPrivateTargets': true,
    'plugins.oauth.smtp.url': sink.url,
    'plugins.oauth.emailCode.sendsPerHourPerIp': 1000,
    'plugins.dashboard.signInsPerHourPerIp': 1000,
  };
  gw = await startTestKernel({ plugins, chains, role: 'all', config });
  cli = cliRunner({ plugins, chains, databaseUrl: () => gw.database.url, overrides: () => config });
  operatorId = (await gw.kernel.cradle.tenancyOperators.create('refunds-bcoin', CLI_ACTOR)).id;
  project = await projectWithPools(gw, operatorId, ['btc' as ChainId], 'testnet');
  token = (await gw.kernel.cradle.tenancyPats.create({ scopes: ['treasury:read', 'treasury:write', 'payouts:read'], operator: operatorId }, CLI_ACTOR)).token;
  const hook = await cli('webhook', 'set', '--project', project.projectId, '--url', `${receiver.url}/hooks`, '--json');
  if (hook.code !== 0) throw new Error(hook.stdout + hook.stderr);
  await gw.kernel.cradle.tenancyUsers.invite({ email: ADMIN, role: 'admin', operator: operatorId }, CLI_ACTOR);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
});
test.after.always(() => stopAll(browser, gw, node, receiver, sink));

const api = treasuryApi(
  () => gw,
  () => token,
);
const scan = () => scanOnce(gw, 'btc', 'regtest');
const partner = (path: string, options: { method?: 'GET' | 'POST'; body?: unknown; headers?: Record<string, string> } = {}) =>
  signedFetch(gw.url, path, { ...project, ...options } as Parameters<typeof signedFetch>[2]);

async function nodeAddress(): Promise<string> {
  return (await node.wallet<{ address: string }>('POST', '/wallet/primary/address', { account: 'default' })).address;
}

/** What the transaction paid to `address` (base units). */
async function paidTo(txid: string, address: string): Promise<bigint> {
  const tx = await node.rpc<{ vout: { value: number; scriptPubKey: { address?: string; addresses?: string[] } }[] }>('getrawtransaction', [txid, 1]);
  return tx.vout
    .filter((o) => o.scriptPubKey.address === address || o.scriptPubKey.addresses?.includes(address))
    .reduce((sum, o) => sum + BigInt(Math.round(o.value * 1e8)), 0n);
}

/** An invoice of `askedUnits` created over the signed API, paid `paidUnits` from the node's wallet. */
async function invoicePaid(askedUnits: bigint, paidUnits: bigint): Promise<{ id: string; address: string; txid: string }> {
  const amount = `${askedUnits / 100_000_000n}.${(askedUnits % 100_000_000n).toString().padStart(8, '0')}`;
  const created = await partner('/api/v1/invoices', {
    method: 'POST',
    body: { external_id: `rp-${Math.random().toString(36).slice(2)}`, coin: 'btc', amount_crypto: amount },
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  const txid = await node.send(created.body.address, paidUnits);
  return { id: created.body.id, address: created.body.address, txid };
}

/** A page in a browser context of its own, closed at the test's end. */
async function newPage(t: ExecutionContext): Promise<Page> {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  return context.newPage();
}

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${gw.url}/dashboard/sign-in`);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('One-time code').waitFor({ timeout: 15_000 });
  await page.getByLabel('One-time code').fill(await sink.nextCode(email));
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/dashboard/sign-in')), page.getByRole('button', { name: 'Sign in' }).click()]);
}

interface Delivery {
  type: string;
  verified: boolean;
  body: any;
}
/** Every delivery so far, its signature checked with the project's API secret. */
const deliveries = (): Delivery[] =>
  receiver.requests.map((r) => ({
    type: String(r.headers['x-service-event-type']),
    verified: verifyWebhook({ header: String(r.headers['x-service-signature']), rawBody: r.body, secrets: [project.secret] }).ok,
    body: JSON.parse(r.body),
  }));
/** The event types delivered about one item, in arrival order (each event once: retries left out). */
function eventsOf(itemId: string): string[] {
  const seen = new Set<string>();
  const types: string[] = [];
  for (const d of deliveries()) {
    const data = d.body.data ?? {};
    if ((data.refund_id ?? data.payout_id) !== itemId || seen.has(d.body.event_id)) continue;
    seen.add(d.body.event_id);
    types.push(d.type);
  }
  return types;
}

// Shared by the serial tests below.
let overpaid: { id: string; address: string; txid: string };
let other: { id: string; address: string; txid: string };
let kept: { id: string; address: string; txid: string };
let refund: any;
let payouts: any[] = [];
let payoutPlanId: string;
const refundAddress = { value: '' };

test.serial(
  'an invoice overpaid on chain gets a refund of its excess over the signed API; a replay with the same Idempotency-Key answers the first',
  async (t) => {
    overpaid = await invoicePaid(1_000_000n, 1_300_000n);
    other = await invoicePaid(1_000_000n, 1_000_000n);
    kept = await invoicePaid(500_000n, 500_000n);
    await node.mine(6);
    await scan();
    await waitFor(async () => (await partner(`/api/v1/invoices/${overpaid.id}`)).body.status === 'overpaid', 30_000, 'the invoice is overpaid');

    const body = { reason: 'overpayment', reference: 'order-1042' };
    const created = await partner(`/api/v1/invoices/${overpaid.id}/refunds`, { method: 'POST', body, headers: { 'Idempotency-Key': 'order-1042-refund' } });
    t.is(created.status, 201, JSON.stringify(created.body));
    refund = created.body;
    t.like(refund, {
      object: 'refund',
      status: 'awaiting_claim',
      invoice_id: overpaid.id,
      chain: 'btc',
      network: 'regtest',
      coin: 'btc',
      amount_units: '300000',
      amount: '0.003',
      address: null,
      claim_requires_proof: false,
      approvals_required: 1,
    });
    t.regex(refund.claim_url, /\/refunds\/claim\/[0-9A-Za-z]+$/);

    const replay = await partner(`/api/v1/invoices/${overpaid.id}/refunds`, { method: 'POST', body, headers: { 'Idempotency-Key': 'order-1042-refund' } });
    t.is(replay.status, 200);
    t.is(replay.body.id, refund.id);
    const listed = await partner(`/api/v1/invoices/${overpaid.id}/refunds`);
    t.deepEqual(
      listed.body.items.map((i: { id: string }) => i.id),
      [refund.id],
    );
  },
);

test.serial('the payer claims the refund on the claim page in Chromium: an address of the invoice’s network, typed twice', async (t) => {
  const page = await newPage(t);
  const claimPath = new URL(refund.claim_url).pathname;
  await page.goto(`${gw.url}${claimPath}`);
  await page.getByRole('heading', { name: 'Claim your refund' }).waitFor();
  t.deepEqual(await axeViolations(page), [], 'axe-core on the claim page');
  t.true((await page.locator('body').innerText()).includes('0.003'));

  refundAddress.value = await nodeAddress();
  await page.getByLabel(/Your .* address/).fill(refundAddress.value);
  await page.getByLabel('The same address again').fill(refundAddress.value);
  await page.getByRole('button', { name: 'Claim the refund' }).click();
  await page.getByText('Claimed: waiting for approval').waitFor();
  t.true((await page.locator('body').innerText()).includes(refundAddress.value));

  const claimed = await partner(`/api/v1/refunds/${refund.id}`);
  t.like(claimed.body, { status: 'claimed', address: refundAddress.value, claim_url: null });
});

test.serial(
  'an administrator approves the refund in the dashboard; a payout to two recipients is proposed over the API and approved with the CLI',
  async (t) => {
    const page = await newPage(t);
    page.on('dialog', (dialog) => void dialog.accept());
    await signIn(page, ADMIN);
    await page.goto(`${gw.url}/dashboard/projects/${project.projectId}/payouts`);
    const row = page.locator('tr', { hasText: refund.id });
    t.true((await row.innerText()).includes('claimed'));
    await Promise.all([page.waitForNavigation(), row.getByRole('button', { name: 'Approve' }).click()]);
    t.true((await page.locator('body').innerText()).includes(`The refund ${refund.id} is approved`), await page.locator('body').innerText());
    t.like((await partner(`/api/v1/refunds/${refund.id}`)).body, { status: 'approved', approvals_required: 1 });

    const recipients = [
      { address: await nodeAddress(), coin: 'btc', amount: '0.001', reference: 'affiliate-311' },
      { address: await nodeAddress(), coin: 'btc', amount: '0.002', reference: 'settlement-7' },
    ];
    const created = await partner('/api/v1/payouts', { method: 'POST', body: { recipients }, headers: { 'Idempotency-Key': 'payouts-november' } });
    t.is(created.status, 201, JSON.stringify(created.body));
    payouts = created.body.items;
    t.deepEqual(
      payouts.map((p) => [p.status, p.address, p.amount_units, p.reference]),
      [
        ['pending_approval', recipients[0]!.address, '100000', 'affiliate-311'],
        ['pending_approval', recipients[1]!.address, '200000', 'settlement-7'],
      ],
    );
    for (const payout of payouts) {
      const approved = await cli('payout', 'approve', '--id', payout.id, '--as', ADMIN, '--json');
      t.is(approved.code, 0, approved.stdout + approved.stderr);
      t.is(approved.json.item.status, 'approved');
    }
  },
);

test.serial(
  'the three become one batch from the dashboard; gateway-signer signs its PSBT offline; imported, broadcast, confirmed; each recipient is paid and every item completed',
  async (t) => {
    const page = await newPage(t);
    await signIn(page, ADMIN);
    await page.goto(`${gw.url}/dashboard/projects/${project.projectId}/payouts`);
    await page.getByLabel('Chain', { exact: true }).fill('btc');
    await page.getByLabel('Network', { exact: true }).fill('regtest');
    await page.getByLabel('Coin', { exact: true }).fill('btc');
    await page.getByLabel('a pool address of the project:').check();
    await page.getByLabel('Pool address (with “a pool address”)').fill(overpaid.address);
    await page.getByLabel(/^Fee rate/).fill(String(FEE_RATE));
    await Promise.all([page.waitForURL(/\/dashboard\/treasury\/plans\//), page.getByRole('button', { name: 'Create batch' }).click()]);
    payoutPlanId = page.url().split('/plans/')[1]!.split(/[?#]/)[0]!;
    t.true((await page.locator('body').innerText()).includes('Batch of 3 item(s)'));

    const plan = (await api('GET', `/api/v1/treasury/plans/${payoutPlanId}`)).body;
    t.like(plan, { kind: 'payout', status: 'awaiting_signature' });
    const items = [refund, ...payouts];
    for (const item of items) {
      const now = (await partner(`/api/v1/${item.object}s/${item.id}`)).body;
      t.like(now, { status: 'batched', plan_id: payoutPlanId });
    }

    const { signed, review } = await signOffline(plan.plan_file);
    for (const address of [refundAddress.value, ...payouts.map((p) => p.address)]) t.true(review.includes(address), `the signer shows ${address}`);
    const imported = await api('POST', `/api/v1/treasury/plans/${payoutPlanId}/signed`, { signed });
    t.is(imported.status, 200, JSON.stringify(imported.body));
    const sent = await api('POST', `/api/v1/treasury/plans/${payoutPlanId}/broadcast`);
    t.is(sent.status, 200, JSON.stringify(sent.body));
    const txid: string = sent.body.txid;
    await waitFor(async () => (await node.mempool()).includes(txid), 20_000, 'the payout transaction in the mempool');
    for (const item of items) t.like((await partner(`/api/v1/${item.object}s/${item.id}`)).body, { status: 'sent', txid });

    await node.mine(6);
    await scan();
    const report = await gw.kernel.cradle.treasuryTracker.track();
    t.deepEqual(report.confirmed, [payoutPlanId]);
    for (const item of items) t.like((await partner(`/api/v1/${item.object}s/${item.id}`)).body, { status: 'completed', txid });
    t.is(await paidTo(txid, refundAddress.value), 300_000n);
    t.is(await paidTo(txid, payouts[0].address), 100_000n);
    t.is(await paidTo(txid, payouts[1].address), 200_000n);
  },
);

test.serial('the refund and payout webhooks arrive signed, verified, each item’s in order: created, claimed, approved, sent, completed', async (t) => {
  await waitFor(
    async () => eventsOf(refund.id).includes('refund.completed') && payouts.every((p) => eventsOf(p.id).includes('payout.completed')),
    30_000,
    'the completed events at the receiver',
  );
  t.true(
    deliveries().every((d) => d.verified),
    'every delivery verifies with the project secret',
  );
  t.deepEqual(eventsOf(refund.id), ['refund.created', 'refund.claimed', 'refund.approved', 'refund.sent', 'refund.completed']);
  for (const payout of payouts) t.deepEqual(eventsOf(payout.id), ['payout.created', 'payout.approved', 'payout.sent', 'payout.completed']);
  const completed = deliveries().find((d) => d.type === 'refund.completed')!.body;
  t.like(completed.data, { refund_id: refund.id, invoice_id: overpaid.id, status: 'completed', previous_status: 'sent' });
  t.like(completed.data.refund, { id: refund.id, address: refundAddress.value, amount_units: '300000' });
  t.is(completed.mode, 'testnet');
});

test.serial('after a sweep as well, the books balance: received = held + moved out + network fees', async (t) => {
  // A sweep of the second invoice's payment to an external address, signed offline like any plan.
  const created = await api('POST', '/api/v1/treasury/plans', {
    chain: 'btc',
    network: 'regtest',
    select: { invoice_ids: [other.id] },
    destination: { kind: 'external', address: await nodeAddress() },
  });
  t.is(created.status, 201, JSON.stringify(created.body));
  const sweep = created.body;
  const { signed } = await signOffline(sweep.plan_file);
  t.is((await api('POST', `/api/v1/treasury/plans/${sweep.id}/signed`, { signed })).status, 200);
  t.is((await api('POST', `/api/v1/treasury/plans/${sweep.id}/broadcast`)).status, 200);
  await waitFor(async () => (await node.mempool()).length > 0, 20_000, 'the sweep in the mempool');
  await node.mine(6);
  await scan();
  t.deepEqual((await gw.kernel.cradle.treasuryTracker.track()).confirmed, [sweep.id]);

  const from = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const to = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const books = await api('GET', `/api/v1/money-out?project_id=${project.projectId}&from=${from}&to=${to}`);
  t.is(books.status, 200, JSON.stringify(books.body));
  const sum = (rows: { amount_units: string }[]) => rows.reduce((s, r) => s + BigInt(r.amount_units), 0n);
  const received = sum(books.body.money_in.filter((r: { coin: string }) => r.coin === 'btc'));
  t.is(received, 1_300_000n + 1_000_000n + 500_000n);
  const rows: { kind: string; coin: string; amount_units: string; plan_id: string | null }[] = books.body.rows.filter(
    (r: { coin: string }) => r.coin === 'btc',
  );
  const movedOut = sum(rows.filter((r) => r.kind !== 'network_fee'));
  const fees = sum(rows.filter((r) => r.kind === 'network_fee'));
  const balances = await api('GET', `/api/v1/treasury/balances?chain=btc&network=regtest&group_by=project&project_id=${project.projectId}`);
  const heldUnits = sum(balances.body.rows.map((r: { confirmed_units: string; unconfirmed_units: string }) => ({ amount_units: r.confirmed_units })));

  // What each kind moved: the refund, the two payouts, the sweep, and the two plans' fees.
  t.deepEqual(
    rows
      .filter((r) => r.kind === 'refund' || r.kind === 'payout')
      .map((r) => `${r.kind} ${r.amount_units}`)
      .sort(),
    ['payout 100000', 'payout 200000', 'refund 300000'],
  );
  const payoutPlan = (await api('GET', `/api/v1/treasury/plans/${payoutPlanId}`)).body;
  t.is(fees, BigInt(payoutPlan.fee_units) + BigInt(sweep.fee_units));
  // Out of the pool addresses as well: what the sweep delivered, and the payout plan's change to the project's own change address.
  t.deepEqual(
    rows
      .filter((r) => r.kind === 'sweep')
      .map((r) => [r.plan_id, r.amount_units])
      .sort(),
    [
      [payoutPlanId, String(1_300_000n - 600_000n - BigInt(payoutPlan.fee_units))],
      [sweep.id, String(1_000_000n - BigInt(sweep.fee_units))],
    ].sort(),
  );
  t.is(heldUnits, 500_000n, 'only the third payment is still on a pool address');
  const outputs = await api('GET', `/api/v1/treasury/outputs?chain=btc&network=regtest&project_id=${project.projectId}`);
  t.deepEqual(
    outputs.body.outputs.map((o: { invoice_id: string }) => o.invoice_id),
    [kept.id],
  );
  t.is(
    received,
    heldUnits + movedOut + fees,
    JSON.stringify({ received, heldUnits, movedOut, fees, rows }, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)),
  );
});
