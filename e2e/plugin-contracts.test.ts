import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { plugins } from '@gw/app-gateway';
import {
  buildDeclared,
  defineCommand,
  definePlugin,
  isDeclared,
  loadConfig,
  loadPlugins,
  service,
  serviceDeclaration,
  withDeps,
  PLUGIN_PARTS,
  type AnyPlugin,
  type PluginPart,
} from '@gw/kernel';
import { connectedComposition, startUpRefusal } from './composition-kernel.js';

// ADR 0009: no route, job, hook, service or CLI command outside the kernel reads the whole
// container, and a plugin uses another only through that plugin's contract: the services it
// exports, its types and constants.

const PLUGINS_DIR = fileURLToPath(new URL('../plugins/', import.meta.url));
const pluginDirs = readdirSync(PLUGINS_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** The production sources of a plugin (tests and test helpers excluded). */
function sources(plugin: string): { file: string; text: string }[] {
  return (readdirSync(`${PLUGINS_DIR}${plugin}/src`, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && file !== 'testing.ts')
    .map((file) => ({ file: `plugins/${plugin}/src/${file}`, text: readFileSync(`${PLUGINS_DIR}${plugin}/src/${file}`, 'utf8') }));
}

const config = (overrides: Record<string, unknown> = {}) =>
  loadConfig({ env: {}, file: false, overrides: { 'log.level': 'silent', 'security.masterKey': '0f'.repeat(32), ...overrides } });

test('every part of every plugin of the composition declares the services it reads', (t) => {
  const undeclared = plugins.flatMap((plugin) =>
    PLUGIN_PARTS.filter((part) => plugin[part] !== undefined && !isDeclared(plugin[part])).map((part) => `${plugin.id}.${part}`),
  );
  t.deepEqual(undeclared, []);
});

test('every CLI command of the composition declares the services its run reads, and none reads the whole container', (t) => {
  const undeclared = plugins.flatMap((plugin) =>
    (plugin.cli ?? []).filter((command) => !Array.isArray(command.deps)).map((command) => `${plugin.id}: ${command.noun} ${command.verb}`),
  );
  t.deepEqual(undeclared, []);
  const readers = pluginDirs.flatMap((plugin) =>
    sources(plugin)
      .filter(({ file, text }) => file.endsWith('/cli.ts') && /\bcradle\b/.test(text))
      .map(({ file }) => file),
  );
  t.deepEqual(readers, []);
});

test("every plugin of the composition lists the services it exports, and keeps the invoice lifecycle's store to itself", (t) => {
  t.deepEqual(
    plugins.filter((plugin) => plugin.exports === undefined).map((plugin) => plugin.id),
    [],
  );
  const invoices = plugins.find((plugin) => plugin.id === 'invoices')!;
  t.true(invoices.exports!.includes('invoicesLifecycle'));
  t.false(invoices.exports!.includes('invoicesLifecycleStore'));
});

test("start-up refuses a plugin that declares another plugin's unexported service, or a CLI command reading outside its dependsOn", async (t) => {
  // Wiring connects nothing: the check runs before any query, so no database is needed.
  const refusal = (probe: AnyPlugin) => startUpRefusal(t, probe);

  t.is(
    await refusal(definePlugin({ id: 'probe', dependsOn: ['invoices'], register: () => ({ probeWriter: service(['invoicesLifecycleStore'], () => ({})) }) })),
    'service "probeWriter" of plugin "probe" declares "invoicesLifecycleStore", which plugin "invoices" does not export (its exports: invoicesService, invoicesLifecycle, invoicesAttribution, invoicesExporter, invoicesPolicies)',
  );
  t.regex(
    (await refusal(definePlugin({ id: 'probe', dependsOn: ['invoices'], jobs: withDeps(['invoicesCreator'], () => []) }))) ?? '',
    /^jobs of plugin "probe" declares "invoicesCreator", which plugin "invoices" does not export/,
  );
  t.is(
    await refusal(
      definePlugin({
        id: 'probe',
        dependsOn: ['tenancy'],
        cli: [defineCommand(['invoicesService'], { noun: 'probe', verb: 'show', summary: 'A probe.', run: async () => ({}) })],
      }),
    ),
    'cli command "probe show" of plugin "probe" declares "invoicesService" of plugin "invoices", which is not in its dependsOn',
  );
});

test('every service a plugin of the composition registers is made by service or serviceValue', (t) => {
  const kernelConfig = config();
  const undeclared: string[] = [];
  for (const { plugin, config: slice } of loadPlugins(plugins, kernelConfig)) {
    const resolvers = plugin.register?.({ config: slice, kernelConfig, logger: pino({ level: 'silent' }) }) ?? {};
    for (const [name, resolver] of Object.entries(resolvers)) if (!serviceDeclaration(resolver)) undeclared.push(`${plugin.id}: ${name}`);
  }
  t.deepEqual(undeclared, []);
});

test('the composition wires with every declaration satisfied, and its parts build from their declared services alone', async (t) => {
  // connect() wires the container and refuses a declared service that is missing or not the
  // declaring plugin's to use (checkDeclaredDeps).
  const kernel = await connectedComposition(t);
  let built = 0;
  for (const { plugin } of kernel.plugins) {
    for (const part of ['routes', 'errorFormats', 'authenticators', 'jobs', 'mcpTools', 'readiness'] as const) {
      const declared = plugin[part] as PluginPart<unknown> | undefined;
      if (!declared) continue;
      // Building reads whatever a part reads eagerly: an undeclared read throws here.
      t.truthy(buildDeclared(declared, kernel.cradle, `${part} of plugin "${plugin.id}"`));
      built += 1;
    }
  }
  t.true(built >= plugins.length);
});

test('every plugin publishes a contract, and plugins import each other only through it', (t) => {
  const problems: string[] = [];
  for (const plugin of pluginDirs) {
    const manifest = JSON.parse(readFileSync(`${PLUGINS_DIR}${plugin}/package.json`, 'utf8')) as { exports?: Record<string, string> };
    if (manifest.exports?.['./contract'] !== './src/contract.ts') problems.push(`plugins/${plugin}/package.json: no "./contract" export of src/contract.ts`);
    for (const { file, text } of sources(plugin)) {
      for (const [, other, subpath] of text.matchAll(/from '@gw\/plugin-([a-z-]+)(\/[^']*)?'/g)) {
        if (other !== plugin && subpath !== '/contract') problems.push(`${file} imports @gw/plugin-${other}${subpath ?? ''}`);
      }
    }
  }
  t.deepEqual(problems, []);
});

test('no plugin wires the container by hand: services come from service/serviceValue, parts from withDeps', (t) => {
  const problems: string[] = [];
  for (const plugin of pluginDirs) {
    for (const { file, text } of sources(plugin)) {
      if (/from 'awilix'/.test(text)) problems.push(`${file} imports awilix`);
      if (/\(cradle(: Cradle)?\) =>|\(cradle: Cradle\)/.test(text)) problems.push(`${file} takes the whole container`);
    }
  }
  t.deepEqual(problems, []);
});
