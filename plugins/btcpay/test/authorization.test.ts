import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { MailSink } from '@gw/plugin-oauth/testing';
// The operator CLI itself (not a package dependency: the CLI app depends on this plugin).
import { ALL_CHAINS, cliRunner, FIXED_RATES } from '@gw/testing';
import { DashboardBrowser, type Answer } from './dashboard-browser.js';
import { BTCPAY_PLUGINS, newOwner, productionStore, sandboxClient, startBtcpayKernel, WOO_PERMISSIONS, type Owner } from './helpers.js';

// The API-key authorization flow over HTTP (the Chromium test runs it in a browser): the request
// checked at `/btcpay/api-keys/authorize`, the sign-in's way back, the approval page's choices,
// the key handed over as BTCPay posts it, denial, the keys page and its revocation.

let gw: TestKernel;
let sink: MailSink;

test.before(async () => {
  sink = await MailSink.start();
  gw = await startBtcpayKernel({
    'plugins.oauth.smtp.url': sink.url,
    'plugins.oauth.emailCode.sendsPerHourPerIp': 1000,
    'plugins.dashboard.signInsPerHourPerIp': 1000,
  });
});
test.after.always(async () => {
  await gw?.close();
  await sink?.close();
});

const REDIRECT = 'https://shop.example/?btcpay-settings-callback';

/** The query of an authorization request as BTCPay's PHP client builds it (`ApiKey::getAuthorizeUrl`). */
function authorizeQuery(options: {
  permissions?: readonly string[];
  name?: string;
  strict?: boolean;
  selective?: boolean;
  redirect?: string;
  identifier?: string;
}) {
  const parts = (options.permissions ?? WOO_PERMISSIONS).map((p) => `permissions=${encodeURIComponent(p)}`);
  if (options.name !== undefined) parts.push(`applicationName=${encodeURIComponent(options.name)}`);
  if (options.strict !== undefined) parts.push(`strict=${options.strict}`);
  if (options.selective !== undefined) parts.push(`selectiveStores=${options.selective}`);
  if (options.redirect !== undefined) parts.push(`redirect=${encodeURIComponent(options.redirect)}`);
  if (options.identifier !== undefined) parts.push(`applicationIdentifier=${encodeURIComponent(options.identifier)}`);
  return parts.join('&');
}

const decode = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The named fields of the form posting to `action` on a page (hidden inputs, in order). */
function formFields(text: string, action: string): [string, string][] {
  const start = text.indexOf(`<form method="post" action="${action.replace(/&/g, '&amp;')}"`);
  if (start < 0) throw new Error(`no form to ${action} on the page:\n${text}`);
  const form = text.slice(start, text.indexOf('</form>', start));
  return [...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [decode(m[1]!), decode(m[2]!)]);
}

/** An owner signed in on a new browser that opened `query` at the authorize URL: on the approval page. */
async function approvalPage(owner: Owner, query: string): Promise<{ browser: DashboardBrowser; page: Answer }> {
  const browser = new DashboardBrowser(gw.url);
  const start = await browser.get(`/btcpay/api-keys/authorize?${query}`);
  if (start.status !== 303) throw new Error(`authorize: ${start.status} ${start.text}`);
  const signedIn = await browser.signInAt(start.location!, sink, owner.email);
  const page = await browser.get(signedIn.location!);
  return { browser, page };
}

/** Sends the approval form of `page` with `decision` and `extra` fields (a field with value `null` is left out). */
function decide(browser: DashboardBrowser, page: Answer, decision: 'approve' | 'deny', extra: Record<string, string | null> = {}) {
  const fields = formFields(page.text, '/dashboard/btcpay-keys/authorize');
  const sent = fields.filter(([name]) => !(name in extra));
  for (const [name, value] of Object.entries(extra)) if (value !== null) sent.push([name, value]);
  sent.push(['decision', decision]);
  return browser.post('/dashboard/btcpay-keys/authorize', sent);
}

const keysOf = (owner: Owner) => gw.kernel.cradle.btcpayApiKeys.list(owner.operatorId, { limit: 100 });

test('a good request leads through the sign-in, with its canonical form as the return path, to the approval page', async (t) => {
  const owner = await newOwner(gw);
  const store = await sandboxClient(gw, undefined, owner.operatorId);
  const browser = new DashboardBrowser(gw.url);
  const start = await browser.get(`/btcpay/api-keys/authorize?${authorizeQuery({ name: 'WooCommerce', strict: true, selective: true, redirect: REDIRECT })}`);
  t.is(start.status, 303);
  const returnTo = new URL(start.location!, gw.url).searchParams.get('return_to')!;
  t.is(new URL(start.location!, gw.url).pathname, '/dashboard/sign-in');
  const carried = new URL(returnTo, gw.url);
  t.is(carried.pathname, '/dashboard/btcpay-keys/authorize');
  t.deepEqual(carried.searchParams.getAll('permissions'), WOO_PERMISSIONS);
  t.is(carried.searchParams.get('redirect'), REDIRECT);
  const signedIn = await browser.signInAt(start.location!, sink, owner.email);
  t.is(signedIn.location, returnTo);
  const page = await browser.get(returnTo);
  t.is(page.status, 200);
  t.regex(page.text, /<h1>Authorize WooCommerce<\/h1>/);
  t.regex(page.text, /View invoices/);
  t.regex(page.text, /btcpay\.store\.webhooks\.canmodifywebhooks/);
  t.true(page.text.includes(`<option value="${store.projectId}">`), 'selectiveStores: the operator picks one of its projects');
  t.true(page.text.includes(`<code>${REDIRECT}</code>`), 'where the key goes is said');
  // What the application says about itself is text on the page, never markup.
  const named = await browser.get(
    `/btcpay/api-keys/authorize?${authorizeQuery({ name: '<img src=x onerror=alert(1)>', redirect: 'https://shop.example/"><b>x' })}`,
  );
  const escaped = await browser.get(named.location!);
  const shown = await browser.get(escaped.location!);
  t.is(shown.status, 200);
  t.false(shown.text.includes('<img src=x'));
  t.true(shown.text.includes('&lt;img src=x onerror=alert(1)&gt;'));
  t.false(shown.text.includes('"><b>x'));
  // Signed in already: the authorize URL leads straight to the approval page.
  const again = await browser.get(`/btcpay/api-keys/authorize?${authorizeQuery({ name: 'WooCommerce' })}`);
  t.is((await browser.get(again.location!)).location?.startsWith('/dashboard/btcpay-keys/authorize?'), true);
});

test('bad parameters are answered at once with a page naming the problem, and nothing is created', async (t) => {
  const cases: [string, RegExp][] = [
    [authorizeQuery({ permissions: ['btcpay.store.canfly'] }), /&quot;btcpay\.store\.canfly&quot; is not a BTCPay permission/],
    [authorizeQuery({ redirect: 'javascript:alert(1)' }), /is not an http or https URL/],
    [authorizeQuery({ redirect: 'ftp://shop.example/cb' }), /is not an http or https URL/],
    [authorizeQuery({ redirect: '/relative/callback' }), /is not an absolute URL/],
    [authorizeQuery({ redirect: 'https://user:secret@shop.example/cb' }), /user name or password/],
    // The hand-over page's CSP could name it only by its whole scheme.
    [authorizeQuery({ redirect: 'http://[::1]:8080/cb' }), /has an IPv6 address as its host/],
    [`${authorizeQuery({})}&strict=maybe`, /strict must be true or false/],
    [`${authorizeQuery({ redirect: REDIRECT })}&redirect=${encodeURIComponent('https://evil.example/')}`, /redirect is given more than once/],
    [authorizeQuery({ permissions: ['btcpay.store.canviewinvoices:01ARZ3NDEKTSV4RRFFQ69G5FAV'] }), /names a store/],
    [authorizeQuery({ name: 'Shop\u0007' }), /control characters/],
  ];
  for (const [query, message] of cases) {
    const answer = await fetch(`${gw.url}/btcpay/api-keys/authorize?${query}`, { redirect: 'manual' });
    const text = await answer.text();
    t.is(answer.status, 400, query);
    t.regex(answer.headers.get('content-type') ?? '', /^text\/html/);
    t.regex(text, message, query);
    t.regex(text, /btcpay_authorize_request_invalid/);
    t.regex(answer.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  }
  t.false(
    (await (await fetch(`${gw.url}/btcpay/api-keys/authorize?${authorizeQuery({ name: '<script>alert(1)</script>\u0001' })}`)).text()).includes('<script>'),
  );
});

test('approve with selectiveStores and a redirect: the key is bound to the picked project and handed over as BTCPay posts it', async (t) => {
  const owner = await newOwner(gw);
  await sandboxClient(gw, undefined, owner.operatorId);
  const picked = await productionStore(gw, owner);
  const { browser, page } = await approvalPage(owner, authorizeQuery({ name: 'WooCommerce', strict: true, selective: true, redirect: REDIRECT }));
  const handOver = await decide(browser, page, 'approve', { store: picked.projectId, label: 'My shop' });
  t.is(handOver.status, 201, handOver.text);
  t.regex(handOver.headers.get('content-security-policy') ?? '', /form-action 'self' https:\/\/shop\.example;/);
  const fields = formFields(handOver.text, REDIRECT);
  t.false(
    fields.some(([name]) => name === '_csrf'),
    'nothing of the dashboard goes to the application',
  );
  const apiKey = fields.find(([name]) => name === 'apiKey')![1];
  t.regex(apiKey, /^[0-9a-f]{40}$/);
  t.deepEqual(
    fields.filter(([name]) => name === 'permissions[]').map(([, value]) => value),
    WOO_PERMISSIONS.map((p) => `${p}:${picked.projectId}`),
  );
  t.deepEqual(
    fields.find(([name]) => name === 'userId'),
    ['userId', owner.userId],
  );
  const principal = await gw.kernel.cradle.btcpayApiKeys.authenticate(apiKey);
  t.is(principal?.operatorId, owner.operatorId);
  t.is(principal?.userId, owner.userId);
  t.is(principal?.label, 'My shop');
  const [audit] = await gw.kernel.cradle.db('kernel_audit_log').where({ target: `btcpay_key:${principal!.keyId}`, action: 'btcpay_key.create' });
  t.is(audit.actor, `user:${owner.userId}`);
  t.is(audit.channel, 'dashboard');
  // The result page acts once: sending the same form again creates nothing.
  const fieldsSent = formFields(page.text, '/dashboard/btcpay-keys/authorize');
  const resent = await browser.post('/dashboard/btcpay-keys/authorize', [...fieldsSent, ['store', picked.projectId], ['decision', 'approve']]);
  t.is(resent.status, 409);
  t.is((await keysOf(owner)).length, 1);
});

test('without selectiveStores the store permissions bind to every project of the operator, stored explicitly; without a redirect the key is shown once', async (t) => {
  const owner = await newOwner(gw);
  const first = await sandboxClient(gw, undefined, owner.operatorId);
  const second = await productionStore(gw, owner);
  const { browser, page } = await approvalPage(
    owner,
    authorizeQuery({ permissions: ['btcpay.store.canviewinvoices', 'btcpay.user.canviewprofile'], name: 'Reporting' }),
  );
  t.regex(page.text, /apply to each of your 2 projects/);
  const shown = await decide(browser, page, 'approve');
  t.is(shown.status, 201, shown.text);
  t.regex(shown.text, /You will not see this again/);
  const token = /id="btcpay-key" class="mono" readonly value="([0-9a-f]{40})"/.exec(shown.text)?.[1];
  t.truthy(token);
  const [key] = await keysOf(owner);
  t.deepEqual(
    [...key!.permissions].sort(),
    [`btcpay.store.canviewinvoices:${first.projectId}`, `btcpay.store.canviewinvoices:${second.projectId}`, 'btcpay.user.canviewprofile'].sort(),
  );
  t.is((await gw.kernel.cradle.btcpayApiKeys.authenticate(token!))?.keyId, key!.id);
});

test('strict=false lets the operator untick permissions; a server permission is never granted, and a strict request for one cannot be approved', async (t) => {
  const owner = await newOwner(gw);
  const store = await sandboxClient(gw, undefined, owner.operatorId);
  const loose = await approvalPage(
    owner,
    authorizeQuery({
      permissions: ['btcpay.store.canviewinvoices', 'btcpay.store.cancreateinvoice', 'btcpay.server.canmodifyserversettings'],
      strict: false,
      selective: true,
    }),
  );
  t.regex(loose.page.text, /Not available on this gateway: not granted/);
  t.false(loose.page.text.includes('name="grant.btcpay.server.canmodifyserversettings"'), 'a refused permission has no checkbox');
  const approved = await decide(loose.browser, loose.page, 'approve', {
    store: store.projectId,
    'grant.btcpay.store.canviewinvoices': 'on',
    'grant.btcpay.server.canmodifyserversettings': 'on',
  });
  t.is(approved.status, 201, approved.text);
  const [key] = await keysOf(owner);
  t.deepEqual(key!.permissions, [`btcpay.store.canviewinvoices:${store.projectId}`], 'the unticked and the server permission are left out');

  const strict = await approvalPage(owner, authorizeQuery({ permissions: ['btcpay.store.canviewinvoices', 'btcpay.server.canmanageusers'], strict: true }));
  t.regex(strict.page.text, /insists on .*Manage users.*which this gateway gives to no API key/);
  t.false(strict.page.text.includes('value="approve"'), 'no Approve button');
  const refused = await decide(strict.browser, strict.page, 'approve');
  t.is(refused.status, 400);
  t.regex(refused.text, /btcpay_authorize_choice_invalid/);

  const none = await approvalPage(owner, authorizeQuery({ permissions: ['btcpay.store.canviewinvoices'], strict: false }));
  const nothing = await decide(none.browser, none.page, 'approve', { 'grant.btcpay.store.canviewinvoices': null });
  t.is(nothing.status, 400);
  t.regex(nothing.text, /Keep at least one permission/);
  t.is((await keysOf(owner)).length, 1);
});

test('a project of another operator cannot be picked, and the approval page never lists one', async (t) => {
  const owner = await newOwner(gw);
  await sandboxClient(gw, undefined, owner.operatorId);
  const stranger = await newOwner(gw);
  const theirs = await productionStore(gw, stranger);
  const { browser, page } = await approvalPage(owner, authorizeQuery({ selective: true, redirect: REDIRECT }));
  t.false(page.text.includes(theirs.projectId));
  const answer = await decide(browser, page, 'approve', { store: theirs.projectId });
  t.is(answer.status, 400);
  t.regex(answer.text, /Pick one of your projects/);
  t.is((await keysOf(owner)).length, 0);
});

test('deny creates nothing and leads back to the application; a member may deny but not approve', async (t) => {
  const owner = await newOwner(gw);
  await sandboxClient(gw, undefined, owner.operatorId);
  const { browser, page } = await approvalPage(owner, authorizeQuery({ name: 'WooCommerce', redirect: REDIRECT }));
  const denied = await decide(browser, page, 'deny');
  t.is(denied.status, 200);
  t.regex(denied.text, /No key was created for <strong>WooCommerce<\/strong>/);
  t.true(denied.text.includes(`<a href="${REDIRECT}">Back to WooCommerce</a>`));
  t.is((await keysOf(owner)).length, 0);

  const member = await gw.kernel.cradle.tenancyUsers.invite(
    { email: `member-${Date.now()}@shop.example`, operator: owner.operatorId, role: 'member' },
    CLI_ACTOR,
  );
  const asMember = await approvalPage({ ...owner, userId: member.id, email: member.email }, authorizeQuery({ name: 'WooCommerce', redirect: REDIRECT }));
  t.regex(asMember.page.text, /Only an administrator of your operator can approve/);
  t.false(asMember.page.text.includes('value="approve"'));
  t.is((await decide(asMember.browser, asMember.page, 'approve')).status, 403);
  t.is((await decide(asMember.browser, asMember.page, 'deny', { _once: 'A'.repeat(22) })).status, 200);
  t.is((await keysOf(owner)).length, 0);
});

test('an applicationIdentifier given before: the page names the earlier key and approving issues a new one', async (t) => {
  const owner = await newOwner(gw);
  const store = await sandboxClient(gw, undefined, owner.operatorId);
  const query = authorizeQuery({ name: 'Odoo', identifier: 'odoo-btcpay', redirect: REDIRECT, selective: true });
  const first = await approvalPage(owner, query);
  t.false(first.page.text.includes('was given a key before'));
  t.is((await decide(first.browser, first.page, 'approve', { store: store.projectId })).status, 201);
  const second = await approvalPage(owner, query);
  t.regex(second.page.text, /This application was given a key before \(“Odoo”/);
  t.is((await decide(second.browser, second.page, 'approve', { store: store.projectId })).status, 201);
  const keys = await keysOf(owner);
  t.is(keys.length, 2);
  t.true(keys.every((k) => k.application_identifier === 'odoo-btcpay' && k.revoked_at_iso === null));
});

test('the keys page lists the operator’s keys with their approver, and revokes one (audited); another operator’s key is not found', async (t) => {
  const owner = await newOwner(gw);
  const store = await sandboxClient(gw, undefined, owner.operatorId);
  const { browser, page } = await approvalPage(owner, authorizeQuery({ name: 'WooCommerce', redirect: REDIRECT, selective: true }));
  await decide(browser, page, 'approve', { store: store.projectId });
  const [key] = await keysOf(owner);
  const list = await browser.get('/dashboard/btcpay-keys');
  t.is(list.status, 200);
  t.regex(list.text, /WooCommerce <span class="note">\(…[0-9a-f]{4}\)<\/span>/);
  t.true(list.text.includes(owner.email));
  t.regex(list.text, /Create invoices/);
  t.regex(list.text, /\/btcpay<\/code> as its BTCPay Server URL/);

  const stranger = await newOwner(gw);
  const { key: theirs } = await gw.kernel.cradle.btcpayApiKeys.create(
    { operatorId: stranger.operatorId, userId: stranger.userId, label: 'theirs', permissions: ['btcpay.user.canviewprofile'] },
    CLI_ACTOR,
  );
  t.false(list.text.includes('theirs'));
  const notFound = await browser.post('/dashboard/btcpay-keys/revoke', { _csrf: list.csrf!, key: theirs.id });
  t.is(notFound.status, 404);
  t.is((await gw.kernel.cradle.btcpayApiKeys.get(theirs.id, stranger.operatorId)).revoked_at_iso, null);

  const revoked = await browser.post('/dashboard/btcpay-keys/revoke', { _csrf: list.csrf!, key: key!.id });
  t.is(revoked.status, 303);
  t.is(revoked.location, '/dashboard/btcpay-keys');
  const after = await gw.kernel.cradle.btcpayApiKeys.get(key!.id, owner.operatorId);
  t.truthy(after.revoked_at_iso);
  t.is(after.revoked_by, `user:${owner.userId}`);
  const audits = await gw.kernel.cradle.db('kernel_audit_log').where({ target: `btcpay_key:${key!.id}`, action: 'btcpay_key.revoke' });
  t.is(audits.length, 1);
  t.is(audits[0].channel, 'dashboard');
  t.regex((await browser.get('/dashboard/btcpay-keys')).text, /is revoked/);
});

const cli = (...argv: string[]) =>
  cliRunner({
    plugins: BTCPAY_PLUGINS,
    chains: ALL_CHAINS,
    databaseUrl: () => gw.database.url,
    overrides: () => ({ 'plugins.btcpay.enabled': true, 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': FIXED_RATES }),
  })(...argv, '--json');

test('CLI btcpay-key list and revoke (--json): the operator’s keys, paged; revoked as the operator, audited; unknown key refused', async (t) => {
  const owner = await newOwner(gw);
  await newOwner(gw);
  const store = await sandboxClient(gw, undefined, owner.operatorId);
  const made = [];
  for (const label of ['first', 'second', 'third']) {
    made.push(
      (
        await gw.kernel.cradle.btcpayApiKeys.create(
          { operatorId: owner.operatorId, userId: owner.userId, label, permissions: [`btcpay.store.canviewinvoices:${store.projectId}`] },
          CLI_ACTOR,
        )
      ).key,
    );
  }
  const several = await cli('btcpay-key', 'list');
  t.not(several.code, 0, 'several operators exist: --operator is needed');
  t.is(several.json.error_code, 'operator_required');
  const page1 = await cli('btcpay-key', 'list', '--operator', owner.operatorId, '--limit', '2');
  t.is(page1.code, 0, page1.stderr);
  t.deepEqual(
    page1.json.keys.map((k: { label: string }) => k.label),
    ['third', 'second'],
  );
  t.is(page1.json.keys[0].user_id, owner.userId);
  t.deepEqual(page1.json.keys[0].permissions, [`btcpay.store.canviewinvoices:${store.projectId}`]);
  t.false(JSON.stringify(page1.json).includes('token_hash'));
  const page2 = await cli('btcpay-key', 'list', '--operator', owner.operatorId, '--limit', '2', '--cursor', page1.json.next_cursor);
  t.deepEqual(
    page2.json.keys.map((k: { label: string }) => k.label),
    ['first'],
  );
  t.is(page2.json.next_cursor, undefined);

  const revoked = await cli('btcpay-key', 'revoke', '--key', made[0]!.id);
  t.is(revoked.code, 0, revoked.stderr);
  t.truthy(revoked.json.key.revoked_at_iso);
  t.is(revoked.json.key.revoked_by, CLI_ACTOR.actor);
  const [audit] = await gw.kernel.cradle.db('kernel_audit_log').where({ target: `btcpay_key:${made[0]!.id}`, action: 'btcpay_key.revoke' });
  t.is(audit.channel, 'cli');
  const unknown = await cli('btcpay-key', 'revoke', '--key', '01ARZ3NDEKTSV4RRFFQ69G5FAV');
  t.not(unknown.code, 0);
  t.is(unknown.json.error_code, 'btcpay_api_key_not_found');
  t.not((await cli('btcpay-key', 'revoke', '--key', 'not-a-key')).code, 0);
});
