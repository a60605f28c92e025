import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { signedFetch } from '@gw/kernel/testing';
import test from 'ava';
import { HDNodeWallet } from 'ethers';
import type { Page } from 'playwright-core';
import { ROOT } from '@gw/testing';
import { DashboardWorld, PHONE, expectAccessible } from './harness.js';

// The operations pages in a real browser (Debian's chromium through playwright-core) on a gateway
// started as a user starts it: invoices, simulations, the webhook log, wallets, overview, policy,
// audit; a read-only member refused on every write; script in partner text shown as text.

const SCRIPT = '<script>window.__pwned = 1</script>';
/** Set to write the screenshots of docs/dashboard.md (docs/images/dashboard-*.png). */
const SCREENSHOTS = process.env['GW_DASHBOARD_SCREENSHOTS'] === '1';

let world: DashboardWorld;
let receiver: Server;
let receiverUrl: string;
test.before(async () => {
  // Fixed rates: a paid invoice gets its USD rate at payment (the overview's paid volume).
  world = await DashboardWorld.start({
    GW__plugins__webhooks__privateResponseExcerpts: 'true',
    GW__plugins__rates__providers: '["fixed"]',
    GW__plugins__rates__fixed: '{"BTC":"65000","ETH":"3200.5"}',
  });
  // A partner's webhook endpoint whose answer carries markup: the log must show it as text.
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`ok ${SCRIPT}`);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
test.after.always(async () => {
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  await world?.close();
});

async function shot(page: Page, name: string): Promise<void> {
  if (SCREENSHOTS) await page.screenshot({ path: join(ROOT, 'docs', 'images', `dashboard-${name}.png`), fullPage: true });
}

async function pwned(page: Page): Promise<unknown> {
  return page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned);
}

/** What the scenario leaves for the member's refusals. */
const made: { sandbox?: string; secret?: string; production?: string; invoice?: string; event?: string; operator?: string } = {};

test.serial(
  'sandbox: an invoice made through the signed API is found, driven to paid by the simulation buttons, its delivery seen in the log and resent; partner text is escaped; axe passes',
  async (t) => {
    const admin = await world.invite('ops-admin@example.test', 'admin');
    made.operator = admin.operator_id;
    const { page, cspViolations } = await world.signedIn(t, admin.email);
    await page.getByLabel('Name').first().fill('Shop sandbox');
    await page.getByRole('button', { name: 'Create sandbox project' }).click();
    const projectId = (await page.locator('#project-id').innerText()).trim();
    const secret = await page.locator('#api-secret').inputValue();
    made.sandbox = projectId;
    made.secret = secret;

    const created = await signedFetch(world.url, '/api/v1/sandbox/invoices', {
      projectId,
      secret,
      method: 'POST',
      body: { external_id: `order-1${SCRIPT}`, coin: 'btc', amount_crypto: '0.0015', callback_url: receiverUrl, metadata: { note: SCRIPT } },
    });
    t.is(created.status, 201, JSON.stringify(created.body));
    const invoice = created.body as { id: string };
    made.invoice = invoice.id;

    await page.goto(`${world.url}/dashboard/projects/${projectId}/invoices`);
    await expectAccessible(t, page);
    await page.getByLabel('Status').selectOption('pending');
    await page.getByRole('button', { name: 'Search' }).click();
    t.is(await page.getByRole('link', { name: invoice.id }).count(), 1, 'the new invoice is listed under status pending');
    await shot(page, 'invoices');
    await page.getByRole('link', { name: invoice.id }).click();
    t.is(await pwned(page), undefined, 'metadata and external id are shown as text');
    t.true((await page.locator('pre.json').innerText()).includes(SCRIPT));
    await expectAccessible(t, page);

    await page.getByRole('button', { name: 'Simulate detect' }).click();
    await page.getByText('Simulated detect: the invoice is detected').waitFor();
    await page.getByRole('button', { name: 'Simulate paid' }).click();
    await page.getByText('Simulated paid: the invoice is paid').waitFor();
    t.is((await page.locator('.facts .badge').first().innerText()).trim(), 'paid');
    t.true((await page.getByRole('region', { name: /Timeline/ }).innerText()).includes('invoice.paid'), 'the timeline shows the paid event');
    await expectAccessible(t, page);
    await shot(page, 'invoice-sandbox');

    // The delivery reaches the receiver; the log shows the attempt with its escaped excerpt.
    let delivered = false;
    for (let i = 0; i < 60 && !delivered; i++) {
      await page.goto(`${world.url}/dashboard/projects/${projectId}/webhooks?status=delivered&event_type=invoice.paid`);
      delivered = (await page.getByRole('link', { name: /^[0-9A-Z]{26}$/ }).count()) > 0;
      if (!delivered) await new Promise((r) => setTimeout(r, 500));
    }
    t.true(delivered, 'invoice.paid is delivered');
    await expectAccessible(t, page);
    await shot(page, 'webhooks');
    await page
      .getByRole('link', { name: /^[0-9A-Z]{26}$/ })
      .first()
      .click();
    made.event = new URL(page.url()).pathname.split('/').pop()!;
    const excerpt = await page.locator('pre.excerpt').first().innerText();
    t.true(excerpt.includes(SCRIPT), 'the response excerpt is shown as text');
    t.is(await pwned(page), undefined);
    t.true((await page.locator('pre.excerpt').first().innerHTML()).includes('&lt;script&gt;'));
    await expectAccessible(t, page);
    await shot(page, 'webhook-event');
    await page.getByRole('button', { name: 'Resend as a new event' }).click();
    await page.getByText(/Resent as event [0-9A-Z]{26}/).waitFor();
    t.regex(await page.locator('.facts').innerText(), new RegExp(`Resend of\\s+${made.event}`));

    // The export, as the CLI's: the form, then a streamed CSV download with the invoice's line.
    await page.goto(`${world.url}/dashboard/projects/${projectId}/invoices/export`);
    await expectAccessible(t, page);
    const today = new Date().toISOString().slice(0, 10);
    const csv = await page.request.get(`${world.url}/dashboard/projects/${projectId}/invoices/export?from=${today}&to=${today}&format=csv`);
    t.is(csv.status(), 200);
    t.regex(csv.headers()['content-type'] ?? '', /^text\/csv/);
    t.regex(csv.headers()['content-disposition'] ?? '', /^attachment; filename="invoices-/);
    const lines = (await csv.text()).trim().split('\r\n');
    t.true(lines[0]!.startsWith('invoice_id,') && lines.some((l) => l.startsWith(`${invoice.id},`)), 'the CSV has the header and the invoice');

    for (const path of ['overview', 'orphans', 'wallets', 'policy']) {
      await page.goto(`${world.url}/dashboard/projects/${projectId}/${path}`);
      t.is(await page.locator('h1').count(), 1, path);
      await expectAccessible(t, page);
    }
    await page.goto(`${world.url}/dashboard/projects/${projectId}/overview`);
    t.regex(await page.locator('main').innerText(), /1 invoices created, 1 paid/);
    await shot(page, 'overview');
    await page.goto(`${world.url}/dashboard/audit?channel=dashboard`);
    const audit = await page.locator('main').innerText();
    t.true(audit.includes('webhook.resend') && audit.includes(`user:${admin.id}`), 'the resend is audited as the user on channel dashboard');
    await expectAccessible(t, page);
    await shot(page, 'audit');
    t.deepEqual(cspViolations, []);
  },
);

test.serial(
  'invoice pages: a paid invoice priced in crypto shows the USD the overview counts; badges differ by status tone; simulations that do not apply are disabled; 320 px wide pages do not overflow',
  async (t) => {
    const { page } = await world.signedIn(t, 'ops-admin@example.test', { viewport: { width: 320, height: 640 } });
    const base = `${world.url}/dashboard/projects/${made.sandbox}`;
    const api = (path: string, body?: unknown) =>
      signedFetch(world.url, `/api/v1/sandbox${path}`, {
        projectId: made.sandbox!,
        secret: made.secret!,
        method: 'POST',
        ...(body === undefined ? {} : { body }),
      });

    // The paid BTC invoice of the first scenario (0.0015 BTC, no amount_usd): its USD at payment, as the overview sums it.
    await page.goto(`${base}/overview`);
    const received = /<strong>([\d.]+) USD<\/strong> received/.exec(await page.locator('main').innerHTML())?.[1];
    t.truthy(received && Number(received) > 0, `the overview counts the paid invoice: ${received}`);
    await page.goto(`${base}/invoices/${made.invoice}`);
    const usd = await page.locator('.facts dt:text-is("USD") + dd').innerText();
    t.true(usd.startsWith(`${received} at payment`), `USD fact: ${usd}`);
    await page.goto(`${base}/invoices`);
    t.true((await page.locator('table tbody tr', { hasText: made.invoice! }).innerText()).includes(`${received} at payment`));

    // A pending invoice: only detect and expire apply; no terminal webhook yet to deliver again.
    const pending = (await api('/invoices', { external_id: 'tones-pending', coin: 'btc', amount_crypto: '0.001' })).body as { id: string };
    await page.goto(`${base}/invoices/${pending.id}`);
    const enabled = async (name: string | RegExp) => page.getByRole('button', { name }).isEnabled();
    t.true(await enabled('Simulate detect'));
    t.true(await enabled('Simulate expire'));
    for (const name of [
      'Simulate paid',
      'Simulate overpaid (×1.5)',
      'Simulate partial (half)',
      'Simulate late-payment',
      'Simulate reorg',
      'Simulate reconfirm',
      'Deliver the last terminal webhook again',
    ])
      t.false(await enabled(name), name);
    t.true(await enabled('Cancel invoice'));
    // A detected invoice that accepts any amount: a smaller payment is not partial, so its button is disabled.
    const any = (await api('/invoices', { external_id: 'tones-any', coin: 'btc', amount_crypto: '0.001', matching_mode: 'any' })).body as { id: string };
    t.is((await api(`/invoices/${any.id}/simulate-detect`)).status, 200);
    await page.goto(`${base}/invoices/${any.id}`);
    t.true(await enabled('Simulate paid'));
    t.false(await enabled('Simulate partial (half)'));
    t.is((await api(`/invoices/${any.id}/simulate-partial`, { fraction: 0.5 })).status, 422, 'the simulator refuses what the page disables');

    // Status badges: paid, waiting and ended invoices each have their own tone and colours.
    t.is((await api(`/invoices/${pending.id}/simulate-expire`)).status, 200);
    await page.goto(`${base}/invoices`);
    const look = (status: string) =>
      page
        .locator(`table .badge-${status}`)
        .first()
        .evaluate((el) => {
          const style = (globalThis as any).getComputedStyle(el);
          return { tone: [...el.classList].find((c: string) => c.startsWith('tone-')), background: style.backgroundColor, border: style.borderStyle };
        });
    const [paid, detected, expired] = [await look('paid'), await look('detected'), await look('expired')];
    t.deepEqual([paid.tone, detected.tone, expired.tone], ['tone-good', 'tone-waiting', 'tone-ended']);
    t.is(new Set([paid.background, detected.background, expired.background]).size, 3, 'three backgrounds');
    t.is(new Set([paid.border, detected.border, expired.border]).size, 3, 'and three border styles: not colour alone');
    await expectAccessible(t, page);

    const everywhere = ['projects', 'audit', 'doctor', 'mcp-tools', 'account', 'tokens'].map((p) => `${world.url}/dashboard/${p}`);
    for (const path of [
      'overview',
      'invoices',
      `invoices/${made.invoice}`,
      `invoices/${any.id}`,
      'invoices/export',
      'webhooks',
      'orphans',
      'wallets',
      'policy',
      'key',
      ...everywhere,
    ]) {
      await page.goto(path.startsWith('http') ? path : `${base}/${path}`);
      const width = await page.evaluate(() => (globalThis as any).document.scrollingElement.scrollWidth);
      const wide = await page.evaluate(() =>
        [...(globalThis as any).document.querySelectorAll('body *')]
          .filter((e: any) => e.getBoundingClientRect().right > 320)
          .map((e: any) => `${e.tagName}.${e.className}#${e.id}:${Math.round(e.getBoundingClientRect().right)}`)
          .slice(0, 8)
          .join(' '),
      );
      t.true(width <= 320, `${path} at 320 px: scrollWidth ${width}; wider: ${wide}`);
    }
  },
);

test.serial('production: a wallet is registered after comparing its addresses and verified with a real signature pasted into the form', async (t) => {
  const { page } = await world.signedIn(t, 'ops-admin@example.test');
  await page.goto(`${world.url}/dashboard/projects`);
  await page.locator('#project-name').fill('Shop live');
  await page.getByLabel('production').check();
  await page.getByRole('button', { name: 'Create project' }).click();
  const projectId = (await page.locator('#project-id').innerText()).trim();
  made.production = projectId;

  const root = HDNodeWallet.fromPhrase('test test test test test test test test test test test junk', undefined, "m/44'/60'/0'");
  const xpub = root.neuter().extendedKey;
  await page.goto(`${world.url}/dashboard/projects/${projectId}/wallets`);
  await expectAccessible(t, page);
  await page.getByLabel('Chain', { exact: true }).selectOption('eth');
  await page.getByLabel('Account key').fill(xpub);
  await page.getByRole('button', { name: 'Show the first addresses' }).click();
  const preview = await page.getByRole('region', { name: /First 5 receive addresses/ }).innerText();
  t.true(
    preview.includes(root.deriveChild(0).deriveChild(0).address) && preview.includes("m/44'/60'/0'/0/4"),
    'the addresses and paths are those of the wallet',
  );
  await expectAccessible(t, page);
  await shot(page, 'wallet-preview');
  await page.getByRole('button', { name: 'The addresses match: register this key' }).click();
  const message = await page.getByLabel('Message to sign').inputValue();
  t.regex(message, new RegExp(`project ${projectId}, chain eth`));
  await expectAccessible(t, page);
  await shot(page, 'wallet-challenge');
  await page.getByLabel('Signature').fill(await root.deriveChild(0).deriveChild(0).signMessage(message));
  await page.getByRole('button', { name: 'Verify the signature' }).click();
  await page.getByText(/The eth wallet [0-9a-f]{16} is verified/).waitFor();
  t.true((await page.getByRole('region', { name: 'Wallet per chain' }).innerText()).includes('verified'));

  // A wrong signature is refused with the wallets' error, nothing changes.
  await page.getByLabel('Chain', { exact: true }).selectOption('polygon');
  await page.getByLabel('Account key').fill(xpub);
  await page.getByRole('button', { name: 'Show the first addresses' }).click();
  await page.getByRole('button', { name: 'The addresses match: register this key' }).click();
  await page.getByLabel('Signature').fill(
    await root
      .deriveChild(0)
      .deriveChild(1)
      .signMessage(await page.getByLabel('Message to sign').inputValue()),
  );
  await page.getByRole('button', { name: 'Verify the signature' }).click();
  t.is(await page.locator('h1').innerText(), 'Could not do that');
  t.regex(await page.locator('.error').innerText(), /wallet_signature_rejected/);
});

test.serial('a read-only member is refused every write of the operations pages, nothing changes', async (t) => {
  const member = await world.invite('ops-member@example.test', 'member', made.operator);
  const { page } = await world.signedIn(t, member.email);
  const { sandbox, production, invoice, event } = made;
  t.truthy(sandbox && production && invoice && event, 'the earlier tests made the records');
  await page.goto(`${world.url}/dashboard/projects/${sandbox}/invoices/${invoice}`);
  t.is(await page.getByRole('button', { name: /Simulate|Cancel invoice/ }).count(), 0, 'no write buttons for a member');
  const csrf = await page.locator('input[name=_csrf]').first().inputValue();
  const writes: [string, Record<string, string>][] = [
    [`/dashboard/projects/${sandbox}/invoices/${invoice}/cancel`, {}],
    [`/dashboard/projects/${sandbox}/invoices/${invoice}/simulate`, { simulation: 'reorg' }],
    [`/dashboard/projects/${sandbox}/invoices/${invoice}/duplicate-delivery`, {}],
    [`/dashboard/projects/${sandbox}/sandbox/clock-advance`, { chain: 'btc', blocks: '1' }],
    [`/dashboard/projects/${sandbox}/webhooks/${event}/resend`, {}],
    [`/dashboard/projects/${sandbox}/webhooks/replay`, { all: 'true' }],
    [`/dashboard/projects/${sandbox}/orphans/attribute`, { tx_hash: 'ab'.repeat(32), external_id: 'x' }],
    [`/dashboard/projects/${production}/wallets/preview`, { chain: 'eth', xpub: 'xpub' }],
    [`/dashboard/projects/${production}/wallets/register`, { chain: 'btc', xpub: 'xpub' }],
    [`/dashboard/projects/${production}/wallets/polygon/verify`, { signature: '0x00' }],
    [`/dashboard/projects/${production}/wallets/pool/replenish`, {}],
    [`/dashboard/projects/${production}/wallets/pool/activate`, { address: 'T' }],
    [`/dashboard/projects/${production}/policy`, { expiry_seconds: '600' }],
  ];
  const auditBefore = await world.cli('invoice', 'show', '--project', sandbox!, '--id', invoice!);
  for (const [path, fields] of writes) {
    const response = await page.request.post(`${world.url}${path}`, { form: { _csrf: csrf, ...fields }, headers: { Origin: world.url }, maxRedirects: 0 });
    t.is(response.status(), 403, path);
    t.regex(await response.text(), /read-only member/, path);
  }
  const after = await world.cli('invoice', 'show', '--project', sandbox!, '--id', invoice!);
  t.deepEqual(after.invoice.status, auditBefore.invoice.status, 'the invoice is unchanged');
  const policy = await world.cli('policy', 'show', '--project', production!);
  t.is(policy.policy.overrides.expiry_seconds, null, 'the policy is unchanged');
});

test.serial('a forged CSRF token is refused on an operations write; at phone width the pages fit the screen and pass axe', async (t) => {
  const { page } = await world.signedIn(t, 'ops-admin@example.test', PHONE);
  const forged = await page.request.post(`${world.url}/dashboard/projects/${made.sandbox}/invoices/${made.invoice}/cancel`, {
    form: { _csrf: 'forged' },
    headers: { Origin: world.url },
    maxRedirects: 0,
  });
  t.is(forged.status(), 403);
  for (const path of [
    `projects/${made.sandbox}/overview`,
    `projects/${made.sandbox}/invoices`,
    `projects/${made.sandbox}/invoices/${made.invoice}`,
    `projects/${made.sandbox}/webhooks`,
    `projects/${made.production}/wallets`,
    'mcp-tools',
    'doctor',
  ]) {
    await page.goto(`${world.url}/dashboard/${path}`);
    const overflow = await page.evaluate(() => {
      const g = globalThis as any;
      return g.document.documentElement.scrollWidth - g.innerWidth;
    });
    t.true(overflow <= 0, `${path} fits a phone's width (overflow ${overflow}px)`);
    await expectAccessible(t, page);
  }
  await shot(page, 'phone-overview');
});
