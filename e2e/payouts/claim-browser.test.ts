import test from 'ava';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { CLI_ACTOR } from '@gw/kernel';
import { signedFetch, waitFor } from '@gw/kernel/testing';
import { payoutsPlugin } from '@gw/plugin-payouts';
import { treasuryPlugin } from '@gw/plugin-treasury';
import { axeViolationsWithoutScripts } from '../axe.js';
import { mailingBrowserSandbox } from '../mailing-browser-sandbox.js';

// The payer's refund claim page in a real browser with JavaScript off (Debian's chromium driven by
// playwright-core, accessibility checked with axe-core), the checkout page's claim panel, and the
// claim link mailed to a local SMTP server.
/** BIP-173's valid addresses: one of Bitcoin's test networks (a sandbox refund's), one of mainnet (another network). */
const TESTNET_ADDRESS = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
const MAINNET_ADDRESS = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';

const f = mailingBrowserSandbox(test, [treasuryPlugin, payoutsPlugin]);

let seq = 0;
/** A sandbox invoice paid half as much again as asked (0.00625 BTC over) and a refund of the excess. */
async function refund(invoiceBody: Record<string, unknown> = {}, refundBody: { email?: string } = {}): Promise<{ invoice: any; refund: any }> {
  const created = await f.c.call('POST', '/invoices', { external_id: `claim-${++seq}`, coin: 'btc', amount_crypto: '0.0125', ...invoiceBody });
  if (created.status !== 201) throw new Error(`invoice: ${created.status} ${JSON.stringify(created.body)}`);
  await f.c.call('POST', `/invoices/${created.body.id}/simulate-detect`, {});
  const paid = await f.c.call('POST', `/invoices/${created.body.id}/simulate-overpaid`, { multiplier: 1.5 });
  if (paid.status !== 200) throw new Error(`simulate-overpaid: ${paid.status} ${JSON.stringify(paid.body)}`);
  // Made through the service the partner API calls (the API's own tests cover the route).
  const made = await f.gw.kernel.cradle.payoutsItems.createRefund({ projectId: f.c.projectId, invoiceId: created.body.id, ...refundBody }, CLI_ACTOR);
  return { invoice: created.body, refund: made.item };
}

const stored = (id: string) => f.gw.kernel.cradle.payoutsItems.get(f.c.projectId, 'refund', id);

/** A page without JavaScript in a fresh context. */
async function open(t: { teardown(fn: () => Promise<void>): void }, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await f.browser.newContext({ javaScriptEnabled: false, ...options });
  t.teardown(() => context.close());
  return context.newPage();
}

async function submit(page: Page, address: string, confirmation = address, button = 'Claim the refund'): Promise<void> {
  await page.fill('#address', address);
  await page.fill('#address_confirmation', confirmation);
  await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: button }).click()]);
}

const errorCode = (page: Page) => page.locator('[data-error-code]').getAttribute('data-error-code');

test('the payer claims a refund without JavaScript: mismatched addresses and an address of another network are refused in words, a valid one is taken; axe-clean in every state', async (t) => {
  const { invoice, refund: item } = await refund();
  t.is(item.status, 'awaiting_claim');
  t.regex(item.claim_url, /\/refunds\/claim\/[A-Za-z0-9_-]+$/);
  const page = await open(t);
  await page.goto(item.claim_url);
  t.is(await page.locator('#state-title').textContent(), 'Waiting for your address');
  t.is(await page.locator('#external-id').textContent(), invoice.external_id);
  t.is(await page.locator('#amount').textContent(), '0.00625 BTC');
  t.regex((await page.locator('#coin-network').textContent()) ?? '', /^BTC · Bitcoin /);
  t.deepEqual(await axeViolationsWithoutScripts(page), [], 'open');

  await submit(page, TESTNET_ADDRESS, TESTNET_ADDRESS.slice(0, -1) + 'y');
  t.is(await errorCode(page), 'claim_address_mismatch');
  t.truthy(await page.getByText('The two addresses differ. Enter the same address twice.').count());
  t.is(await page.inputValue('#address'), TESTNET_ADDRESS, 'what was entered is kept');
  t.deepEqual(await axeViolationsWithoutScripts(page), [], 'refused');

  await submit(page, MAINNET_ADDRESS);
  t.is(await errorCode(page), 'claim_address_invalid');
  t.regex((await page.locator('#claim-error').textContent()) ?? '', /This is not an address of BTC on Bitcoin /);

  await submit(page, TESTNET_ADDRESS);
  t.is(new URL(page.url()).pathname, new URL(item.claim_url).pathname, 'back to the page (303)');
  t.is(await page.locator('#state-title').textContent(), 'Claimed: waiting for approval');
  t.is(await page.locator('#paid-to').textContent(), TESTNET_ADDRESS);
  t.is(await page.locator('form').count(), 0);
  t.deepEqual(await axeViolationsWithoutScripts(page), [], 'claimed');
  const after = await stored(item.id);
  t.is(after.status, 'claimed');
  t.is(after.address, TESTNET_ADDRESS);
});

test('a second claim is refused: a page opened before the first claim shows that the refund is already claimed', async (t) => {
  const { refund: item } = await refund();
  const first = await open(t);
  const second = await open(t);
  await first.goto(item.claim_url);
  await second.goto(item.claim_url);
  await submit(first, TESTNET_ADDRESS);
  t.is(await first.locator('#state-title').textContent(), 'Claimed: waiting for approval');
  await submit(second, 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7');
  t.is(await errorCode(second), 'claim_already_made');
  t.is(await second.locator('#state-title').textContent(), 'Claimed: waiting for approval');
  t.deepEqual(await axeViolationsWithoutScripts(second), []);
  t.is((await stored(item.id)).address, TESTNET_ADDRESS);
});

test('a claim after cancellation is refused; a forged form (no cookie) changes nothing; German speaks German', async (t) => {
  const { refund: item } = await refund();
  const page = await open(t, { locale: 'de-DE' });
  await page.goto(item.claim_url);
  t.is(await page.getAttribute('html', 'lang'), 'de');
  t.is(await page.locator('#state-title').textContent(), 'Warten auf Ihre Adresse');
  const forged = await fetch(item.claim_url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ address: TESTNET_ADDRESS, address_confirmation: TESTNET_ADDRESS, csrf: 'A'.repeat(22) }).toString(),
  });
  t.is(forged.status, 403);
  t.is((await stored(item.id)).status, 'awaiting_claim');
  t.is((await f.gw.kernel.cradle.payoutsItems.cancel(f.c.projectId, 'refund', item.id, CLI_ACTOR)).status, 'cancelled');
  await submit(page, TESTNET_ADDRESS, TESTNET_ADDRESS, 'Rückerstattung anfordern');
  t.is(await errorCode(page), 'claim_closed');
  t.is(await page.locator('#state-title').textContent(), 'Storniert');
  t.deepEqual(await axeViolationsWithoutScripts(page), []);
});

test('a hostile external_id and project name are shown as text on the claim page', async (t) => {
  const hostile = '"><script>document.title="owned"</script><img src=x onerror=alert(1)>';
  const sandbox = await f.gw.kernel.cradle.sandboxProjects.provision({ name: hostile }, CLI_ACTOR);
  const client = (method: string, path: string, body?: unknown) =>
    signedFetch(f.gw.url, `/api/v1/sandbox${path}`, {
      projectId: sandbox.project.id,
      secret: sandbox.api_key.api_secret,
      method,
      ...(body === undefined ? {} : { body }),
    });
  const externalId = `${hostile}-${++seq}`;
  const invoice = (await client('POST', '/invoices', { external_id: externalId, coin: 'btc', amount_crypto: '0.0125' })).body;
  await client('POST', `/invoices/${invoice.id}/simulate-detect`, {});
  t.is((await client('POST', `/invoices/${invoice.id}/simulate-overpaid`, { multiplier: 1.5 })).status, 200);
  const { item } = await f.gw.kernel.cradle.payoutsItems.createRefund({ projectId: sandbox.project.id, invoiceId: invoice.id }, CLI_ACTOR);
  const claimUrl = item.claim_url!;
  const page = await open(t, { javaScriptEnabled: true });
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(claimUrl);
  t.is(await page.locator('#external-id').textContent(), externalId);
  t.is(await page.locator('#project-name').textContent(), hostile);
  t.is(await page.locator('script').count(), 0);
  t.is(await page.locator('img').count(), 0);
  t.is(await page.title(), `Claim your refund · ${hostile}`, 'the script did not run: the title is the page’s own, with the name as text');
  t.deepEqual(dialogs, []);
  const raw = await (await fetch(claimUrl)).text();
  t.false(raw.includes('<script>document.title'));
});

test('the checkout page shows the refund waiting for a claim, with its link, until the payer claims it', async (t) => {
  const { invoice, refund: item } = await refund();
  const page = await open(t);
  await page.goto(invoice.checkout_url);
  const panel = page.locator('#refund-claim');
  t.regex((await panel.textContent()) ?? '', /A refund of 0\.00625 BTC is waiting for you\./);
  await Promise.all([page.waitForLoadState('load'), panel.getByRole('link', { name: 'Claim it' }).click()]);
  t.is(new URL(page.url()).pathname, new URL(item.claim_url).pathname);
  await submit(page, TESTNET_ADDRESS);
  await page.goto(`${invoice.checkout_url}?lang=de`);
  t.is(await page.locator('#refund-claim').count(), 0, 'claimed: no panel');

  const other = await refund();
  await page.goto(`${other.invoice.checkout_url}?lang=de`);
  t.regex((await page.locator('#refund-claim').textContent()) ?? '', /Eine Rückerstattung von 0,00625 BTC wartet auf Sie\./);
  t.truthy(await page.locator('#refund-claim a[href$="?lang=de"]').count());
});

test('a refund created with an e-mail address mails the claim link to it', async (t) => {
  const email = `payer-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const { invoice, refund: item } = await refund({}, { email });
  const message = await waitFor(async () => f.sink.messages.find((m) => m.to.includes(email)), 20_000, 'the claim e-mail');
  const raw = message.raw.replace(/=\r?\n/g, '');
  t.regex(raw, /^Subject: Your refund from /m);
  t.true(raw.includes(item.claim_url), 'the link');
  t.true(raw.includes(invoice.external_id));
  t.true(raw.includes('0.00625 BTC'));
  const page = await open(t);
  await page.goto(item.claim_url!);
  t.is(await page.locator('#state-title').textContent(), 'Waiting for your address');
  t.is(f.sink.count(email), 1);
});
