/**
 * The partner packages outside the repository (issue 42 item 3): `@gw/client`, `@gw/webhook-verify`
 * and `@gw/cli` are packed into tarballs (scripts/partner-packages.ts), installed with plain
 * `npm install <tarball>` and no registry (`--offline`, an empty npm cache of the test's own) in a
 * folder under the system's temporary directory, far from the workspace's node_modules, and used
 * there against a running sandbox gateway: the client from an ES module and from CommonJS
 * (`require`), a real delivery verified with the installed `@gw/webhook-verify`, and the installed
 * `gateway` executable's `api`, `trigger` and `listen`.
 */
import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor, type TestKernel } from '@gw/kernel/testing';
import { sandboxClient, startSandboxKernel, Receiver, type SandboxClient } from '@gw/plugin-sandbox/testing';
import { PARTNER_PACKAGES, packPartnerPackage, type PartnerPackage } from '@gw/scripts/partner-packages';
import { runProcess } from '@gw/testing';
import { SIGNATURE_HEADER, verifyWebhook } from '@gw/webhook-verify';

const WORKSPACE = fileURLToPath(new URL('../..', import.meta.url));

let scratch: string, app: string, cliOnly: string, npmCache: string;
const tarballs = {} as Record<PartnerPackage, string>;
let gw: TestKernel, receiver: Receiver, account: SandboxClient;
const children: ChildProcess[] = [];

/** This Node first on PATH: the installed `gateway` starts with `#!/usr/bin/env node`, and npm runs on it. */
const PATH = `${dirname(process.execPath)}${delimiter}${process.env['PATH'] ?? ''}`;

function npm(cwd: string, ...args: string[]) {
  return runProcess('npm', args, {
    cwd,
    env: { PATH, HOME: scratch, npm_config_cache: npmCache, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
  });
}

/** The project's credentials, as a partner's shell would hold them; no other variable of the test's. */
const partnerEnv = (): NodeJS.ProcessEnv => ({
  PATH,
  HOME: join(scratch, 'home'),
  GATEWAY_URL: gw.url,
  GATEWAY_PROJECT_ID: account.projectId,
  GATEWAY_API_SECRET: account.secret,
});

/** Runs `node <file>` in the partner's project folder; its stdout parsed as JSON. */
async function nodeScript(file: string, env: NodeJS.ProcessEnv = partnerEnv()): Promise<Record<string, unknown>> {
  const run = await runProcess(process.execPath, [file], { cwd: app, env });
  if (run.code !== 0) throw new Error(`${file} exited ${run.code}:\n${run.stderr}${run.stdout}`);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

/** The installed executable, from the partner's project: node_modules/.bin/gateway. */
const gatewayBin = (folder: string): string => join(folder, 'node_modules', '.bin', 'gateway');

test.before(async (t) => {
  t.timeout(600_000, 'packing builds three packages (esbuild, tsc) on a shared machine');
  scratch = mkdtempSync(join(tmpdir(), 'gw-npm-install-'));
  npmCache = join(scratch, 'npm-cache');
  app = join(scratch, 'partner-app');
  cliOnly = join(scratch, 'cli-only');
  for (const dir of [app, cliOnly, join(scratch, 'home')]) mkdirSync(dir, { recursive: true });
  for (const name of PARTNER_PACKAGES) tarballs[name] = await packPartnerPackage(name, join(scratch, 'tarballs'));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'partner-app', version: '1.0.0', private: true }));
  writeFileSync(join(cliOnly, 'package.json'), JSON.stringify({ name: 'partner-tools', version: '1.0.0', private: true }));
  for (const [dir, files] of [
    [app, PARTNER_PACKAGES.map((name) => tarballs[name])],
    [cliOnly, [tarballs.cli]],
  ] as const) {
    const installed = await npm(dir, 'install', '--offline', '--no-audit', '--no-fund', ...files);
    if (installed.code !== 0) throw new Error(`npm install in ${dir} failed:\n${installed.stderr}${installed.stdout}`);
  }
  gw = await startSandboxKernel();
  receiver = await Receiver.start();
  account = await sandboxClient(gw, receiver);
});

test.after.always(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await gw?.close();
  await receiver?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test.serial('the scratch folder is outside the workspace, so nothing resolves from its node_modules', (t) => {
  t.false(resolve(scratch).startsWith(resolve(WORKSPACE)));
  for (let dir = app; dirname(dir) !== dir; dir = dirname(dir)) {
    if (dir !== app) t.false(existsSync(join(dir, 'node_modules', '@gw')), `${dir} holds @gw packages`);
  }
});

test.serial('each installed manifest points at built ES module, CommonJS and declaration files it carries, never at src or a workspace version', (t) => {
  for (const name of ['client', 'webhook-verify'] as const) {
    const dir = join(app, 'node_modules', '@gw', name);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    const text = JSON.stringify(manifest);
    t.false(text.includes('workspace:'), name);
    t.false(text.includes('./src'), name);
    t.false(existsSync(join(dir, 'src')), `${name} ships its sources`);
    t.deepEqual(manifest['dependencies'] ?? {}, {}, name);
    const root = (manifest['exports'] as Record<string, { import: Record<string, string>; require: Record<string, string> }>)['.']!;
    for (const [condition, file] of [
      ['import.types', root.import['types']],
      ['import.default', root.import['default']],
      ['require.types', root.require['types']],
      ['require.default', root.require['default']],
    ] as const) {
      t.truthy(file, `${name} ${condition}`);
      t.true(existsSync(join(dir, file!)), `${name} ${condition}: ${file}`);
    }
    t.regex(root.import['types']!, /\.d\.ts$/);
    t.is(JSON.parse(readFileSync(join(dir, 'dist', 'cjs', 'package.json'), 'utf8')).type, 'commonjs');
  }
  const cli = JSON.parse(readFileSync(join(app, 'node_modules', '@gw', 'cli', 'package.json'), 'utf8')) as Record<string, unknown>;
  t.deepEqual(cli['bin'], { gateway: './dist/gateway.js' });
  t.deepEqual(cli['dependencies'] ?? {}, {});
  t.false(JSON.stringify(cli).includes('workspace:'));
});

test.serial('the CLI alone installs as one package with no dependency', (t) => {
  const installed = readdirSync(join(cliOnly, 'node_modules')).filter((entry) => !entry.startsWith('.'));
  t.deepEqual(installed, ['@gw']);
  t.deepEqual(readdirSync(join(cliOnly, 'node_modules', '@gw')), ['cli']);
  t.deepEqual(readdirSync(join(cliOnly, 'node_modules', '@gw', 'cli', 'dist')), ['gateway.js']);
});

let invoiceId: string, paidEventId: string;

test.serial('@gw/client from an ES module: a sandbox invoice created and paid with signed calls', async (t) => {
  writeFileSync(
    join(app, 'create.mjs'),
    `import { GatewayClient } from '@gw/client';
const gateway = new GatewayClient({ baseUrl: process.env.GATEWAY_URL, projectId: process.env.GATEWAY_PROJECT_ID, apiSecret: process.env.GATEWAY_API_SECRET });
const invoice = await gateway.sandbox.invoices.create({ external_id: 'npm-install-1', coin: 'eth', amount_crypto: '0.01' });
await gateway.sandbox.simulate.detect(invoice.id);
const paid = await gateway.sandbox.simulate.paid(invoice.id);
console.log(JSON.stringify({ id: invoice.id, status: invoice.status, paid_event_id: paid.event_id, resolved: import.meta.resolve('@gw/client') }));
`,
  );
  const created = await nodeScript('create.mjs');
  t.is(created['status'], 'pending');
  t.regex(String(created['resolved']), /node_modules\/@gw\/client\/dist\/esm\/index\.js$/);
  invoiceId = String(created['id']);
  paidEventId = String(created['paid_event_id']);
  t.truthy(paidEventId);
});

test.serial('@gw/client through require(): the same invoice, paid, and an error typed as GatewayError', async (t) => {
  writeFileSync(
    join(app, 'retrieve.cjs'),
    `const { GatewayClient, GatewayError } = require('@gw/client');
const gateway = new GatewayClient({ baseUrl: process.env.GATEWAY_URL, projectId: process.env.GATEWAY_PROJECT_ID, apiSecret: process.env.GATEWAY_API_SECRET });
(async () => {
  const invoice = await gateway.sandbox.invoices.retrieve(process.argv[2]);
  let missing;
  try { await gateway.sandbox.invoices.retrieve('01ARZ3NDEKTSV4RRFFQ69G5FAV'); } catch (error) { missing = error instanceof GatewayError ? error.errorCode : String(error); }
  console.log(JSON.stringify({ id: invoice.id, status: invoice.status, missing, resolved: require.resolve('@gw/client') }));
})().catch((error) => { console.error(error); process.exit(1); });
`,
  );
  const run = await runProcess(process.execPath, ['retrieve.cjs', invoiceId], { cwd: app, env: partnerEnv() });
  t.is(run.code, 0, run.stderr);
  const retrieved = JSON.parse(run.stdout) as Record<string, string>;
  t.is(retrieved['id'], invoiceId);
  t.is(retrieved['status'], 'paid');
  t.is(retrieved['missing'], 'invoice_not_found');
  t.regex(retrieved['resolved']!, /node_modules\/@gw\/client\/dist\/cjs\/index\.js$/);
});

test.serial('@gw/webhook-verify, imported and required: the gateway’s delivery of invoice.paid verifies, a changed body does not', async (t) => {
  const delivery = await waitFor(async () => receiver.forEvent(paidEventId)[0], 30_000, 'the delivery of invoice.paid');
  writeFileSync(join(app, 'delivery.json'), JSON.stringify({ header: delivery.headers['x-service-signature'], body: delivery.body }));
  const probe = `const { header, body } = JSON.parse(readFileSync('delivery.json', 'utf8'));
const secrets = [process.env.GATEWAY_API_SECRET];
const good = verifyWebhook({ header, rawBody: body, secrets });
const changed = verifyWebhook({ header, rawBody: body.replace('paid', 'pa1d'), secrets });
console.log(JSON.stringify({ good: good.ok, changed: changed.ok ? 'ok' : changed.reason, header: SIGNATURE_HEADER }));`;
  writeFileSync(
    join(app, 'verify.mjs'),
    `import { readFileSync } from 'node:fs';\nimport { verifyWebhook } from '@gw/webhook-verify';\nimport { SIGNATURE_HEADER } from '@gw/webhook-verify/contract';\n${probe}\n`,
  );
  writeFileSync(
    join(app, 'verify.cjs'),
    `const { readFileSync } = require('node:fs');\nconst { verifyWebhook } = require('@gw/webhook-verify');\nconst { SIGNATURE_HEADER } = require('@gw/webhook-verify/contract');\n${probe}\n`,
  );
  for (const file of ['verify.mjs', 'verify.cjs']) {
    t.deepEqual(await nodeScript(file), { good: true, changed: 'signature_mismatch', header: SIGNATURE_HEADER }, file);
  }
});

test.serial('the installed gateway executable: --version, api, trigger and listen against the gateway', async (t) => {
  const bin = gatewayBin(cliOnly);
  const version = await runProcess(bin, ['--version'], { cwd: cliOnly, env: partnerEnv() });
  t.is(version.code, 0, version.stderr);
  t.is(version.stdout.trim(), '0.1.0');

  const api = await runProcess(bin, ['api', 'GET', `/api/v1/sandbox/invoices/${invoiceId}`, '--json'], { cwd: cliOnly, env: partnerEnv() });
  t.is(api.code, 0, api.stderr);
  t.like(JSON.parse(api.stdout), { id: invoiceId, status: 'paid' });
  const refused = await runProcess(bin, ['api', 'GET', '/api/v1/project', '--json'], {
    cwd: cliOnly,
    env: { ...partnerEnv(), GATEWAY_API_SECRET: `sk_sandbox_${'1'.repeat(40)}` },
  });
  t.is(refused.code, 1);
  t.is(JSON.parse(refused.stdout).error_code, 'signature_invalid');

  const triggered = await runProcess(bin, ['trigger', 'invoice.paid', '--json'], { cwd: cliOnly, env: partnerEnv() });
  t.is(triggered.code, 0, triggered.stderr);
  const trigger = JSON.parse(triggered.stdout.trim().split('\n').at(-1)!) as { invoice_id: string; event_id: string; event_type: string };
  t.is(trigger.event_type, 'invoice.paid');

  // listen forwards every event after the ESM script's invoice.paid, signed with the project's
  // secret as the gateway's own delivery is: the trigger's invoice.paid among them.
  const local = await Receiver.start();
  t.teardown(() => local.close());
  const listen = spawn(
    bin,
    ['listen', '--forward-to', `${local.url}/hooks`, '--since', paidEventId, '--state', join(scratch, 'listen.cursor'), '--wait', '1', '--json'],
    {
      cwd: cliOnly,
      env: partnerEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(listen);
  let output = '';
  listen.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  listen.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // The line is printed once the local answer is in, after the request arrived.
  const line = await waitFor(
    async () =>
      output
        .split('\n')
        .slice(0, -1)
        .find((text) => text.includes(`"event_id":"${trigger.event_id}"`)),
    30_000,
    `listen forwarding ${trigger.event_id}: ${output}`,
  );
  const forwarded = local.forEvent(trigger.event_id)[0]!;
  listen.kill('SIGTERM');
  t.is(forwarded.path, '/hooks');
  t.is(forwarded.headers['x-service-event-type'], 'invoice.paid');
  t.true(verifyWebhook({ header: String(forwarded.headers['x-service-signature']), rawBody: forwarded.body, secrets: [account.secret] }).ok);
  t.is(JSON.parse(forwarded.body).data.invoice_id, trigger.invoice_id);
  t.like(JSON.parse(line), { event_type: 'invoice.paid', invoice_id: trigger.invoice_id, status: 200 });
});
