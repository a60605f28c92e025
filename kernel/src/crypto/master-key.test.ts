import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { loadConfig } from '../config/load-config.js';
import { runMode } from '../config/run-mode.js';
import { resolveMasterKey } from './master-key.js';

function configWith(overrides: Record<string, unknown>) {
  const dir = mkdtempSync(join(tmpdir(), 'gw-master-key-'));
  const file = join(dir, 'data', 'master.key');
  return { config: loadConfig({ env: {}, file: false, overrides: { 'security.masterKeyFile': file, ...overrides } }), file, dir };
}

test('without env and without a master key start-up stops and nothing is written beside the data (issue 26 finding 4)', (t) => {
  const { config, file, dir } = configWith({});
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  t.like(runMode(config), { env: 'production', explicit: false });
  t.throws(() => resolveMasterKey(config), { message: /env is not set.*GW_MASTER_KEY.*GW_ENV=development/s });
  t.false(existsSync(file));
});

test('production without a master key stops; a configured key is used as given', (t) => {
  const { config, dir } = configWith({ env: 'production' });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  t.throws(() => resolveMasterKey(config), { message: /production needs a 64-hex/ });
  t.is(resolveMasterKey(configWith({ 'security.masterKey': 'AB'.repeat(32) }).config), 'ab'.repeat(32));
});

test('only development chosen explicitly generates the key once, mode 0600', (t) => {
  const { config, file, dir } = configWith({ env: 'development' });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  t.like(runMode(config), { env: 'development', explicit: true });
  const key = resolveMasterKey(config);
  t.regex(key, /^[0-9a-f]{64}$/);
  t.is(readFileSync(file, 'utf8').trim(), key);
  // Mutation checked: written with mode 0o644, this fails (the umask can only clear bits, so a
  // 0600 request is never widened, and a wider one would show here).
  t.is(statSync(file).mode & 0o777, 0o600, 'only the owner reads the key');
  t.is(resolveMasterKey(config), key, 'the same key on the next start');
});
