import test from 'ava';
import { asFunction } from 'awilix';
import { createRootContainer, type Cradle } from './container.js';
import { checkDeclaredDeps } from './declared-deps-check.js';
import { buildDeclared, service, serviceValue, withDeps } from './deps.js';
import { defineCommand, runCommand, type CliCommand } from './cli/command.js';
import { definePlugin, type AnyPlugin } from './plugin.js';

declare module './container.js' {
  interface Cradle {
    readonly depsProbeA: { readonly name: string };
    readonly depsProbeB: { readonly a: { readonly name: string } };
    readonly otherProbeC: number;
    readonly otherProbeStore: number;
  }
}

/** A container with the kernel's `logger` and `db` stand-ins plus the probe services. */
function containerWith(resolvers: Record<string, unknown>) {
  const container = createRootContainer();
  container.register({ logger: asFunction(() => 'the logger').singleton(), db: asFunction(() => 'the db').singleton() } as never);
  container.register(resolvers as never);
  return container;
}

/** `checkDeclaredDeps` of `plugins` (no config) over `container`, with the kernel's `logger` and `db`. */
const checkPlugins = (container: Parameters<typeof checkDeclaredDeps>[1], ...plugins: AnyPlugin[]) =>
  checkDeclaredDeps(
    plugins.map((plugin) => ({ plugin, config: {} })),
    container,
    new Set(['logger', 'db']),
  );

test('a declared part sees its declared services and fails loudly on any other read', (t) => {
  const container = containerWith({ depsProbeA: serviceValue({ name: 'a' }) });
  const part = withDeps(['depsProbeA'], (deps) => deps);
  const deps = buildDeclared(part, container.cradle, 'routes of plugin "deps-probe"');
  t.deepEqual(deps.depsProbeA, { name: 'a' });
  t.deepEqual(Object.keys(deps), ['depsProbeA']);
  t.true('depsProbeA' in deps);
  t.false('db' in deps);
  const error = t.throws(() => (deps as unknown as Cradle).db);
  t.is(error.message, 'routes of plugin "deps-probe" read "db" from the container without declaring it (declared: depsProbeA)');
});

test('an optional dependency reads the service when it is registered and undefined when it is not', (t) => {
  const container = containerWith({ depsProbeA: serviceValue({ name: 'a' }) });
  const deps = buildDeclared(
    withDeps(['depsProbeA?', 'depsProbeB?'], (deps) => deps),
    container.cradle,
    'routes of plugin "deps-probe"',
  );
  t.deepEqual(deps.depsProbeA, { name: 'a' });
  t.is(deps.depsProbeB, undefined);
});

test('a service is built from its declared services only, lazily, and names itself when it reads another', (t) => {
  let built = 0;
  const container = containerWith({
    depsProbeA: service(['logger'], ({ logger }) => {
      built += 1;
      return { name: String(logger) };
    }),
    depsProbeB: service(['depsProbeA'], (deps) => ({
      get a() {
        return deps.depsProbeA;
      },
      get sneaky() {
        return (deps as unknown as Cradle).db;
      },
    })),
  });
  const plugin = definePlugin({ id: 'deps-probe' });
  checkDeclaredDeps([{ plugin, config: {} }], container, new Set(['logger', 'db']));
  const b = container.cradle.depsProbeB as unknown as { a: { name: string }; sneaky: unknown };
  t.is(built, 0, 'declaring a service does not resolve it');
  t.deepEqual(b.a, { name: 'the logger' });
  t.is(built, 1);
  t.is(
    t.throws(() => b.sneaky).message,
    'service "depsProbeB" of plugin "deps-probe" read "db" from the container without declaring it (declared: depsProbeA)',
  );
});

test('a disposer given to service runs when the container is disposed', async (t) => {
  const disposed: string[] = [];
  const container = containerWith({ depsProbeA: service([], () => ({ name: 'a' }), { dispose: (a) => void disposed.push(a.name) }) });
  t.is(container.cradle.depsProbeA.name, 'a');
  await container.dispose();
  t.deepEqual(disposed, ['a']);
});

test('start-up refuses a declared service that does not exist or belongs to a plugin not depended on', (t) => {
  const container = containerWith({ depsProbeA: serviceValue({ name: 'a' }), otherProbeC: serviceValue(3) });
  const other = definePlugin({ id: 'other-probe' });
  const missing = definePlugin({ id: 'deps-probe', routes: withDeps(['depsProbeB'], () => []) });
  t.is(
    t.throws(() => checkPlugins(container, other, missing)).message,
    'routes of plugin "deps-probe" declares "depsProbeB", which no enabled plugin provides',
  );
  const undeclaredDependency = definePlugin({ id: 'deps-probe', jobs: withDeps(['otherProbeC', 'db'], () => []) });
  t.is(
    t.throws(() => checkPlugins(container, other, undeclaredDependency)).message,
    'jobs of plugin "deps-probe" declares "otherProbeC" of plugin "other-probe", which is not in its dependsOn',
  );
  const exporting = definePlugin({ id: 'other-probe', exports: ['otherProbeC'] });
  const dependant = definePlugin({ id: 'deps-probe', dependsOn: ['other-probe'], jobs: withDeps(['otherProbeC', 'db'], () => []) });
  t.notThrows(() => checkPlugins(container, exporting, dependant));
});

test("start-up refuses another plugin's declaration of a service its provider does not export; the provider reads it", (t) => {
  const container = containerWith({
    otherProbeC: serviceValue(3),
    otherProbeStore: serviceValue(4),
    depsProbeA: service(['otherProbeStore?'], () => ({ name: 'a' })),
  });
  const kernel = new Set(['logger', 'db']);
  const provider = definePlugin({ id: 'other-probe', exports: ['otherProbeC'], start: withDeps(['otherProbeStore'], async () => undefined) });
  const reader = (part: Record<string, unknown>) => ({ plugin: definePlugin({ id: 'deps-probe', dependsOn: ['other-probe'], ...part }), config: {} });
  t.notThrows(() =>
    checkDeclaredDeps(
      [{ plugin: provider, config: {} }, reader({ routes: withDeps(['otherProbeC'], () => []) })],
      containerWith({ otherProbeC: serviceValue(3), otherProbeStore: serviceValue(4) }),
      kernel,
    ),
  );
  t.is(
    t.throws(() => checkDeclaredDeps([{ plugin: provider, config: {} }, reader({ routes: withDeps(['otherProbeStore'], () => []) })], container, kernel))
      .message,
    'routes of plugin "deps-probe" declares "otherProbeStore", which plugin "other-probe" does not export (its exports: otherProbeC)',
  );
  // A service's declaration, optional or not, is held to the same rule.
  t.is(
    t.throws(() => checkDeclaredDeps([{ plugin: provider, config: {} }, reader({})], container, kernel)).message,
    'service "depsProbeA" of plugin "deps-probe" declares "otherProbeStore", which plugin "other-probe" does not export (its exports: otherProbeC)',
  );
  const stale = definePlugin({ id: 'other-probe', exports: ['otherProbeC', 'depsProbeA'] });
  t.is(
    t.throws(() => checkDeclaredDeps([{ plugin: stale, config: {} }], container, kernel)).message,
    'plugin "other-probe" exports "depsProbeA", which it does not register',
  );
});

test("start-up checks the services each CLI command declares like a route's", (t) => {
  const container = containerWith({ otherProbeC: serviceValue(3), otherProbeStore: serviceValue(4) });
  const kernel = new Set(['logger', 'db']);
  const provider = { plugin: definePlugin({ id: 'other-probe', exports: ['otherProbeC'] }), config: {} };
  const withCommand = (command: CliCommand, dependsOn: string[] = ['other-probe']) => ({
    plugin: definePlugin({ id: 'deps-probe', dependsOn, cli: [command] }),
    config: {},
  });
  const command = (deps: readonly ('otherProbeC' | 'otherProbeStore' | 'db')[]) =>
    defineCommand(deps, { noun: 'probe', verb: 'show', summary: 'A probe.', run: async () => ({}) });
  t.notThrows(() => checkDeclaredDeps([provider, withCommand(command(['otherProbeC', 'db']))], container, kernel));
  t.is(
    t.throws(() => checkDeclaredDeps([provider, withCommand(command(['otherProbeStore']))], container, kernel)).message,
    'cli command "probe show" of plugin "deps-probe" declares "otherProbeStore", which plugin "other-probe" does not export (its exports: otherProbeC)',
  );
  t.is(
    t.throws(() => checkDeclaredDeps([provider, withCommand(command(['otherProbeC']), [])], container, kernel)).message,
    'cli command "probe show" of plugin "deps-probe" declares "otherProbeC" of plugin "other-probe", which is not in its dependsOn',
  );
  const undeclared = { noun: 'probe', verb: 'show', summary: 'A probe.', run: async () => ({}) } as unknown as CliCommand;
  t.is(
    t.throws(() => checkDeclaredDeps([provider, withCommand(undeclared)], container, kernel)).message,
    'cli command "probe show" of plugin "deps-probe" must declare its deps with defineCommand (ADR 0009)',
  );
});

test('a CLI command runs with the services it declared and fails loudly on any other read', async (t) => {
  const container = containerWith({ depsProbeA: serviceValue({ name: 'a' }) });
  const show = defineCommand(['depsProbeA'], {
    noun: 'probe',
    verb: 'show',
    summary: 'A probe.',
    run: async ({ flags, deps }) => ({ name: deps.depsProbeA.name, flag: flags['x'], sneaky: flags['sneak'] ? (deps as unknown as Cradle).db : undefined }),
  });
  t.deepEqual(await runCommand(show, { x: 'y' }, container.cradle), { name: 'a', flag: 'y', sneaky: undefined });
  t.is(
    (await t.throwsAsync(runCommand(show, { sneak: true }, container.cradle))).message,
    'cli command "probe show" read "db" from the container without declaring it (declared: depsProbeA)',
  );
  const undeclared = { noun: 'probe', verb: 'show', summary: 'A probe.', run: async () => ({}) } as unknown as CliCommand;
  t.is(t.throws(() => runCommand(undeclared, {}, container.cradle)).message, 'cli command "probe show" must declare its deps with defineCommand (ADR 0009)');
});

test('a declared view resolves each service once, on its first read, and keeps it', (t) => {
  const container = containerWith({ depsProbeA: serviceValue({ name: 'a' }) });
  let cradleReads = 0;
  const counted = new Proxy(container.cradle, {
    get(target, name) {
      if (name === 'depsProbeA') cradleReads += 1;
      return Reflect.get(target, name);
    },
  });
  const deps = buildDeclared(
    withDeps(['depsProbeA'], (deps) => deps),
    counted,
    'routes of plugin "deps-probe"',
  );
  t.is(cradleReads, 0, 'declared, not resolved');
  for (let i = 0; i < 1000; i++) t.is(deps.depsProbeA.name, 'a');
  t.is(cradleReads, 1, 'one resolution by the container for 1,000 reads of the view');
});
