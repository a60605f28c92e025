import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { plugins } from '@gw/app-gateway';
import { contribute, definePlugin, extensionPoint, withDeps, type AnyPlugin } from '@gw/kernel';
import { connectedComposition, startUpRefusal } from './composition-kernel.js';

// ADR 0011: where plugins meet, the owner of the place declares an extension point and the others
// contribute to it; the owner imports none of its contributors.

const PLUGINS_DIR = fileURLToPath(new URL('../plugins/', import.meta.url));

/** Plugins the dashboard's frame stands on: identity (users, projects) and sign-in. */
const FRAME_PLUGINS = ['tenancy', 'oauth'];

const manifest = (plugin: string) => JSON.parse(readFileSync(`${PLUGINS_DIR}${plugin}/package.json`, 'utf8')) as { dependencies?: Record<string, string> };
const pluginDeps = (plugin: string) =>
  Object.keys(manifest(plugin).dependencies ?? {})
    .filter((name) => name.startsWith('@gw/plugin-'))
    .map((name) => name.slice('@gw/plugin-'.length));
const sources = (plugin: string) =>
  (readdirSync(`${PLUGINS_DIR}${plugin}/src`, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => ({ file: `plugins/${plugin}/src/${file}`, text: readFileSync(`${PLUGINS_DIR}${plugin}/src/${file}`, 'utf8') }));

test('the checkout never imports sandbox code: the sandbox contributes its panel', (t) => {
  t.false(pluginDeps('checkout').includes('sandbox'));
  t.deepEqual(
    sources('checkout')
      .filter(({ text }) => text.includes('@gw/plugin-sandbox'))
      .map(({ file }) => file),
    [],
  );
  const sandbox = plugins.find((p) => p.id === 'sandbox')!;
  t.true((sandbox.contributes ?? []).some((c) => c.point.id === 'checkout.panels'));
});

test("the dashboard depends on no feature plugin: its package, its sources and its dependsOn name only the frame's", (t) => {
  t.deepEqual(
    pluginDeps('dashboard').filter((id) => !FRAME_PLUGINS.includes(id)),
    [],
  );
  const imports = sources('dashboard').flatMap(({ file, text }) =>
    [...text.matchAll(/from '@gw\/plugin-([a-z-]+)/g)]
      .map((m) => m[1]!)
      .filter((id) => id !== 'dashboard' && !FRAME_PLUGINS.includes(id))
      .map((id) => `${file} imports ${id}`),
  );
  t.deepEqual(imports, []);
  const dashboard = plugins.find((p) => p.id === 'dashboard')!;
  t.deepEqual(
    (dashboard.dependsOn ?? []).filter((id) => !FRAME_PLUGINS.includes(id)),
    [],
  );
});

test('every contribution of the composition builds from its declared services, and the owners read them', async (t) => {
  const kernel = await connectedComposition(t);
  const pages = kernel.cradle.extensions.of(extensionPoint<{ page: { id: string } }>('dashboard.pages'));
  t.deepEqual(
    pages.map((c) => `${c.pluginId}:${c.item.page.id}`),
    [
      'address-pool:wallets',
      'rates:rates',
      'invoices:invoices',
      'invoices:policy',
      'webhooks:webhooks',
      'webhooks:webhook-url',
      'watchers:orphans',
      'watchers:watchers',
      'treasury:treasury',
      'treasury:treasury-accounts',
      'payouts:payouts',
      'sandbox:invoice-simulations',
      'sandbox:sandbox',
      'sandbox:new-sandbox',
      'checkout:branding',
      'sessions:payment-links',
      'sessions:checkout-sessions',
      'x402:x402',
    ],
  );
  const sections = kernel.cradle.extensions.of(extensionPoint<{ section: { page: string; id: string } }>('dashboard.sections'));
  t.deepEqual(
    sections.map((c) => `${c.pluginId}:${c.item.section.page}/${c.item.section.id}`),
    [
      'address-pool:overview/address-pools',
      'rates:overview/rates',
      'invoices:overview/invoices',
      'webhooks:overview/webhooks',
      'watchers:overview/watchers',
      'sandbox:new-project/new-sandbox',
    ],
  );
  const parts = kernel.cradle.extensions.of(extensionPoint<{ part: { id: string } }>('invoices.page-parts'));
  t.deepEqual(
    parts.map((c) => `${c.pluginId}:${c.item.part.id}`),
    ['webhooks:webhooks', 'payouts:refunds', 'sandbox:sandbox', 'sessions:checkout-session'],
  );
  const rules = kernel.cradle.extensions.of(extensionPoint<{ kind: string; refuse: readonly string[] }>('webhooks.resend-rules'));
  t.deepEqual(
    rules.map((c) => [c.pluginId, c.item.kind, c.item.refuse]),
    [['sandbox', 'sandbox', ['retrying', 'dlq']]],
  );
  const panels = kernel.cradle.extensions.of(extensionPoint<{ id: string }>('checkout.panels'));
  t.deepEqual(
    panels.map((c) => `${c.pluginId}:${c.item.id}`),
    ['payouts:refund', 'sandbox:simulate', 'sessions:session'],
  );
  const observers = kernel.cradle.extensions.of(extensionPoint<unknown>('invoices.observers'));
  t.deepEqual(
    observers.map((c) => c.pluginId),
    ['sessions'],
  );
  const purgers = kernel.cradle.extensions.of(extensionPoint<{ name: string }>('sandbox.project-purgers'));
  t.deepEqual(
    purgers.map((c) => `${c.pluginId}:${c.item.name}`),
    ['payouts:refunds_and_payouts', 'sessions:checkout_sessions_and_payment_links'],
  );
});

test("start-up refuses a contribution that declares a service outside its plugin's dependsOn", async (t) => {
  const probe: AnyPlugin = definePlugin({
    id: 'probe',
    dependsOn: ['tenancy'],
    contributes: [
      contribute(
        extensionPoint<unknown>('dashboard.pages'),
        withDeps(['invoicesService'], () => []),
      ),
    ],
  });
  t.is(
    await startUpRefusal(t, probe),
    'contribution to dashboard.pages of plugin "probe" declares "invoicesService" of plugin "invoices", which is not in its dependsOn',
  );
});
