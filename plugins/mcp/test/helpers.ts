import type { TestKernel } from '@gw/kernel/testing';
import { oauthPlugin } from '@gw/plugin-oauth';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SANDBOX_PLUGINS, startSandboxKernel } from '@gw/plugin-sandbox/testing';
import { mcpPlugin } from '../src/index.js';

export { Receiver } from '@gw/plugin-webhooks/testing';
export { projectWithPools } from '@gw/testing';

export const MCP_PLUGINS = [...SANDBOX_PLUGINS, oauthPlugin, mcpPlugin];
export const TRANSPORT_PATH = '/api/mcp/transport';

/** The sandbox test gateway (workers, fixed rates, local receivers) with the OAuth and MCP plugins. */
export function startMcpKernel(config: Record<string, unknown> = {}): Promise<TestKernel> {
  return startSandboxKernel({ 'plugins.sandbox.clockAdvanceRateLimitPerMinute': 1000, 'plugins.mcp.toolCallsPerMinute': 1000, ...config }, MCP_PLUGINS);
}

/** The MCP SDK's own client over streamable HTTP, sending `Authorization: Bearer <token>`. */
export async function patClient(gw: TestKernel, token: string): Promise<Client> {
  const client = new Client({ name: 'gateway-test-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gw.url}${TRANSPORT_PATH}`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/** A raw JSON-RPC POST to the transport, for checking status codes and headers. */
export async function rawCall(gw: TestKernel, body: unknown, token?: string): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(`${gw.url}${TRANSPORT_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** A raw JSON-RPC `tools/call` of `name` with `args` (request id: `id`, else the tool's name), for checking how the transport answers it. */
export function rawToolCall(gw: TestKernel, name: string, args: Record<string, unknown>, token: string, id: string = name): ReturnType<typeof rawCall> {
  return rawCall(gw, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }, token);
}

/** What the transport answers (a subset, for `t.like`) when the token lacks the tool's `scope`: 403 and a JSON-RPC error naming the scope. */
export function scopeRefusal(name: string, scope: string): { status: number; body: object } {
  return { status: 403, body: { error: { message: `The tool ${name} needs the scope ${scope}.`, data: { error_code: 'insufficient_scope' } } } };
}

/** The structured result of a successful tool call; fails the test with the tool error otherwise. */
export async function callOk(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent ?? result.content)}`);
  return result.structuredContent;
}

/** The `error_code` of a tool call expected to fail; fails the test when it succeeds. */
export async function callError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  if (!result.isError) throw new Error(`${name} unexpectedly succeeded: ${JSON.stringify(result.structuredContent)}`);
  return (result.structuredContent as { error_code: string }).error_code;
}
