import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import test from 'ava';
import { isConfigEnvName, loadConfig } from '@gw/kernel';
import { distEntry } from '@gw/scripts/build';
import { ROOT } from '@gw/testing';
import { readEnvExample } from './env-example.js';

// The files docs/deployment.md ships: systemd units (checked by systemd-analyze verify, which
// .ci/run installs from Debian), the nginx example (checked by nginx -t, nginx-light from .ci/run),
// and the environment file's example (checked by the config loader).

const SYSTEMD = join(ROOT, 'deploy/systemd');
const SYSTEMD_ANALYZE = '/usr/bin/systemd-analyze';
const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));

/** The example environment file as a key → value map. */
const exampleEnv = (): Record<string, string> => readEnvExample(join(SYSTEMD, 'gateway.env.example'));

test('the systemd units pass systemd-analyze verify with no warning', (t) => {
  t.true(existsSync(SYSTEMD_ANALYZE), `${SYSTEMD_ANALYZE} is missing (Debian package systemd; .ci/run installs it)`);
  // The units name /opt/gateway and /etc/gateway; verify them against this checkout, where the
  // Node binary they start exists (verify checks that ExecStart's program is executable).
  const dir = mkdtempSync(join(tmpdir(), 'gw-units-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const files = readdirSync(SYSTEMD).filter((f) => /\.(service|target)$/.test(f));
  t.deepEqual(files.sort(), ['gateway.target', 'gw-gateway@.service', 'gw-migrate.service', 'gw-worker@.service']);
  for (const file of files) {
    const text = readFileSync(join(SYSTEMD, file), 'utf8')
      .replaceAll('/etc/gateway/gateway.env', join(SYSTEMD, 'gateway.env.example'))
      .replaceAll('/opt/gateway', ROOT.replace(/\/$/, ''));
    writeFileSync(join(dir, file), text);
  }
  const units = ['gw-gateway@8080.service', 'gw-worker@1.service', 'gw-migrate.service', 'gateway.target'];
  const result = spawnSync(SYSTEMD_ANALYZE, ['verify', '--man=no', ...units.map((u) => `./${u}`)], { cwd: dir, encoding: 'utf8' });
  t.is(result.status, 0, result.stderr);
  // Unknown keys and unparsable values are only warnings to verify; here they fail.
  t.is(`${result.stdout}${result.stderr}`.trim(), '');
});

test('the units start the compiled entry points that pnpm build writes, on the checkout’s Node 24', (t) => {
  const execStart = (file: string) => /^ExecStart=(.*)$/m.exec(readFileSync(join(SYSTEMD, file), 'utf8'))![1]!.split(' ');
  const expected = { 'gw-gateway@.service': 'gateway', 'gw-worker@.service': 'worker', 'gw-migrate.service': 'cli' } as const;
  for (const [file, app] of Object.entries(expected)) {
    const [program, ...args] = execStart(file);
    t.is(program, '/opt/gateway/node_modules/node/bin/node', file);
    t.true(existsSync(join(ROOT, 'node_modules/node/bin/node')));
    t.true(args.includes(relative(ROOT, distEntry(app))), `${file} runs ${relative(ROOT, distEntry(app))}`);
  }
  t.deepEqual(execStart('gw-migrate.service').slice(-2), ['db', 'migrate']);
});

test('the example environment file holds only keys the configuration accepts', (t) => {
  // The loader ignores names it does not know, so each name is checked against the ones it reads
  // (a misspelled BASE_URLL was accepted before: checked by renaming it in the example); GW__
  // paths are validated by the schema, which rejects unknown keys.
  for (const name of Object.keys(exampleEnv())) t.true(isConfigEnvName(name), `${name} is not read by the configuration`);
  const env = { ...exampleEnv(), GW_MASTER_KEY: 'ab'.repeat(32) };
  const config = loadConfig({ env, file: false });
  t.is(config.http.trustProxy, true);
  t.is(config.http.keepAliveTimeoutMs, 75_000);
  t.is(config.http.baseUrl, 'https://pay.example.com');
});

test('the nginx example passes nginx -t', (t) => {
  if (!NGINX) {
    t.fail('nginx is missing (Debian package nginx-light; .ci/run installs it)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'gw-nginx-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // The example's certificate paths are a Let's Encrypt layout; the test's are a local pair.
  const site = readFileSync(join(ROOT, 'deploy/nginx/gateway.conf'), 'utf8')
    .replace('/etc/letsencrypt/live/pay.example.com/fullchain.pem', join(ROOT, 'plugins/oauth/test/fixtures/localhost-cert.pem'))
    .replace('/etc/letsencrypt/live/pay.example.com/privkey.pem', join(ROOT, 'plugins/oauth/test/fixtures/localhost-key.pem'));
  writeFileSync(join(dir, 'gateway.conf'), site);
  writeFileSync(join(dir, 'nginx.conf'), `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n    include ${dir}/gateway.conf;\n}\n`);
  const result = spawnSync(NGINX, ['-t', '-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')], { encoding: 'utf8' });
  t.is(result.status, 0, result.stderr);
  t.regex(result.stderr, /syntax is ok/);
  t.notRegex(result.stderr, /\[warn\]|\[emerg\]/);
  // The upstream's idle timeout stays below the gateway's default keep-alive timeout.
  const upstreamIdle = Number(/upstream gateway \{[^}]*keepalive_timeout (\d+)s;/s.exec(site)![1]);
  t.true(upstreamIdle * 1000 < loadConfig({ env: {}, file: false }).http.keepAliveTimeoutMs);
});
