import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { hasScope, type McpPrincipal } from './mcp-credentials.js';
import { toolError, type McpToolbox } from './mcp-toolbox.js';
import { isAppError } from '@gw/kernel';

export const MCP_SERVER_NAME = 'crypto-payment-gateway';
export const MCP_SERVER_VERSION = '0.1.0';

const INSTRUCTIONS =
  'Tools of a self-hosted crypto payment gateway. Call list_projects first: every other tool takes a project_id. Invoices of ' +
  'sandbox projects are driven with the sandbox_simulate_* tools and send real signed webhooks. Errors come back as tool errors whose ' +
  'JSON carries error_code (the REST API codes).';

/**
 * An MCP SDK server exposing the toolbox to one caller. Stateless: the streamable HTTP endpoint
 * builds one per request (the credential is checked on every request); STDIO builds one per
 * process and re-resolves the credential on every call through `principal`.
 */
export function createMcpServer(
  toolbox: McpToolbox,
  principal: () => Promise<McpPrincipal>,
  requestId: () => string,
  options: { rateLimitCalls: boolean },
): Server {
  const server = new Server(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolbox.list() }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    let caller: McpPrincipal;
    try {
      caller = await principal();
    } catch (error) {
      if (isAppError(error)) return toolError(error, requestId());
      throw error;
    }
    // A call refused for its scope runs nothing, so it does not count (as over HTTP, where it is refused before).
    const needed = toolbox.scopeOf(request.params.name);
    if (options.rateLimitCalls && (needed === undefined || hasScope(caller.auth.scopes, needed))) {
      const rate = await toolbox.consumeRate(caller);
      if (!rate.allowed) return toolbox.rateLimited(rate, requestId());
    }
    return toolbox.call(request.params.name, request.params.arguments ?? {}, caller, requestId(), request.params._meta);
  });
  return server;
}
