/**
 * Errors the kernel answers at the MCP transport before the route runs are JSON-RPC errors too
 * (found by the fuzz suite, issue 24: they were the REST envelope, which no MCP client reads).
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { startMcpKernel, TRANSPORT_PATH } from './helpers.js';

let gw: TestKernel;
let token: string;
test.before(async () => {
  gw = await startMcpKernel();
  const operator = await gw.kernel.cradle.tenancyOperators.create('mcp-errors', CLI_ACTOR);
  token = (await gw.kernel.cradle.tenancyPats.create({ scopes: ['projects:read'], operator: operator.id }, CLI_ACTOR)).token;
});
test.after.always(async () => {
  await gw?.close();
});

async function post(body: string | Uint8Array, contentType: string | null): Promise<{ status: number; contentType: string | null; body: any }> {
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` };
  if (contentType) headers['content-type'] = contentType;
  const response = await fetch(`${gw.url}${TRANSPORT_PATH}`, { method: 'POST', headers, body: typeof body === 'string' ? body : new Uint8Array(body) });
  return { status: response.status, contentType: response.headers.get('content-type'), body: JSON.parse(await response.text()) };
}

const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_projects', arguments: {} } });

test('kernel-level refusals at the transport are JSON-RPC 2.0 errors with the HTTP status and the gateway code', async (t) => {
  const cases: [string, Promise<{ status: number; contentType: string | null; body: any }>, number, number, string][] = [
    ['no content type', post(new TextEncoder().encode(call), null), 415, -32600, 'unsupported_media_type'],
    ['text/plain', post(call, 'text/plain'), 415, -32600, 'unsupported_media_type'],
    ['not JSON', post('{"jsonrpc": "2.0", ', 'application/json'), 400, -32700, 'validation_error'],
    ['nested too deep', post(`${'['.repeat(100)}1${']'.repeat(100)}`, 'application/json'), 400, -32600, 'validation_error'],
    ['NUL in a string', post('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"\\u0000"}}', 'application/json'), 400, -32600, 'validation_error'],
    ['over the body limit', post(`{"a":"${'x'.repeat(1_100_000)}"}`, 'application/json'), 413, -32600, 'payload_too_large'],
  ];
  for (const [name, pending, status, code, errorCode] of cases) {
    const answer = await pending;
    t.is(answer.status, status, name);
    t.regex(answer.contentType ?? '', /^application\/json/, name);
    t.like(answer.body, { jsonrpc: '2.0', id: null, error: { code, data: { error_code: errorCode } } }, name);
    t.is(typeof answer.body.error.message, 'string', name);
  }
  // The REST API keeps its envelope.
  const rest = await fetch(`${gw.url}/api/v1/project`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
  t.like(await rest.json(), { error_code: 'unsupported_media_type' });
});

test('with a path in plugins.oauth.mcpUrl the transport moves there, and its kernel-level refusals stay JSON-RPC errors', async (t) => {
  const moved = await startMcpKernel({ 'plugins.oauth.mcpUrl': 'https://agents.example.com/gateway' });
  t.teardown(() => moved.close());
  const response = await fetch(`${moved.url}/gateway${TRANSPORT_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', authorization: `Bearer ${token}` },
    body: call,
  });
  t.is(response.status, 415);
  t.like(await response.json(), { jsonrpc: '2.0', id: null, error: { code: -32600, data: { error_code: 'unsupported_media_type' } } });
});
