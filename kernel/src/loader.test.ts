import test from 'ava';
import Type from 'typebox';
import { ConfigError } from './config/config-error.js';
import { loadConfig } from './config/load-config.js';
import { loadPlugins } from './loader.js';
import { definePlugin } from './plugin.js';

const config = (env: Record<string, string> = {}) => loadConfig({ env, file: false });
const a = definePlugin({ id: 'a' });
const b = definePlugin({ id: 'b', dependsOn: ['a'] });
const c = definePlugin({ id: 'c', dependsOn: ['b', 'a'] });

test('plugins load in dependency order whatever the composition order', (t) => {
  t.deepEqual(
    loadPlugins([c, b, a], config()).map((l) => l.plugin.id),
    ['a', 'b', 'c'],
  );
});

test('duplicate ids, missing dependencies and cycles are refused', (t) => {
  t.throws(() => loadPlugins([a, a], config()), { message: /used twice/ });
  t.throws(() => loadPlugins([b], config()), { message: /depends on "a", which is not part of this build/ });
  const x = definePlugin({ id: 'x', dependsOn: ['y'] });
  const y = definePlugin({ id: 'y', dependsOn: ['x'] });
  t.throws(() => loadPlugins([x, y], config()), { message: /cycle/ });
});

test('plugins can be disabled by config; a dependent of a disabled plugin stops start-up', (t) => {
  t.deepEqual(
    loadPlugins([a, b, c], config({ GW__plugins__c__enabled: 'false' })).map((l) => l.plugin.id),
    ['a', 'b'],
  );
  t.throws(() => loadPlugins([a, b], config({ GW_DISABLED_PLUGINS: 'a' })), { instanceOf: ConfigError, message: /depends on "a", which is disabled/ });
  const optional = definePlugin({ id: 'optional', enabledByDefault: false });
  t.deepEqual(
    loadPlugins([a, optional], config()).map((l) => l.plugin.id),
    ['a'],
  );
  t.deepEqual(
    loadPlugins([a, optional], config({ GW__plugins__optional__enabled: 'true' })).map((l) => l.plugin.id),
    ['a', 'optional'],
  );
});

test('config slices are validated with defaults; bad or unknown keys are named', (t) => {
  const withConfig = definePlugin({
    id: 'rates',
    config: Type.Object({ ttlSeconds: Type.Integer({ minimum: 1, default: 60 }) }, { additionalProperties: false }),
  });
  t.deepEqual(loadPlugins([withConfig], config())[0]!.config, { ttlSeconds: 60 });
  t.deepEqual(loadPlugins([withConfig], config({ GW__plugins__rates__ttlSeconds: '5' }))[0]!.config, { ttlSeconds: 5 });
  t.throws(() => loadPlugins([withConfig], config({ GW__plugins__rates__ttlSeconds: '0' })), {
    instanceOf: ConfigError,
    message: /plugins\.rates\.ttlSeconds/,
  });
  t.throws(() => loadPlugins([withConfig], config({ GW__plugins__rates__ttl: '5' })), { instanceOf: ConfigError, message: /unknown key plugins\.rates\.ttl/ });
  t.throws(() => loadPlugins([withConfig], config({ GW__plugins__ratez__enabled: 'true' })), {
    instanceOf: ConfigError,
    message: /unknown key plugins\.ratez/,
  });
});

test('definePlugin refuses bad ids and duplicate migration names', (t) => {
  t.throws(() => definePlugin({ id: 'Bad_Id' }), { message: /invalid plugin id/ });
  const migration = { name: '0001', up: async () => {}, down: async () => {} };
  t.throws(() => definePlugin({ id: 'm', migrations: [migration, migration] }), { message: /duplicate migration/ });
});
