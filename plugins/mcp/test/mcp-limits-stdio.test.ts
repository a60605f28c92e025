import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { roomInRateWindow, waitFor, type TestKernel } from '@gw/kernel/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fileURLToPath } from 'node:url';
import { callError, callOk, rawCall, startMcpKernel } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const LIMIT = 5;

let gw: TestKernel;
let operatorId: string;

test.before(async () => {
  gw = await startMcpKernel({ 'plugins.mcp.toolCallsPerMinute': LIMIT });
  operatorId = (await gw.kernel.cradle.tenancyOperators.create('mcp-limits', CLI_ACTOR)).id;
  await gw.kernel.cradle.tenancyProjects.create({ name: 'one', kind: 'testnet', operator: operatorId }, CLI_ACTOR);
});

test.after.always(async () => {
  await gw?.close();
});

test.serial('tool calls per token per minute: over the limit is 429 with Retry-After; each token has its own pool', async (t) => {
  const first = await gw.kernel.cradle.tenancyPats.create({ scopes: ['projects:read'], operator: operatorId }, CLI_ACTOR);
  const second = await gw.kernel.cradle.tenancyPats.create({ scopes: ['projects:read'], operator: operatorId }, CLI_ACTOR);
  const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_projects', arguments: {} } });
  await roomInRateWindow(20);
  for (let i = 1; i <= LIMIT; i += 1) t.is((await rawCall(gw, call(i), first.token)).status, 200);
  const limited = await rawCall(gw, call(99), first.token);
  t.is(limited.status, 429);
  const retryAfter = Number(limited.headers.get('retry-after'));
  t.true(retryAfter >= 1 && retryAfter <= 60);
  t.is(limited.body.error.data.error_code, 'rate_limit_exceeded');
  t.is(limited.body.id, 99);
  // tools/list is not a tool call; another token is not affected.
  t.is((await rawCall(gw, { jsonrpc: '2.0', id: 100, method: 'tools/list' }, first.token)).status, 200);
  t.is((await rawCall(gw, call(101), second.token)).status, 200);
  // A tools/call notification (no id) is never run, so it does not count.
  const counter = () => gw.kernel.cradle.db('kernel_rate_limit_counters').where('key', `mcp_tool_per_token:pat:${second.id}`).first();
  const before = (await counter()).count;
  await rawCall(gw, { jsonrpc: '2.0', method: 'tools/call', params: { name: 'list_projects', arguments: {} } }, second.token);
  t.is((await counter()).count, before);
});

test.serial('gateway mcp stdio serves the same tools to the SDK STDIO client with a PAT, and stops serving a revoked one', async (t) => {
  const pat = await gw.kernel.cradle.tenancyPats.create({ scopes: ['projects:read', 'invoices:read'], operator: operatorId }, CLI_ACTOR);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'apps/cli/src/main.ts', 'mcp', 'stdio'],
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      DATABASE_URL: gw.database.url,
      GW_MASTER_KEY: '0f'.repeat(32),
      LOG_LEVEL: 'warn',
      GW_MCP_TOKEN: pat.token,
      GW__plugins__mcp__toolCallsPerMinute: '1000',
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-agent', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    t.true(tools.some((tool) => tool.name === 'create_invoice'));
    const projects = await callOk(client, 'list_projects', {});
    t.is(projects.data.length, 1);
    t.is(await callError(client, 'create_invoice', { project_id: projects.data[0].id, external_id: 'x', coin: 'eth', amount_usd: 1 }), 'insufficient_scope');
    await gw.kernel.cradle.tenancyPats.revoke(pat.id, CLI_ACTOR);
    t.is(await callError(client, 'list_projects', {}), 'invalid_token');
  } finally {
    await client.close();
  }
});

test('gateway mcp stdio refuses to start without a PAT', async (t) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'apps/cli/src/main.ts', 'mcp', 'stdio', '--token', 'svc_oat_notapat'],
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: gw.database.url, GW_MASTER_KEY: '0f'.repeat(32), LOG_LEVEL: 'warn' },
    stderr: 'pipe',
  });
  const stderr: Buffer[] = [];
  transport.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
  const client = new Client({ name: 'stdio-agent', version: '1.0.0' });
  await t.throwsAsync(client.connect(transport));
  await waitFor(async () => Buffer.concat(stderr).toString().includes('error invalid_token: mcp stdio needs a PAT'));
  t.pass();
});
