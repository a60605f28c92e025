import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { CLI_ACTOR } from '@gw/kernel';
import { stopAll } from '@gw/testing';
import { axeViolations } from './harness.js';
import { MailSink, signedInPage, signedInUser, startDashboardKernel } from './kernel.js';

// The invoices plugin's pages over HTTP with signed-in sessions (issue 38): "Create invoice" for a
// one-off invoice (administrators only; the same rules as the API, audited as the user; a form
// sent twice makes one invoice) and the underpayment tolerance on the policy page; axe-clean in
// Chromium.

const SCRIPT = '<script>window.__pwned = 1</script>';

let gw: TestKernel;
let sink: MailSink;
let operator: string;
let projectId: string;

test.before(async () => {
  sink = await MailSink.start();
  gw = await startDashboardKernel(sink, { 'plugins.rates.fixedFiat': { EUR: '1.0815', JPY: '0.0064' } });
  operator = (await gw.kernel.cradle.tenancyOperators.create('invoice-pages', CLI_ACTOR)).id;
  projectId = (await gw.kernel.cradle.sandboxProjects.provision({ name: 'one-offs', operator }, CLI_ACTOR)).project.id;
});
test.after.always(() => stopAll(gw, sink));

const base = () => `/dashboard/projects/${projectId}/invoices`;
const invoicesOf = () => gw.kernel.cradle.db('invoices_invoices').where({ project_id: projectId });

test.serial('a member sees no "Create invoice" and is refused its form and its action', async (t) => {
  const member = await signedInUser(gw, sink, 'member', operator);
  const list = await member.client.get(base());
  t.is(list.status, 200);
  t.false(list.text.includes(`href="${base()}/new"`));
  t.is((await member.client.get(`${base()}/new`)).status, 403);
  const refused = await member.client.post(`${base()}/new`, { _csrf: member.csrf, coin: 'eth', amount: '10', currency: 'USD' });
  t.is(refused.status, 403);
  t.is((await invoicesOf()).length, 0);
});

test.serial(
  'an administrator creates a one-off invoice in USD: shown with its checkout link, audited as the user; the same form again makes no second one',
  async (t) => {
    const admin = await signedInUser(gw, sink, 'admin', operator);
    t.true((await admin.client.get(base())).text.includes(`href="${base()}/new"`));
    const form = await admin.client.get(`${base()}/new`);
    t.is(form.status, 200);
    t.regex(form.text, /<option value="eth">eth<\/option>/, 'the project’s enabled coins');
    const externalId = /name="external_id"[^>]*value="(op_[0-9A-Z]{26})"/.exec(form.text)?.[1];
    t.truthy(externalId, 'a generated external id');
    const fields = { _csrf: admin.csrf, coin: 'eth', amount: '12.50', currency: 'USD', external_id: externalId!, description: `Order 7 ${SCRIPT}` };
    const created = await admin.client.post(`${base()}/new`, fields);
    t.is(created.status, 303, created.text.slice(0, 300));
    const [row] = await invoicesOf();
    t.like(row, { external_id: externalId, coin: 'eth', amount_usd: '12.50000000', metadata: { description: `Order 7 ${SCRIPT}` } });
    t.is(created.location, `${base()}/${row.id}`);
    const shown = await admin.client.get(created.location!);
    t.is(shown.status, 200);
    const invoice = await gw.kernel.cradle.invoicesService.get(projectId, row.id);
    t.true(shown.text.includes(`send the payer to ${invoice.checkout_url}`), 'the notice names the checkout link');
    t.true(shown.text.includes(`href="${invoice.checkout_url}"`));
    t.false(shown.text.includes(SCRIPT), 'the description is escaped');
    const audit = await gw.kernel.cradle
      .db('kernel_audit_log')
      .where({ target: `invoice:${row.id}`, action: 'invoice.create' })
      .first();
    t.like(audit, { actor: `user:${admin.user.id}`, channel: 'dashboard' });

    const again = await admin.client.post(`${base()}/new`, fields);
    t.is(again.status, 303);
    t.is(again.location, `${base()}/${row.id}`);
    t.is((await invoicesOf()).length, 1, 'a form sent twice makes one invoice');
  },
);

test.serial('an amount in the coin or in another fiat currency of the rates; bad input is an error page with nothing written', async (t) => {
  const admin = await signedInUser(gw, sink, 'admin', operator);
  const form = await admin.client.get(`${base()}/new`);
  for (const currency of ['USD', 'EUR', 'JPY', 'TRY', 'coin']) t.true(form.text.includes(`<option value="${currency}">`), currency);
  const euros = await admin.client.post(`${base()}/new`, { _csrf: admin.csrf, coin: 'eth', amount: '19.90', currency: 'EUR', external_id: 'in-euros' });
  t.is(euros.status, 303, euros.text.slice(0, 300));
  const eurosPage = await admin.client.get(euros.location!);
  t.true(eurosPage.text.includes('19.90 EUR'), 'the invoice page shows the price');
  t.true(eurosPage.text.includes('1.0815 USD per EUR'));
  t.like(await gw.kernel.cradle.db('invoices_invoices').where({ project_id: projectId, external_id: 'in-euros' }).first(), {
    price_currency: 'EUR',
    price_amount: '19.90',
    price_rate: '1.0815',
    amount_usd: '21.52000000',
  });
  const crypto = await admin.client.post(`${base()}/new`, { _csrf: admin.csrf, coin: 'btc', amount: '0.0015', currency: 'coin', external_id: 'in-coin' });
  t.is(crypto.status, 303, crypto.text.slice(0, 300));
  t.like(await gw.kernel.cradle.db('invoices_invoices').where({ project_id: projectId, external_id: 'in-coin' }).first(), {
    amount_crypto: '0.0015',
    amount_usd: null,
  });
  const before = (await invoicesOf()).length;
  for (const [fields, status, code] of [
    [{ coin: 'eth', amount: 'ten', currency: 'USD' }, 400, 'validation_error'],
    [{ coin: 'eth', amount: '0.001', currency: 'USD' }, 400, 'validation_error'],
    [{ coin: 'eth', amount: '12.123456789', currency: 'USD' }, 400, 'validation_error'],
    [{ coin: 'btc', amount: '0.000000001', currency: 'coin' }, 400, 'validation_error'],
    [{ coin: 'doge', amount: '10', currency: 'USD' }, 422, 'coin_not_enabled'],
    [{ coin: 'eth', amount: '10', currency: 'XYZ' }, 400, 'validation_error'],
    [{ coin: 'eth', amount: '10.5', currency: 'JPY' }, 400, 'validation_error'],
    [{ coin: 'eth', amount: '999999999', currency: 'EUR' }, 422, 'amount_out_of_range'],
    [{ coin: 'eth', amount: '10', currency: 'USD', external_id: 'in-coin' }, 409, 'external_id_conflict'],
    [{ coin: 'eth', currency: 'USD' }, 400, 'invalid_form'],
  ] as const) {
    const refused = await admin.client.post(`${base()}/new`, { _csrf: admin.csrf, ...fields });
    t.is(refused.status, status, JSON.stringify(fields));
    t.true(refused.text.includes(`<code>${code}</code>`), `${JSON.stringify(fields)}: ${refused.text.slice(0, 300)}`);
  }
  t.is((await invoicesOf()).length, before);
});

test.serial('the policy page sets the underpayment tolerance (checked by the policy service) and shows it; "default" removes it', async (t) => {
  const admin = await signedInUser(gw, sink, 'admin', operator);
  const path = `/dashboard/projects/${projectId}/policy`;
  for (const value of ['0.06', 'half', '0.0000001']) {
    const refused = await admin.client.post(path, { _csrf: admin.csrf, underpayment_tolerance: value });
    t.is(refused.status, 400, value);
    t.true(refused.text.includes('underpayment tolerance must be'), value);
  }
  t.is((await gw.kernel.cradle.invoicesPolicies.get(projectId)).underpayment_tolerance, '0');
  t.is((await admin.client.post(path, { _csrf: admin.csrf, underpayment_tolerance: '0.005' })).status, 303);
  t.is((await gw.kernel.cradle.invoicesPolicies.get(projectId)).underpayment_tolerance, '0.005');
  t.true((await admin.client.get(path)).text.includes('0.005 (0.5 %)'));
  const audit = await gw.kernel.cradle.db('kernel_audit_log').where({ project_id: projectId, action: 'invoice_policy.set', channel: 'dashboard' }).first();
  t.is(audit.details.underpaymentTolerance, '0.005');
  t.is((await admin.client.post(path, { _csrf: admin.csrf, underpayment_tolerance: 'default' })).status, 303);
  t.is((await gw.kernel.cradle.invoicesPolicies.get(projectId)).underpayment_tolerance, '0');
});

test.serial('the pages are axe-clean in Chromium and work without JavaScript', async (t) => {
  const page = await signedInPage(t, gw, sink, operator, false);
  await page.goto(`${base()}/new`);
  await page.selectOption('#invoice-coin', 'eth');
  await page.fill('#invoice-amount', '3');
  await page.fill('#invoice-description', 'From the browser');
  await Promise.all([page.waitForURL(new RegExp(`${base()}/[0-9A-Z]{26}$`)), page.click('main button[type=submit]')]);
  t.true((await page.textContent('main'))!.includes('send the payer to'));
  const invoicePath = new URL(page.url()).pathname;
  // axe-core itself runs as a script: a context with JavaScript for it.
  const scripted = await page.context().browser()!.newContext({ baseURL: gw.url, javaScriptEnabled: true });
  await scripted.addCookies((await page.context().cookies()).filter((cookie) => cookie.name === 'gw_dashboard'));
  const checked = await scripted.newPage();
  for (const path of [base(), `${base()}/new`, invoicePath, `/dashboard/projects/${projectId}/policy`]) {
    const answer = await checked.goto(path);
    t.is(answer?.status(), 200, path);
    t.deepEqual(await axeViolations(checked), [], `axe-core on ${path}`);
  }
});
