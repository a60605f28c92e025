/**
 * The operator CLI of checkout sessions and payment links (issue 38): `gateway payment-link create
 * | list | show | deactivate` and `gateway checkout-session list | show | expire`, run as the CLI
 * runs them (the operator's commands on the test kernel's database) with `--json`, on a sandbox
 * project; refusals exit non-zero with the error code and write nothing.
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { ALL_CHAINS, FIXED_RATES, cliRunner } from '@gw/testing';
import { PAYER_ACTOR } from '../src/index.js';
import { SESSIONS_PLUGINS, startSessionsKernel } from './helpers.js';

let gw: TestKernel;
let projectId: string;

const runCli = cliRunner({
  plugins: SESSIONS_PLUGINS,
  chains: ALL_CHAINS,
  databaseUrl: () => gw.database.url,
  overrides: () => ({ 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': FIXED_RATES }),
});

test.before(async () => {
  gw = await startSessionsKernel();
  projectId = (await gw.kernel.cradle.sandboxProjects.provision({ name: 'cli-sessions' }, CLI_ACTOR)).project.id;
});
test.after.always(async () => {
  await gw?.close();
});

const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;

test.serial('payment-link create, list, show and deactivate with --json; the link opens sessions until deactivated', async (t) => {
  const created = await runCli(
    'payment-link',
    'create',
    '--project',
    projectId,
    '--currency',
    'USD',
    '--amount',
    '12.50',
    '--coins',
    'btc,eth',
    '--description',
    'Coffee beans',
    '--max-uses',
    '3',
    '--ask-email',
    'no',
    '--json',
  );
  t.is(created.code, 0, created.stdout + created.stderr);
  const link = created.json.link;
  t.like(link, {
    object: 'payment_link',
    project_id: projectId,
    mode: 'sandbox',
    active: true,
    price_currency: 'USD',
    price_amount: '12.50',
    min_amount: null,
    max_amount: null,
    description: 'Coffee beans',
    max_uses: 3,
    uses: 0,
    ask_email: false,
  });
  t.deepEqual(link.allowed_coins, ['btc', 'eth']);
  t.is(link.qr_url, `${link.url}/qr.svg`);

  const ranged = await runCli('payment-link', 'create', '--project', projectId, '--currency', 'EUR', '--min', '5', '--max', '50', '--json');
  t.is(ranged.code, 0, ranged.stdout + ranged.stderr);
  t.like(ranged.json.link, { price_amount: null, min_amount: '5.00', max_amount: '50.00', ask_email: true, max_uses: null });

  const listed = await runCli('payment-link', 'list', '--project', projectId, '--json');
  t.is(listed.code, 0, listed.stdout);
  t.deepEqual(
    listed.json.items.map((l: { id: string }) => l.id),
    [ranged.json.link.id, link.id],
    'newest first',
  );
  const page = await runCli('payment-link', 'list', '--project', projectId, '--limit', '1', '--json');
  t.is(page.json.items.length, 1);
  t.truthy(page.json.next_cursor);
  const next = await runCli('payment-link', 'list', '--project', projectId, '--limit', '1', '--cursor', page.json.next_cursor, '--json');
  t.deepEqual(
    next.json.items.map((l: { id: string }) => l.id),
    [link.id],
  );

  const opened = await gw.kernel.cradle.sessionsLinks.open(tokenOf(link.url), {}, PAYER_ACTOR);
  t.is(opened.session.payment_link_id, link.id);
  const shown = await runCli('payment-link', 'show', '--project', projectId, '--id', link.id, '--json');
  t.is(shown.code, 0, shown.stdout);
  t.is(shown.json.link.id, link.id);

  const deactivated = await runCli('payment-link', 'deactivate', '--project', projectId, '--id', link.id, '--json');
  t.is(deactivated.code, 0, deactivated.stdout);
  t.false(deactivated.json.link.active);
  t.truthy(deactivated.json.link.deactivated_at_iso);
  const refused = await gw.kernel.cradle.sessionsLinks.open(tokenOf(link.url), {}, PAYER_ACTOR).catch((error: { code?: string }) => error.code);
  t.is(refused, 'payment_link_inactive');
  const active = await runCli('payment-link', 'list', '--project', projectId, '--active', 'yes', '--json');
  t.deepEqual(
    active.json.items.map((l: { id: string }) => l.id),
    [ranged.json.link.id],
  );
  const inactive = await runCli('payment-link', 'list', '--project', projectId, '--active', 'no', '--json');
  t.deepEqual(
    inactive.json.items.map((l: { id: string }) => l.id),
    [link.id],
  );
  const audit = await gw.kernel.cradle.audit.list({ projectIds: [projectId], target: `payment_link:${link.id}`, limit: 10 });
  t.true(
    audit.items.some((row) => row.actor === 'operator-cli'),
    'the CLI’s writes are audited as the operator',
  );
});

test.serial('payment-link create refuses bad input with the error code and writes nothing', async (t) => {
  const count = async () => (await gw.kernel.cradle.sessionsLinks.list({ projectId, limit: 200 })).items.length;
  const before = await count();
  const unknown = await runCli('payment-link', 'create', '--project', projectId, '--currency', 'XYZ', '--amount', '5', '--json');
  t.not(unknown.code, 0);
  t.is(unknown.json?.error_code, 'validation_error', unknown.stdout + unknown.stderr);
  t.regex(unknown.json.message, /EUR/, 'the message names the currencies priced');
  const both = await runCli('payment-link', 'create', '--project', projectId, '--currency', 'USD', '--amount', '5', '--min', '1', '--max', '9', '--json');
  t.is(both.json?.error_code, 'validation_error', both.stdout + both.stderr);
  const coin = await runCli('payment-link', 'create', '--project', projectId, '--currency', 'USD', '--amount', '5', '--coins', 'btc,nocoin', '--json');
  t.not(coin.code, 0);
  t.is(coin.json?.error_code, 'coin_not_allowed', coin.stdout + coin.stderr);
  const amount = await runCli('payment-link', 'create', '--project', projectId, '--currency', 'USD', '--amount', 'lots', '--json');
  t.not(amount.code, 0, 'a flag that is no decimal is refused before the command runs');
  const missing = await runCli('payment-link', 'show', '--project', projectId, '--id', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '--json');
  t.is(missing.json?.error_code, 'payment_link_not_found', missing.stdout + missing.stderr);
  t.is(await count(), before);
});

test.serial('checkout-session list (by status, link and external id), show and expire with --json; a closed session refuses expire', async (t) => {
  const project = { id: projectId, kind: 'sandbox' as const };
  const partner = { actor: 'api_key:test', channel: 'rest' as const };
  const { session } = await gw.kernel.cradle.sessionsCheckout.create(
    project,
    { price_currency: 'USD', price_amount: '30', external_id: 'order-77', description: 'Order 77' },
    partner,
  );
  const other = (await gw.kernel.cradle.sessionsCheckout.create(project, { price_currency: 'eth', price_amount: '0.01' }, partner)).session;

  const all = await runCli('checkout-session', 'list', '--project', projectId, '--json');
  t.is(all.code, 0, all.stdout + all.stderr);
  const ids = all.json.items.map((s: { id: string }) => s.id);
  t.true(ids.includes(session.id) && ids.includes(other.id));
  t.true(ids.indexOf(other.id) < ids.indexOf(session.id), 'newest first');
  const byExternal = await runCli('checkout-session', 'list', '--project', projectId, '--external-id', 'order-77', '--json');
  t.deepEqual(
    byExternal.json.items.map((s: { id: string }) => s.id),
    [session.id],
  );
  const link = (await gw.kernel.cradle.sessionsLinks.list({ projectId, limit: 200 })).items.find((l) => l.active && l.min_amount !== null)!;
  const fromLink = (await gw.kernel.cradle.sessionsLinks.open(tokenOf(link.url), { amount: '7' }, PAYER_ACTOR)).session;
  const byLink = await runCli('checkout-session', 'list', '--project', projectId, '--link', link.id, '--json');
  t.deepEqual(
    byLink.json.items.map((s: { id: string }) => s.id),
    [fromLink.id],
  );

  const shown = await runCli('checkout-session', 'show', '--project', projectId, '--id', session.id, '--json');
  t.is(shown.code, 0, shown.stdout);
  t.like(shown.json.session, { id: session.id, status: 'open', price_currency: 'USD', price_amount: '30.00', external_id: 'order-77', invoices: [] });

  const expired = await runCli('checkout-session', 'expire', '--project', projectId, '--id', session.id, '--json');
  t.is(expired.code, 0, expired.stdout + expired.stderr);
  t.is(expired.json.session.status, 'expired');
  const byStatus = await runCli('checkout-session', 'list', '--project', projectId, '--status', 'expired', '--json');
  t.deepEqual(
    byStatus.json.items.map((s: { id: string }) => s.id),
    [session.id],
  );
  const again = await runCli('checkout-session', 'expire', '--project', projectId, '--id', session.id, '--json');
  t.not(again.code, 0);
  t.is(again.json?.error_code, 'checkout_session_closed');
  const missing = await runCli('checkout-session', 'show', '--project', projectId, '--id', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '--json');
  t.is(missing.json?.error_code, 'checkout_session_not_found');
  t.not((await runCli('checkout-session', 'list', '--project', projectId, '--status', 'done', '--json')).code, 0);
  const events = await gw.kernel.cradle
    .db('webhooks_events')
    .where({ project_id: projectId, event_type: 'checkout_session.expired' })
    .count<{ count: string }[]>('* as count');
  t.is(Number(events[0]!.count), 1, 'one checkout_session.expired event');
});
