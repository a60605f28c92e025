import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config-error.js';
import { loadConfig } from './load-config.js';

test('defaults apply when nothing is configured', (t) => {
  const config = loadConfig({ env: {}, file: false });
  t.is(config.http.port, 8080);
  t.is(config.http.host, '127.0.0.1');
  t.is(config.env, undefined, 'unset: production rules apply (issue 26 finding 4)');
  t.is(config.database.url, undefined);
  t.is(config.http.bodyLimitBytes, 1_048_576);
});

test('well-known and generic environment variables are honoured and coerced', (t) => {
  const config = loadConfig({
    env: {
      PORT: '9090',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://x/y',
      GW__http__bodyLimitBytes: '2048',
      GW_DISABLED_PLUGINS: 'sandbox, mcp',
      GW__plugins__rates__ttl: '30',
    },
    file: false,
  });
  t.is(config.http.port, 9090);
  t.is(config.http.host, '0.0.0.0');
  t.is(config.database.url, 'postgres://x/y');
  t.is(config.http.bodyLimitBytes, 2048);
  t.deepEqual(config.plugins['sandbox'], { enabled: false });
  t.deepEqual(config.plugins['mcp'], { enabled: false });
  t.deepEqual(config.plugins['rates'], { ttl: 30 });
});

test('an invalid value stops start-up naming the key', (t) => {
  const error = t.throws(() => loadConfig({ env: { PORT: 'abc' }, file: false }), { instanceOf: ConfigError });
  t.regex(error!.message, /http\.port/);
  const range = t.throws(() => loadConfig({ env: { PORT: '70000' }, file: false }), { instanceOf: ConfigError });
  t.regex(range!.message, /http\.port/);
  const level = t.throws(() => loadConfig({ env: { LOG_LEVEL: 'loud' }, file: false }), { instanceOf: ConfigError });
  t.regex(level!.message, /log\.level/);
  const key = t.throws(() => loadConfig({ env: { GW_MASTER_KEY: 'short' }, file: false }), { instanceOf: ConfigError });
  t.regex(key!.message, /security\.masterKey/);
});

test('an unknown key stops start-up naming the key', (t) => {
  const error = t.throws(() => loadConfig({ env: { GW__http__prot: '1' }, file: false }), { instanceOf: ConfigError });
  t.regex(error!.message, /unknown key http\.prot/);
  const top = t.throws(() => loadConfig({ env: { GW__nonsense: '1' }, file: false }), { instanceOf: ConfigError });
  t.regex(top!.message, /unknown key nonsense/);
});

test('the config file is read and the environment wins over it', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gwcfg-'));
  const file = join(dir, 'gateway.config.json');
  writeFileSync(file, JSON.stringify({ http: { port: 7000, shutdownGraceMs: 500 }, plugins: { tenancy: { enabled: true } } }));
  const config = loadConfig({ env: { PORT: '7001' }, file });
  t.is(config.http.port, 7001);
  t.is(config.http.shutdownGraceMs, 500);
  writeFileSync(file, '{ not json');
  t.throws(() => loadConfig({ env: {}, file }), { instanceOf: ConfigError, message: /not valid JSON/ });
  t.throws(() => loadConfig({ env: {}, file: join(dir, 'missing.json') }), { instanceOf: ConfigError, message: /does not exist/ });
});
