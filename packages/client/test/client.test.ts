/**
 * @gw/client, built (dist/esm) and run against a real gateway with workers on a test database: a
 * sandbox partner's whole scenario, typed errors, pagination, retries through a fault-injecting
 * proxy, webhook verification of real deliveries, and the generated operation table against the
 * document the gateway serves.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { signWebhook as referenceSignWebhook } from '@gw/webhook-verify';
import { waitFor, type TestKernel } from '@gw/kernel/testing';
import { sandboxClient, startSandboxKernel, Receiver, type SandboxClient } from '@gw/plugin-sandbox/testing';
import { documentOfThisBuild } from '@gw/app-gateway/openapi-document';
import { buildClientApart } from '../scripts/build.ts';
import { FaultProxy, stopAll } from '@gw/testing';

type ClientModule = typeof import('../src/index.ts');

let gw: TestKernel, receiver: Receiver, account: SandboxClient, sdk: ClientModule, distDir: string;

test.before(async () => {
  distDir = await buildClientApart();
  sdk = (await import(pathToFileURL(`${distDir}/esm/index.js`).href)) as ClientModule;
  gw = await startSandboxKernel();
  receiver = await Receiver.start();
  account = await sandboxClient(gw, receiver);
});
test.after.always(async () => {
  await stopAll(gw, receiver);
  if (distDir) rmSync(distDir, { recursive: true, force: true });
});

function client(overrides: Partial<import('../src/index.ts').GatewayClientOptions> = {}) {
  return new sdk.GatewayClient({ baseUrl: gw.url, projectId: account.projectId, apiSecret: account.secret, ...overrides });
}

test('the CommonJS build exports what the ES module build does', (t) => {
  const cjs = createRequire(import.meta.url)(`${distDir}/cjs/index.js`) as Record<string, unknown>;
  t.deepEqual(Object.keys(cjs).sort(), Object.keys(sdk).sort());
  t.is(typeof cjs['GatewayClient'], 'function');
});

test('the published layout (publishConfig applied) works for an ES module consumer, a CommonJS consumer and TypeScript under node16 resolution', (t) => {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  // What pnpm publish writes: publishConfig's fields replace the manifest's.
  const published = { ...manifest, ...manifest.publishConfig };
  delete published.publishConfig;
  delete published.devDependencies;
  t.deepEqual(published.dependencies ?? {}, {}, 'no runtime dependency');
  // Outside the package, or Node would resolve '@gw/client' to the package itself (self-reference).
  const dir = mkdtempSync(join(tmpdir(), 'gw-client-published-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const installed = join(dir, 'node_modules', '@gw', 'client');
  mkdirSync(installed, { recursive: true });
  writeFileSync(join(installed, 'package.json'), JSON.stringify(published));
  cpSync(distDir, join(installed, 'dist'), { recursive: true });
  const probe = `const h = await signRequest({ projectId: 'p', secret: 's', method: 'POST', url: new URL('https://x/api/v1/invoices'), rawBody: '{}', timestamp: 1700000000 });
const w = await signWebhook({ secrets: ['s'], rawBody: 'b', timestamp: 1 });
console.log(JSON.stringify([h['X-Signature'], w, (await verifyWebhook({ header: w, rawBody: 'b', secrets: ['s'], nowSeconds: 1 })).ok, typeof GatewayClient]));`;
  writeFileSync(join(dir, 'esm.mjs'), `import { GatewayClient, signRequest, signWebhook, verifyWebhook } from '@gw/client';\n${probe}\n`);
  writeFileSync(
    join(dir, 'cjs.cjs'),
    `const { GatewayClient, signRequest, signWebhook, verifyWebhook } = require('@gw/client');\n(async () => {\n${probe}\n})();\n`,
  );
  const esm = execFileSync(process.execPath, [join(dir, 'esm.mjs')], { cwd: dir, encoding: 'utf8' });
  const cjs = execFileSync(process.execPath, [join(dir, 'cjs.cjs')], { cwd: dir, encoding: 'utf8' });
  t.is(esm, cjs);
  t.deepEqual(JSON.parse(esm).slice(2), [true, 'function']);
  const typed = `const gateway = new GatewayClient({ baseUrl: 'https://pay.example.com', projectId: 'p', apiSecret: 's' });
export async function run(): Promise<string> {
  const invoice = await gateway.invoices.create({ external_id: 'o-1', coin: 'usdt_trc20', amount_usd: 25 });
  const status: 'pending' | 'detected' | 'paid' | 'overpaid' | 'partial' | 'expired' | 'expired_paid_late' | 'reverted' | 'cancelled' | 'ambiguous' = invoice.status;
  for await (const item of gateway.invoices.iterate({ status: 'paid' })) void item.amount_crypto;
  try { await gateway.sandbox.simulate.paid(invoice.id); } catch (error) { if (error instanceof GatewayError) return error.errorCode; }
  return status;
}
`;
  writeFileSync(join(dir, 'typed.mts'), `import { GatewayClient, GatewayError } from '@gw/client';\n${typed}`);
  writeFileSync(
    join(dir, 'typed.cts'),
    `import { GatewayClient, GatewayError } = require('@gw/client');\n`.replace('import { GatewayClient, GatewayError } = require', 'import client = require') +
      typed.replaceAll('GatewayClient', 'client.GatewayClient').replaceAll('GatewayError', 'client.GatewayError'),
  );
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'node16',
        moduleResolution: 'node16',
        target: 'es2022',
        lib: ['es2022', 'dom'],
        types: [],
        strict: true,
        noEmit: true,
        skipLibCheck: false,
      },
      files: ['typed.mts', 'typed.cts'],
    }),
  );
  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
    t.pass();
  } catch (error) {
    t.fail(`tsc failed:\n${(error as { stdout?: string }).stdout ?? ''}`);
  }
  // The check can fail: a wrong field type is reported.
  writeFileSync(
    join(dir, 'typed.mts'),
    `import { GatewayClient } from '@gw/client';\nconst gateway = new GatewayClient({ baseUrl: 'x', projectId: 'p', apiSecret: 's' });\nexport const wrong = gateway.invoices.create({ external_id: 1, coin: 'doge' });\n`,
  );
  t.throws(() => execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: dir, encoding: 'utf8', stdio: 'pipe' }));
});

test('a sandbox partner creates an invoice, replays it, drives it to paid and sees it paid', async (t) => {
  const gateway = client();
  const externalId = `order-${Date.now()}`;
  const first = await gateway.requestWithStatus('postSandboxInvoices', { body: { external_id: externalId, coin: 'eth', amount_crypto: '0.05' } });
  t.is(first.status, 201);
  const replay = await gateway.requestWithStatus('postSandboxInvoices', { body: { external_id: externalId, coin: 'eth', amount_crypto: '0.05' } });
  t.is(replay.status, 200);
  t.is(replay.result.id, first.result.id);
  const invoice = first.result;
  t.is(invoice.status, 'pending');
  const detected = await gateway.sandbox.simulate.detect(invoice.id, { seed: 'sdk' });
  t.is(detected.status, 'detected');
  const paid = await gateway.sandbox.simulate.paid(invoice.id);
  t.is(paid.status, 'paid');
  const retrieved = await gateway.sandbox.invoices.retrieve(invoice.id);
  t.is(retrieved.status, 'paid');
  t.true(retrieved.transactions.length >= 1);
  t.is(retrieved.external_id, externalId);
});

test('errors are GatewayError with the error code, status, request id and details', async (t) => {
  const gateway = client();
  const missing = await t.throwsAsync(gateway.sandbox.invoices.retrieve('01ARZ3NDEKTSV4RRFFQ69G5FAV'), { instanceOf: sdk.GatewayError });
  t.is(missing.errorCode, 'invoice_not_found');
  t.is(missing.status, 404);
  t.regex(missing.requestId ?? '', /.+/);
  t.is(missing.retryAfter, undefined);
  const invalid = await t.throwsAsync(gateway.sandbox.invoices.create({ external_id: '', coin: 'eth', amount_crypto: '1' }), { instanceOf: sdk.GatewayError });
  t.is(invalid.errorCode, 'validation_error');
  t.is(invalid.status, 400);
  t.truthy(invalid.details);
  const invoice = await gateway.sandbox.invoices.create({ external_id: `transition-${Date.now()}`, coin: 'btc', amount_crypto: '0.001' });
  const refused = await t.throwsAsync(gateway.sandbox.simulate.paid(invoice.id), { instanceOf: sdk.GatewayError });
  t.is(refused.errorCode, 'sandbox_invoice_transition_invalid');
  t.is(refused.status, 422);
  const wrongSecret = new sdk.GatewayClient({ baseUrl: gw.url, projectId: account.projectId, apiSecret: `sk_sandbox_${'0'.repeat(40)}` });
  const unsigned = await t.throwsAsync(wrongSecret.sandbox.invoices.list(), { instanceOf: sdk.GatewayError });
  t.is(unsigned.errorCode, 'signature_invalid');
  t.is(unsigned.status, 401);
});

test('iterate walks every page of a cursor-paginated list exactly once', async (t) => {
  // A project of its own: the other tests create invoices concurrently. Through a proxy that
  // records each request, so the pages themselves are seen: five invoices at two a page are three
  // requests, each after the cursor of the one before. Mutation checked: with paginate() asking
  // for limit 200 (one page), this fails; before, it passed.
  const own = await sandboxClient(gw);
  const proxy = await FaultProxy.start(gw.url);
  t.teardown(() => proxy.close());
  const gateway = new sdk.GatewayClient({ baseUrl: proxy.url, projectId: own.projectId, apiSecret: own.secret });
  const prefix = `page-${Date.now()}`;
  const created: string[] = [];
  for (let i = 0; i < 5; i += 1)
    created.push((await gateway.sandbox.invoices.create({ external_id: `${prefix}-${i}`, coin: 'trx', amount_crypto: `${i + 1}` })).id);
  proxy.seen.length = 0;
  const seen: string[] = [];
  for await (const invoice of gateway.sandbox.invoices.iterate({ limit: 2 })) seen.push(invoice.id);
  t.is(new Set(seen).size, seen.length, 'no invoice twice');
  t.deepEqual([...seen].sort(), [...created].sort());
  const all = await gateway.sandbox.invoices.list({ limit: 200 });
  t.deepEqual(
    seen,
    all.items.map((i) => i.id),
  );
  const pages = proxy.seen.slice(0, -1).map((line) => new URL(line.split(' ')[1]!, 'http://x').searchParams);
  t.deepEqual(
    pages.map((query) => query.get('limit')),
    ['2', '2', '2'],
  );
  t.is(pages[0]!.get('cursor'), null);
  for (const query of pages.slice(1)) t.truthy(query.get('cursor'));
  t.not(pages[1]!.get('cursor'), pages[2]!.get('cursor'));
});

test('429 and 503 are retried after Retry-After for idempotent calls only; other calls throw at once', async (t) => {
  const proxy = await FaultProxy.start(gw.url);
  t.teardown(() => proxy.close());
  const gateway = client({ baseUrl: proxy.url });
  proxy.faults.push({ kind: 'status', status: 503, retryAfter: '1' }, { kind: 'status', status: 429, retryAfter: '0' });
  const externalId = `retry-${Date.now()}`;
  const invoice = await gateway.sandbox.invoices.create({ external_id: externalId, coin: 'eth', amount_crypto: '0.01' });
  t.deepEqual(proxy.seen, ['POST /api/v1/sandbox/invoices', 'POST /api/v1/sandbox/invoices', 'POST /api/v1/sandbox/invoices']);
  const page = await gateway.sandbox.invoices.list({ external_id: externalId });
  t.deepEqual(
    page.items.map((i) => i.id),
    [invoice.id],
    'one invoice despite three attempts',
  );

  proxy.seen.length = 0;
  proxy.faults.push({ kind: 'status', status: 503, retryAfter: '0' });
  const refused = await t.throwsAsync(gateway.sandbox.simulate.detect(invoice.id), { instanceOf: sdk.GatewayError });
  t.is(refused.status, 503);
  t.is(refused.retryAfter, 0);
  t.is(proxy.seen.length, 1, 'a simulation is not retried');

  proxy.seen.length = 0;
  proxy.faults.push({ kind: 'status', status: 503, retryAfter: '3600' });
  const tooLong = await t.throwsAsync(gateway.sandbox.invoices.retrieve(invoice.id), { instanceOf: sdk.GatewayError });
  t.is(tooLong.retryAfter, 3600, 'a Retry-After beyond maxRetryAfterSeconds is not waited for');
  t.is(proxy.seen.length, 1);

  proxy.seen.length = 0;
  proxy.faults.push(
    { kind: 'status', status: 503, retryAfter: '0' },
    { kind: 'status', status: 503, retryAfter: '0' },
    { kind: 'status', status: 503, retryAfter: '0' },
  );
  const exhausted = await t.throwsAsync(gateway.sandbox.invoices.retrieve(invoice.id), { instanceOf: sdk.GatewayError });
  t.is(exhausted.status, 503);
  t.is(proxy.seen.length, 3, 'maxRetries 2: three attempts');
  proxy.faults.length = 0;
});

test('a dropped connection is retried for reads and creates, and is a GatewayConnectionError for other calls', async (t) => {
  const proxy = await FaultProxy.start(gw.url);
  t.teardown(() => proxy.close());
  const gateway = client({ baseUrl: proxy.url });
  const invoice = await gateway.sandbox.invoices.create({ external_id: `drop-${Date.now()}`, coin: 'eth', amount_crypto: '0.02' });
  proxy.seen.length = 0;
  proxy.faults.push({ kind: 'reset' });
  t.is((await gateway.sandbox.invoices.retrieve(invoice.id)).id, invoice.id);
  t.is(proxy.seen.length, 2);
  proxy.seen.length = 0;
  proxy.faults.push({ kind: 'reset' });
  const dropped = await t.throwsAsync(gateway.sandbox.invoices.cancel(invoice.id), { instanceOf: sdk.GatewayConnectionError });
  t.is(dropped.attempts, 1);
  t.is(proxy.seen.length, 1);
  t.is((await gateway.sandbox.invoices.retrieve(invoice.id)).status, 'pending', 'the dropped cancel never reached the gateway');
});

test('real deliveries verify with verifyWebhook and constructWebhookEvent; tampering and stale timestamps are refused', async (t) => {
  const gateway = client();
  const invoice = await gateway.sandbox.invoices.create({ external_id: `hook-${Date.now()}`, coin: 'btc', amount_crypto: '0.002' });
  const detected = await gateway.sandbox.simulate.detect(invoice.id);
  const delivery = await waitFor(async () => receiver.forEvent(detected.event_id)[0], 20_000, 'the detected delivery');
  const header = delivery.headers['x-service-signature'] as string;
  const event = await sdk.constructWebhookEvent({ header, rawBody: new TextEncoder().encode(delivery.body), secrets: [account.secret] });
  t.is(event.event_id, detected.event_id);
  t.is(event.event_type, 'invoice.detected');
  t.is(event.data.invoice_id, invoice.id);
  t.deepEqual(await sdk.verifyWebhook({ header, rawBody: `${delivery.body} `, secrets: [account.secret] }), { ok: false, reason: 'signature_mismatch' });
  t.deepEqual(await sdk.verifyWebhook({ header, rawBody: delivery.body, secrets: ['another-secret'] }), { ok: false, reason: 'signature_mismatch' });
  t.deepEqual(await sdk.verifyWebhook({ header: 'v1=abc', rawBody: delivery.body, secrets: [account.secret] }), { ok: false, reason: 'malformed_header' });
  const signedAt = sdk.parseSignatureHeader(header)!.timestamp;
  t.deepEqual(await sdk.verifyWebhook({ header, rawBody: delivery.body, secrets: [account.secret], nowSeconds: signedAt + 301 }), {
    ok: false,
    reason: 'timestamp_out_of_window',
  });
  t.true((await sdk.verifyWebhook({ header, rawBody: delivery.body, secrets: ['old', account.secret], nowSeconds: signedAt + 300 })).ok);
  const error = await t.throwsAsync(sdk.constructWebhookEvent({ header, rawBody: 'tampered', secrets: [account.secret] }), {
    instanceOf: sdk.WebhookVerificationError,
  });
  t.is(error.reason, 'signature_mismatch');
});

test('signWebhook agrees with @gw/webhook-verify, byte for byte, on non-ASCII bodies and several secrets', async (t) => {
  const rawBody = JSON.stringify({ event_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', note: 'naïve — ✓' });
  const input = { secrets: ['s1', 'sk_sandbox_two'], rawBody, timestamp: 1_790_000_000 };
  t.is(await sdk.signWebhook(input), referenceSignWebhook(input));
});

test('an identical write repeated at once is signed with a fresh timestamp, so no signature is used twice', async (t) => {
  const sent: { method: string; timestamp: string; signature: string }[] = [];
  const recording: typeof fetch = (input, init) => {
    const headers = init?.headers as Record<string, string>;
    sent.push({ method: init?.method ?? 'GET', timestamp: headers['X-Timestamp']!, signature: headers['X-Signature']! });
    return fetch(input, init);
  };
  const gateway = client({ fetch: recording });
  for (let i = 0; i < 3; i += 1) await gateway.sandbox.clock.advance({ chain: 'ton', blocks: 1 });
  const writes = sent.filter((s) => s.method === 'POST');
  t.is(writes.length, 3);
  t.is(new Set(writes.map((w) => w.signature)).size, 3);
  t.is(new Set(writes.map((w) => w.timestamp)).size, 3);
  const now = Math.floor(Date.now() / 1000);
  t.true(
    writes.every((w) => Math.abs(Number(w.timestamp) - now) <= 300),
    'within the window',
  );
});

test('with signatures covering the query, the signed target is exactly the request target the server receives (Koa originalUrl)', async (t) => {
  const { createServer } = await import('node:http');
  const { createHmac } = await import('node:crypto');
  const received: { url: string; timestamp: string; signature: string; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ url: req.url!, timestamp: String(req.headers['x-timestamp']), signature: String(req.headers['x-signature']), body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"items":[]}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address() as { port: number };
  const gateway = new sdk.GatewayClient({ baseUrl: `http://127.0.0.1:${address.port}`, projectId: 'p', apiSecret: 'secret' });
  await gateway.invoices.list({ external_id: "order 7/ü'+&x=1", status: 'paid', limit: 10 });
  await gateway.call('GET', '/api/v1/invoices?external_id=a b&amount=1.50&x=%7e');
  await gateway.call('POST', '/api/v1/invoices?dry=1', { body: { external_id: 'é' } });
  t.is(received.length, 3);
  for (const request of received) {
    t.true(request.url.includes('?'));
    const method = request.body ? 'POST' : 'GET';
    const expected = createHmac('sha256', 'secret').update(`${method}\n${request.url}\n${request.timestamp}\n${request.body}`).digest('hex');
    t.is(request.signature, expected, request.url);
  }
});

test("signing: the target is the pathname plus the raw query when there is one; the gateway accepts the client's signature", async (t) => {
  t.is(sdk.signingTarget(new URL('https://pay.example.test/api/v1/invoices?limit=10&status=paid')), '/api/v1/invoices?limit=10&status=paid');
  t.is(sdk.signingTarget(new URL('https://pay.example.test/api/v1/invoices')), '/api/v1/invoices');
  t.is(sdk.signingTarget(new URL('https://pay.example.test/api/v1/invoices?')), '/api/v1/invoices');
  t.is(sdk.signingString('get', '/api/v1/invoices?limit=10', '1700000000', ''), 'GET\n/api/v1/invoices?limit=10\n1700000000\n');
  const listUrl = new URL(`${gw.url}/api/v1/sandbox/invoices?limit=5`);
  const headers = await sdk.signRequest({ projectId: account.projectId, secret: account.secret, method: 'GET', url: listUrl, rawBody: '' });
  t.is((await fetch(listUrl, { headers: { ...headers } })).status, 200);
  t.is(
    (await fetch(`${gw.url}/api/v1/sandbox/invoices?limit=6`, { headers: { ...headers } })).status,
    401,
    'the signature covers the query: other filters are refused',
  );
});

test('the generated operation table matches the document the running gateway serves', async (t) => {
  const served = (await (await fetch(`${gw.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const built = documentOfThisBuild();
  let compared = 0;
  for (const [path, operations] of Object.entries(served.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!(operation as { security?: unknown[] }).security?.length) continue;
      t.deepEqual(operation, built.paths[path]?.[method], `${method} ${path}`);
      t.truthy(sdk.OPERATIONS[(operation as { operationId: keyof typeof sdk.OPERATIONS }).operationId], `${method} ${path} is in the client`);
      compared += 1;
    }
  }
  t.true(compared >= 20);
});
