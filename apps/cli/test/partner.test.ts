/**
 * The partner commands (`gateway api`, `gateway trigger`) against a real gateway with workers, with
 * credentials from flags, environment and an owner-only file, and never a database of their own.
 */
import test from 'ava';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chains, plugins } from '@gw/app-gateway';
import { waitFor, type TestKernel } from '@gw/kernel/testing';
import { sandboxClient, startSandboxKernel, Receiver, type SandboxClient } from '@gw/plugin-sandbox/testing';
import { captureCli, type CliRun, runProcess } from '@gw/testing';
import { runCli } from '../src/cli.js';

let gw: TestKernel, receiver: Receiver, account: SandboxClient, home: string;

test.before(async () => {
  gw = await startSandboxKernel();
  receiver = await Receiver.start();
  account = await sandboxClient(gw, receiver);
  home = mkdtempSync(join(tmpdir(), 'gw-partner-'));
});
test.after.always(async () => {
  await gw?.close();
  await receiver?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

async function partner(env: NodeJS.ProcessEnv, ...argv: string[]): Promise<CliRun> {
  // No config and no database: a partner command must not need either.
  return captureCli((io) => runCli(argv, { plugins, chains, env, io }));
}

function credentialsFile(name: string, mode: number, content: object = { url: gw.url, project_id: account.projectId, api_secret: account.secret }): string {
  const path = join(home, name);
  writeFileSync(path, JSON.stringify(content));
  chmodSync(path, mode);
  return path;
}

const envOf = (): NodeJS.ProcessEnv => ({ GATEWAY_URL: gw.url, GATEWAY_PROJECT_ID: account.projectId, GATEWAY_API_SECRET: account.secret, HOME: home });

test('api: a signed GET with credentials from an owner-only file; a group- or world-readable file is refused', async (t) => {
  const ok = credentialsFile('ok.json', 0o600);
  const listed = await partner({ HOME: home }, 'api', 'GET', '/api/v1/sandbox/invoices?limit=5', '--credentials', ok);
  t.is(listed.code, 0, listed.stderr);
  t.true(Array.isArray(listed.json.items));
  const viaEnvPath = await partner({ HOME: home, GATEWAY_CREDENTIALS_FILE: ok }, 'api', 'GET', '/api/v1/project');
  t.is(viaEnvPath.code, 0, viaEnvPath.stderr);
  t.is(viaEnvPath.json.id, account.projectId);
  t.is(viaEnvPath.json.kind, 'sandbox');
  for (const mode of [0o640, 0o604, 0o660]) {
    const loose = credentialsFile(`loose-${mode.toString(8)}.json`, mode);
    const refused = await partner({ HOME: home }, 'api', 'GET', '/api/v1/project', '--credentials', loose);
    t.is(refused.code, 2);
    t.regex(refused.stderr, /accessible by group or others .*chmod 600/);
  }
  const missing = await partner({ HOME: home }, 'api', 'GET', '/api/v1/project');
  t.is(missing.code, 2);
  t.regex(missing.stderr, /missing url .*project id .*API secret/);
});

test('api: the default file under XDG_CONFIG_HOME; environment and flags win over it, value by value', async (t) => {
  const config = join(home, 'xdg');
  const dir = join(config, 'gateway');
  await import('node:fs').then((fs) => fs.mkdirSync(dir, { recursive: true }));
  const path = join(dir, 'credentials.json');
  writeFileSync(path, JSON.stringify({ url: gw.url, project_id: account.projectId, api_secret: `sk_sandbox_${'1'.repeat(40)}` }));
  chmodSync(path, 0o600);
  const wrongFromFile = await partner({ XDG_CONFIG_HOME: config }, 'api', 'GET', '/api/v1/project');
  t.is(wrongFromFile.code, 1);
  t.is(wrongFromFile.json.error_code, 'signature_invalid');
  const envSecret = await partner({ XDG_CONFIG_HOME: config, GATEWAY_API_SECRET: account.secret }, 'api', 'GET', '/api/v1/project');
  t.is(envSecret.code, 0, envSecret.stderr);
  const flagSecret = await partner({ XDG_CONFIG_HOME: config, GATEWAY_API_SECRET: 'wrong' }, 'api', 'GET', '/api/v1/project', '--api-secret', account.secret);
  t.is(flagSecret.code, 0, flagSecret.stderr);
});

test('api: POST with --data, error answers print the error body and exit 1, bad arguments exit 2', async (t) => {
  const externalId = `cli-${Date.now()}`;
  const created = await partner(
    envOf(),
    'api',
    'POST',
    '/api/v1/sandbox/invoices',
    '--data',
    JSON.stringify({ external_id: externalId, coin: 'btc', amount_crypto: '0.001' }),
    '--json',
  );
  t.is(created.code, 0, created.stderr);
  t.is(created.json.external_id, externalId);
  t.is(created.json.status, 'pending');
  const missing = await partner(envOf(), 'api', 'GET', '/api/v1/sandbox/invoices/01ARZ3NDEKTSV4RRFFQ69G5FAV');
  t.is(missing.code, 1);
  t.is(missing.json.error_code, 'invoice_not_found');
  t.truthy(missing.json.request_id);
  t.regex(missing.stderr, /error invoice_not_found: HTTP 404/);
  const invalid = await partner(envOf(), 'api', 'POST', '/api/v1/sandbox/invoices', '--data', '{"external_id":');
  t.is(invalid.code, 2);
  t.regex(invalid.stderr, /--data is not JSON/);
  t.is((await partner(envOf(), 'api', 'GET')).code, 2);
  t.is((await partner(envOf(), 'api', 'GET', 'api/v1/project')).code, 2);
  t.is((await partner(envOf(), 'api', 'GET', '/api/v1/project', '--bogus')).code, 2);
  const help = await partner({}, 'api', '--help');
  t.is(help.code, 0);
  t.regex(help.stdout, /GATEWAY_API_SECRET/);
});

test('trigger: creates an invoice and drives it to the event, which the project receives; continues an invoice; refuses an impossible one', async (t) => {
  const reverted = await partner(envOf(), 'trigger', 'invoice.reverted', '--json');
  t.is(reverted.code, 0, reverted.stderr);
  t.is(reverted.json.event_type, 'invoice.reverted');
  t.true(reverted.json.created);
  t.deepEqual(
    reverted.json.steps.map((s: { step: string }) => s.step),
    ['detect', 'paid', 'reorg'],
  );
  const delivery = await waitFor(async () => receiver.forEvent(reverted.json.event_id)[0], 20_000, 'the reverted delivery');
  t.is(JSON.parse(delivery.body).event_type, 'invoice.reverted');

  const paid = await partner(envOf(), 'trigger', 'invoice.paid', '--invoice', reverted.json.invoice_id);
  t.is(paid.code, 0, paid.stderr);
  t.regex(paid.stdout, /^reconfirm +[0-9A-Z]{26} +paid$/m);
  t.regex(paid.stdout, new RegExp(`invoice.paid [0-9A-Z]{26} for invoice ${reverted.json.invoice_id}`));

  const impossible = await partner(envOf(), 'trigger', 'invoice.detected', '--invoice', reverted.json.invoice_id);
  t.is(impossible.code, 2);
  t.regex(impossible.stderr, /is paid; invoice.detected can be triggered from pending/);
  const unknown = await partner(envOf(), 'trigger', 'invoice.refunded');
  t.is(unknown.code, 2);
  t.regex(unknown.stderr, /unknown event type/);
});

test('a real CLI process makes a signed call with no database configured', async (t) => {
  const { code, stdout, stderr } = await runProcess(
    process.execPath,
    ['--import', 'tsx', 'apps/cli/src/main.ts', 'api', 'GET', '/api/v1/sandbox/invoices', '--json'],
    {
      env: { PATH: process.env['PATH'], HOME: home, GATEWAY_URL: gw.url, GATEWAY_PROJECT_ID: account.projectId, GATEWAY_API_SECRET: account.secret },
    },
  );
  t.is(code, 0, stderr);
  t.true(Array.isArray(JSON.parse(stdout).items));
});

/** Runs `gateway listen` in process until the returned stop() is called. */
function startListen(env: NodeJS.ProcessEnv, ...args: string[]) {
  const controller = new AbortController();
  const out: string[] = [];
  const err: string[] = [];
  const done = runCli(['listen', ...args], { plugins, chains, env, stopSignal: controller.signal, io: { out: (s) => out.push(s), err: (s) => err.push(s) } });
  return {
    out,
    err,
    ready: () => waitFor(async () => err.some((line) => line.startsWith('listening for')) || (out.length > 0 && out), 20_000, 'listen to start'),
    stop: async () => {
      controller.abort();
      return done;
    },
  };
}

test('listen forwards each event signed as a delivery, one line each, and resumes after a restart without gaps or repeats', async (t) => {
  // A project of its own: the other tests' events must not reach this listener.
  const own = await sandboxClient(gw, receiver);
  const ownEnv = { ...envOf(), GATEWAY_PROJECT_ID: own.projectId, GATEWAY_API_SECRET: own.secret };
  const local = await Receiver.start();
  t.teardown(() => local.close());
  const state = join(home, 'listen.cursor');
  const args = ['--forward-to', `${local.url}/hooks`, '--state', state, '--wait', '1'];
  const { GatewayClient, verifyWebhook } = await import('@gw/client');
  const gateway = new GatewayClient({ baseUrl: gw.url, projectId: own.projectId, apiSecret: own.secret });

  const first = startListen(ownEnv, ...args);
  await first.ready();
  const invoice = await gateway.sandbox.invoices.create({ external_id: `listen-${Date.now()}`, coin: 'eth', amount_crypto: '0.03' });
  const detected = await gateway.sandbox.simulate.detect(invoice.id);
  const paid = await gateway.sandbox.simulate.paid(invoice.id);
  await waitFor(async () => local.requests.length >= 2, 20_000, 'two forwarded events');
  t.is(await first.stop(), 0, first.err.join('\n'));
  t.deepEqual(
    local.requests.map((r) => r.headers['x-service-event-id']),
    [detected.event_id, paid.event_id],
  );
  for (const request of local.requests) {
    t.true((await verifyWebhook({ header: request.headers['x-service-signature'] as string, rawBody: request.body, secrets: [own.secret] })).ok);
    t.is(request.headers['user-agent'], 'crypto-gateway-webhooks/1');
    t.is(request.headers['x-service-delivery-attempt'], '1');
    const delivered = await waitFor(async () => receiver.forEvent(request.headers['x-service-event-id'] as string)[0], 20_000, 'the gateway delivery');
    t.is(request.body, delivered.body, 'the body the gateway delivers, byte for byte');
    t.is(request.headers['x-service-event-type'], delivered.headers['x-service-event-type']);
  }
  t.is(first.out.length, 2);
  t.regex(first.out[0]!, new RegExp(`invoice\\.detected +${detected.event_id}  invoice ${invoice.id}  -> 200 \\(\\d+ ms\\)$`));

  // Stopped: these events happen while nobody listens.
  const missed = await partner(ownEnv, 'trigger', 'invoice.reverted', '--json');
  t.is(missed.code, 0, missed.stderr);
  const missedIds = missed.json.steps.map((s: { event_id: string }) => s.event_id);
  local.requests.length = 0;
  const second = startListen(ownEnv, ...args, '--json');
  await waitFor(async () => second.out.length >= 3, 20_000, 'the missed events');
  t.is(await second.stop(), 0, second.err.join('\n'));
  t.deepEqual(
    local.requests.map((r) => r.headers['x-service-event-id']),
    missedIds,
    'exactly the missed events, in order',
  );
  t.deepEqual(
    second.out.map((line) => JSON.parse(line).event_id),
    missedIds,
  );
  t.true(second.out.every((line) => JSON.parse(line).status === 200));
});

test('listen: usage errors and a cursor that is not an event of the project', async (t) => {
  t.is((await partner(envOf(), 'listen')).code, 2);
  t.is((await partner(envOf(), 'listen', '--forward-to', 'ftp://x')).code, 2);
  t.is((await partner(envOf(), 'listen', '--forward-to', 'http://127.0.0.1:9', '--wait', '99')).code, 2);
  const unknown = await partner(
    envOf(),
    'listen',
    '--forward-to',
    'http://127.0.0.1:9',
    '--since',
    '01ARZ3NDEKTSV4RRFFQ69G5FAV',
    '--state',
    join(home, 'none.cursor'),
  );
  t.is(unknown.code, 2);
  t.regex(unknown.stderr, /is not an event of this project/);
});

test('listen keeps its cursor through a gateway that is unreachable for a while, and forwards what came meanwhile', async (t) => {
  const { FaultProxy } = await import('@gw/testing');
  const own = await sandboxClient(gw);
  const proxy = await FaultProxy.start(gw.url);
  t.teardown(() => proxy.close());
  const local = await Receiver.start();
  t.teardown(() => local.close());
  const env = { ...envOf(), GATEWAY_URL: proxy.url, GATEWAY_PROJECT_ID: own.projectId, GATEWAY_API_SECRET: own.secret };
  const listening = startListen(env, '--forward-to', `${local.url}/hooks`, '--state', join(home, 'unreachable.cursor'), '--wait', '1');
  await listening.ready();
  // Three 503s use up the client's two retries: the poll fails and listen waits, then asks again.
  proxy.faults.push(
    { kind: 'status', status: 503, retryAfter: '0' },
    { kind: 'status', status: 503, retryAfter: '0' },
    { kind: 'status', status: 503, retryAfter: '0' },
  );
  await waitFor(async () => listening.err.some((line) => line.startsWith('gateway not reachable')), 20_000, 'the unreachable notice');
  const triggered = await partner({ ...envOf(), GATEWAY_PROJECT_ID: own.projectId, GATEWAY_API_SECRET: own.secret }, 'trigger', 'invoice.paid', '--json');
  t.is(triggered.code, 0, triggered.stderr);
  const ids = triggered.json.steps.map((s: { event_id: string }) => s.event_id);
  await waitFor(async () => local.requests.length >= ids.length, 30_000, 'the events after the outage');
  t.is(await listening.stop(), 0, listening.err.join('\n'));
  t.deepEqual(
    local.requests.map((r) => r.headers['x-service-event-id']),
    ids,
  );
});
