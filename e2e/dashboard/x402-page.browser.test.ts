import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { stopAll } from '@gw/testing';
import { signPayment, startX402, USDC, type X402Harness } from '@gw/plugin-x402/testing';
import { axeViolations, axeViolationsWithoutScripts } from '../axe.js';
import { MailSink, signedInPage, signedInUser } from './kernel.js';

// The x402 page (issue 41) over HTTP and in Chromium, on anvil with the EIP-3009 test token: the
// settlement mode, the payable coin, the gas wallet (address, balance, 24 h spend, caps, in ETH),
// the latest settlements of the user's operator's projects with the invoice link and the
// transaction; another operator sees the deployment's gas wallet but not the settlement; filters
// checked; a project name that is markup is shown as text; axe-clean with and without JavaScript.
// The settlement is a real one: the invoice's requirement, a payment signed as an x402 client
// signs it, verified and settled by the gateway's gas wallet into the invoice's address.

const SCRIPT = '<script>window.__pwned = 1</script>';
const BASE = '/dashboard/x402';

let h: X402Harness, sink: MailSink;
let invoiceId: string, transaction: string, stranger: string;

test.before(async () => {
  sink = await MailSink.start();
  h = await startX402({
    config: {
      'plugins.oauth.smtp.url': sink.url,
      'plugins.oauth.emailCode.sendsPerHourPerIp': 1000,
      'plugins.dashboard.signInsPerHourPerIp': 1000,
    },
  });
  const { x402Payments, tenancyProjects, tenancyOperators } = h.gw.kernel.cradle;
  await tenancyProjects.create({ name: SCRIPT, kind: 'testnet', operator: h.operatorId }, CLI_ACTOR);
  stranger = (await tenancyOperators.create('x402-page-other', CLI_ACTOR)).id;
  const invoice = await h.invoice('2');
  invoiceId = invoice.id;
  const required = await x402Payments.requirementsFor(invoice, { url: invoice.checkout_url });
  if (!required) throw new Error('the invoice offers no x402 requirement');
  const requirements = required.accepts[0]!;
  const payer = await h.payer(5n * USDC);
  const settled = await x402Payments.settle(await signPayment(payer, requirements), requirements, {
    projectId: h.project.projectId,
    invoiceId,
    source: 'invoice',
  });
  if (!settled.success) throw new Error(`the settlement failed: ${JSON.stringify(settled)}`);
  transaction = settled.transaction;
});
test.after.always(() => stopAll(h, sink));

test.serial('members read the mode, the payable coin, the gas wallet in ETH and their settlements with invoice and transaction', async (t) => {
  const member = await signedInUser(h.gw, sink, 'member', h.operatorId);
  const seen = await member.client.get(BASE);
  t.is(seen.status, 200);
  t.true(seen.text.includes('>x402</a>'), 'the header links the page');
  t.regex(seen.text, /<dt>Mode<\/dt><dd>gas wallet: [^<]*\(<code>gas_wallet<\/code>\)<\/dd>/);
  t.regex(seen.text, /<td>usdc<\/td><td>eth anvil<br><code>eip155:31337<\/code><\/td>/);
  t.regex(seen.text, new RegExp(`<td><code class="wrap">${h.gasWallet.address}</code></td><td>9\\.\\d+ ETH</td><td>0\\.\\d+ ETH<br>`));
  t.regex(seen.text, /<td>0\.1 ETH<\/td><td>1 ETH<\/td><td>9\d<\/td>/, 'the caps in ETH, and how many settlements at the cap the balance pays for');
  t.true(seen.text.includes(`<a href="/dashboard/projects/${h.project.projectId}/invoices/${invoiceId}"><code>${invoiceId}</code></a>`));
  t.true(seen.text.includes(`<code class="wrap">${transaction}</code>`));
  t.regex(seen.text, /<td>2 usdc<\/td>/);
  t.regex(seen.text, /badge-settled[^>]*>settled<\/span>/);
  t.false(seen.text.includes(SCRIPT), 'a project name is text, never markup');
  t.true(seen.text.includes('&lt;script&gt;'), 'the project named with markup is offered in the filter, escaped');

  const filtered = await member.client.get(`${BASE}?status=failed`);
  t.is(filtered.status, 200);
  t.false(filtered.text.includes(transaction));
  t.true(filtered.text.includes('No settlement matches.'));
  t.is((await member.client.get(`${BASE}?status=bogus`)).status, 400);
  t.true((await member.client.get(`${BASE}?project=${h.project.projectId}&status=settled`)).text.includes(transaction));
});

test.serial(
  'another operator sees the deployment’s gas wallet, never this operator’s settlement; its project filter refuses a project not its own',
  async (t) => {
    const other = await signedInUser(h.gw, sink, 'admin', stranger);
    const seen = await other.client.get(BASE);
    t.is(seen.status, 200);
    t.true(seen.text.includes(h.gasWallet.address));
    t.false(seen.text.includes(transaction));
    t.false(seen.text.includes(invoiceId));
    t.true(seen.text.includes('No settlement yet.'));
    t.is((await other.client.get(`${BASE}?project=${h.project.projectId}`)).status, 400);
  },
);

test.serial('in Chromium, with and without JavaScript: axe finds nothing, and no script of a project name runs', async (t) => {
  for (const javaScriptEnabled of [true, false]) {
    const page = await signedInPage(t, h.gw, sink, h.operatorId, javaScriptEnabled);
    const response = await page.goto(BASE);
    t.is(response?.status(), 200);
    t.true((await page.locator('main').innerText()).includes(transaction));
    t.deepEqual(
      javaScriptEnabled ? await axeViolations(page) : await axeViolationsWithoutScripts(page),
      [],
      `axe-core, JavaScript ${javaScriptEnabled ? 'on' : 'off'}`,
    );
    if (javaScriptEnabled) t.is(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned), undefined);
  }
});
