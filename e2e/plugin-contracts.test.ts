import test from 'ava';
import { pino } from 'pino';
import { chains, plugins } from '@gw/app-gateway';
import { buildDeclared, createKernel, isDeclared, loadConfig, loadPlugins, serviceDeclaration, PLUGIN_PARTS, type PluginPart } from '@gw/kernel';
import { createTestDatabase } from '@gw/kernel/testing';

// ADR 0009: no route, job, hook or service outside the kernel reads the whole container.

const config = (overrides: Record<string, unknown> = {}) => loadConfig({ env: {}, file: false, overrides: { 'log.level': 'silent', 'security.masterKey': '0f'.repeat(32), ...overrides } });

test('every part of every plugin of the composition declares the services it reads', (t) => {
  const undeclared = plugins.flatMap((plugin) => PLUGIN_PARTS.filter((part) => plugin[part] !== undefined && !isDeclared(plugin[part])).map((part) => `${plugin.id}.${part}`));
  t.deepEqual(undeclared, []);
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
  const database = await createTestDatabase();
  const kernel = createKernel({ config: config({ 'database.url': database.url }), plugins, chains, role: 'cli', logger: pino({ level: 'silent' }) });
  t.teardown(async () => {
    await kernel.stop();
    await database.drop();
  });
  // connect() wires the container and refuses a declared service that is missing or not the
  // declaring plugin's to use (checkDeclaredDeps).
  await kernel.connect();
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
