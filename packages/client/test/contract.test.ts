/**
 * Contract checks from outside the gateway's own code:
 * - a third tool, openapi-typescript, generates types from the OpenAPI document, and a file that
 *   passes its request bodies and query types to every @gw/client call and assigns every answer
 *   to its response types compiles (with the client's strict, DOM-only build settings);
 * - every answer the client test suite's calls would get is checked with Ajv (JSON Schema
 *   2020-12, independent of TypeBox) against the document's response schema, here for a sandbox
 *   scenario through a recording fetch.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import type { TestKernel } from '@gw/kernel/testing';
import { startSandboxAccount, type SandboxClient } from '@gw/plugin-sandbox/testing';
import { documentOfThisBuild } from '@gw/app-gateway/openapi-document';
import { GatewayClient, OPERATIONS } from '../src/index.ts';
import { documentMismatches } from './openapi-contract.ts';

const clientRoot = fileURLToPath(new URL('..', import.meta.url));

test('openapi-typescript types of the document compile against every call of the client', async (t) => {
  const document = documentOfThisBuild();
  const generated = astToString(await openapiTS(document as never));
  const dir = mkdtempSync(join(clientRoot, '.contract-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'openapi.d.ts'), generated);
  const src = relative(dir, join(clientRoot, 'src')).replaceAll('\\', '/');
  const lines = [
    "import type { paths } from './openapi.js';",
    `import type { GatewayClient, OperationArgs, OperationResult } from '${src}/index.js';`,
    'declare const client: GatewayClient;',
    'type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;',
    'type Body<Op> = Op extends { requestBody: infer R } ? Json<NonNullable<R>> : never;',
    'type Query<Op> = Op extends { parameters: { query?: infer Q } } ? Q : never;',
    'type Path<Op> = Op extends { parameters: { path: infer P } } ? P : never;',
    'type Ok<Op> = Op extends { responses: infer R } ? { [S in keyof R]: S extends 200 | 201 | 202 ? Json<R[S]> : never }[keyof R] : never;',
    'export async function everyCall(): Promise<void> {',
  ];
  let checked = 0;
  for (const [operationId, operation] of Object.entries(OPERATIONS)) {
    const op = `paths[${JSON.stringify(operation.path)}][${JSON.stringify(operation.method.toLowerCase())}]`;
    const name = operationId;
    const parts = [operation.params.length > 0 ? `params: {} as Path<${op}>` : '', `query: {} as Query<${op}>`, `body: {} as Body<${op}>`].filter(Boolean);
    lines.push(`  // ${operation.method} ${operation.path}`);
    lines.push(`  const ${name}_args = { ${parts.join(', ')} };`);
    lines.push(`  const ${name}_answer: Ok<${op}> = await client.request('${name}', ${name}_args as typeof ${name}_args & OperationArgs<'${name}'>);`);
    // Both directions: the third tool's inputs are the client's, the client's answers the third tool's.
    lines.push(`  const ${name}_body: OperationArgs<'${name}'>['body'] = ${name}_args.body as Body<${op}>;`);
    lines.push(`  const ${name}_back: OperationResult<'${name}'> = ${name}_answer;`);
    lines.push(`  void ${name}_body; void ${name}_back;`);
    checked += 1;
  }
  lines.push('}', '');
  writeFileSync(join(dir, 'calls.ts'), lines.join('\n'));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: '../tsconfig.build.json',
      compilerOptions: { noEmit: true, emitDeclarationOnly: false, declaration: false, rootDir: '..', noUnusedLocals: false },
      include: ['calls.ts', 'openapi.d.ts'],
    }),
  );
  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  const compile = (): string | undefined => {
    try {
      execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8', stdio: 'pipe' });
      return undefined;
    } catch (error) {
      return `${(error as { stdout?: string }).stdout ?? ''}${(error as { stderr?: string }).stderr ?? ''}`;
    }
  };
  t.is(compile(), undefined);
  t.true(checked >= 30);
  // The check can fail: the wallets answer is not the project's.
  lines.splice(lines.length - 2, 0, "  const wrong: Ok<paths['/api/v1/project']['get']> = await client.request('getWallets', {});", '  void wrong;');
  writeFileSync(join(dir, 'calls.ts'), lines.join('\n'));
  t.regex(compile() ?? '', /calls\.ts.*error TS2/);
});

let gw: TestKernel, account: SandboxClient;
test.before(async () => ({ gw, account } = await startSandboxAccount()));
test.after.always(() => gw?.close());

test('every answer of a sandbox scenario matches the served document (Ajv, JSON Schema 2020-12)', async (t) => {
  const served = (await (await fetch(`${gw.url}/api/v1/openapi.json`)).json()) as Parameters<typeof documentMismatches>[0];
  const answers: { method: string; path: string; status: number; body: unknown }[] = [];
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const text = await response.clone().text();
    const url = new URL(input instanceof Request ? input.url : String(input));
    answers.push({ method: init?.method ?? 'GET', path: url.pathname, status: response.status, body: text === '' ? undefined : JSON.parse(text) });
    return response;
  };
  const gateway = new GatewayClient({ baseUrl: gw.url, projectId: account.projectId, apiSecret: account.secret, fetch: recording });
  const invoice = await gateway.sandbox.invoices.create({ external_id: `contract-${Date.now()}`, coin: 'eth', amount_crypto: '0.05' });
  await gateway.sandbox.invoices.create({ external_id: invoice.external_id, coin: 'eth', amount_crypto: '0.05' });
  await gateway.sandbox.simulate.detect(invoice.id);
  await gateway.sandbox.simulate.overpaid(invoice.id, { multiplier: 1.5 });
  await gateway.sandbox.simulate.reorg(invoice.id);
  await gateway.sandbox.invoices.retrieve(invoice.id);
  await gateway.sandbox.invoices.list({ limit: 1 });
  await gateway.sandbox.webhooks.events.list({ limit: 5 });
  await gateway.sandbox.webhooks.stream({ start: 'earliest', limit: 5 });
  await gateway.sandbox.clock.advance({ chain: 'eth', blocks: 1 });
  await gateway.sandbox.wallets();
  await gateway.project();
  await gateway.sandbox.invoices.retrieve('01ARZ3NDEKTSV4RRFFQ69G5FAV').catch(() => undefined);
  await gateway.sandbox.simulate.paid(invoice.id).catch(() => undefined);
  await gateway.sandbox.invoices.create({ external_id: '', coin: 'eth' } as never).catch(() => undefined);
  const second = await gateway.sandbox.invoices.create({ external_id: `contract-cancel-${Date.now()}`, coin: 'btc', amount_crypto: '0.001' });
  await gateway.sandbox.invoices.cancel(second.id);
  await gateway.sandbox.invoices.cancel(second.id).catch(() => undefined);
  t.true(answers.length >= 18);
  t.true(answers.some((a) => a.status >= 400));
  const problems = answers.flatMap((a) => documentMismatches(served, a.method, a.path, a.status, a.body));
  t.deepEqual(problems, []);
  // The checker can fail: a wrong answer is reported.
  t.not(documentMismatches(served, 'GET', `/api/v1/sandbox/invoices/${invoice.id}`, 200, { ...invoice, status: 'refunded' }).length, 0);
  t.not(documentMismatches(served, 'GET', `/api/v1/sandbox/invoices/${invoice.id}`, 418, {}).length, 0);
});
