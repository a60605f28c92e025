import { defineRoute, type ErrorFormat, type RouteDefinition, trimTrailing, withDeps } from '@gw/kernel';
import { MCP_TRANSPORT_PATH, type OAuthAddresses } from '@gw/plugin-oauth/contract';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import Type from 'typebox';
import { hasScope, type McpCredentialProblem } from './services/mcp-credentials.js';
import { createMcpServer } from './services/mcp-server-factory.js';

/** `realm` of every challenge (spec 5.4 rule 1). */
export const MCP_REALM = 'service-mcp';

/** JSON-RPC code of the spec's scope-failure body (section 7); used for every refusal before the SDK. */
const INVALID_REQUEST = -32600;

const PROBLEMS: Record<McpCredentialProblem, string> = {
  unknown: 'The token is unknown.',
  revoked: 'The token has been revoked.',
  expired: 'The token has expired.',
  lineage_revoked: 'The token belongs to a revoked lineage.',
  wrong_resource: 'The token was issued for another resource.',
  user_disabled: 'The user of this token is disabled.',
};

/** JSON-RPC 2.0's codes for a body that is not JSON, and for a failure of the server itself. */
const PARSE_ERROR = -32700;
const INTERNAL_ERROR = -32603;

/**
 * Errors the kernel answers at the transport before the route runs (415 content type, 413 body
 * size, 400 unparseable or too deeply nested JSON, 400 text the database cannot hold, 405 method,
 * 503 draining) in JSON-RPC 2.0's shape, as every other answer of the endpoint is: `id` null (the
 * request was not read), the HTTP status kept, the gateway's code in `error.data.error_code`.
 * `pathPrefix` is the transport's path on this server (see `transportPath`).
 */
export const mcpErrorFormat = (pathPrefix: string): ErrorFormat => ({
  pathPrefix,
  render: ({ error }) => {
    const parse =
      error.code === 'validation_error' && (error.details as { field?: unknown } | undefined)?.field === 'body' && /not valid JSON/.test(error.message);
    const code = parse ? PARSE_ERROR : error.status >= 500 ? INTERNAL_ERROR : INVALID_REQUEST;
    return {
      status: error.status,
      headers: { 'Content-Type': 'application/json' },
      body: {
        jsonrpc: '2.0',
        id: null,
        error: { code, message: error.message, data: { error_code: error.code, ...(error.details ? { details: error.details } : {}) } },
      },
    };
  },
});

/** Path of the transport on this server: the path of {mcp_url} (if any) plus /api/mcp/transport. */
export function transportPath(mcpUrl: string | undefined): string {
  const prefix = mcpUrl ? trimTrailing(new URL(mcpUrl).pathname, '/') : '';
  return `${prefix}${MCP_TRANSPORT_PATH}`;
}

/**
 * `POST {mcp_url}/api/mcp/transport` (spec 4.6, 5.4): the MCP SDK's streamable HTTP transport,
 * stateless (a server per request, JSON responses). Before the SDK sees a message the endpoint
 * checks the bearer credential (401 challenges), the scope of every `tools/call` (403
 * `insufficient_scope` challenge with the JSON-RPC body of spec 7) and the per-token call rate
 * (429 with Retry-After).
 */
export const mcpRoutes = withDeps(['oauthConfig', 'oauthUrls', 'mcpCredentials', 'mcpToolbox', 'logger'], (deps): RouteDefinition[] => {
  return [
    defineRoute({
      method: 'POST',
      path: transportPath(deps.oauthConfig.mcpUrl),
      hidden: true,
      summary: 'MCP streamable HTTP transport (JSON-RPC 2.0).',
      tags: ['mcp'],
      auth: 'none',
      body: Type.Unknown(),
      handler: async ({ ctx, body, requestId }) => {
        const addresses = deps.oauthUrls.forRequest(ctx);
        const messages = (Array.isArray(body) ? body : [body]) as { id?: unknown; method?: unknown; params?: { name?: unknown } }[];
        const id = messages.find((m) => m && typeof m === 'object' && m.id !== undefined)?.id ?? null;
        const token = /^Bearer +([^\s]+)$/i.exec(ctx.get('authorization'))?.[1];
        if (!token) {
          return refusal(
            401,
            challenge(addresses, [
              ['realm', MCP_REALM],
              ['resource_metadata', ''],
            ]),
            id,
            'invalid_token',
            'This endpoint needs Authorization: Bearer <token> (an OAuth access token or a PAT).',
          );
        }
        const resolved = await deps.mcpCredentials.resolve(token, addresses.resource);
        if (!resolved.ok) {
          const description = PROBLEMS[resolved.problem];
          return refusal(
            401,
            challenge(addresses, [
              ['realm', MCP_REALM],
              ['error', 'invalid_token'],
              ['error_description', description],
              ['resource_metadata', ''],
            ]),
            id,
            'invalid_token',
            description,
          );
        }
        const principal = resolved.principal;
        const calls = messages.filter((m) => m && typeof m === 'object' && m.method === 'tools/call');
        // Notifications (no id) are never answered or run: only calls with an id count against the limit.
        const counted = calls.filter((m) => m.id !== undefined && m.id !== null);
        for (const call of calls) {
          const name = typeof call.params?.name === 'string' ? call.params.name : '';
          const needed = deps.mcpToolbox.scopeOf(name);
          if (needed !== undefined && !hasScope(principal.auth.scopes, needed)) {
            const description = `The tool ${name} needs the scope ${needed}.`;
            return refusal(
              403,
              challenge(addresses, [
                ['error', 'insufficient_scope'],
                ['scope', needed],
                ['resource_metadata', ''],
                ['error_description', description],
              ]),
              call.id ?? null,
              'insufficient_scope',
              description,
            );
          }
        }
        if (counted.length > 0) {
          const rate = await deps.mcpToolbox.consumeRate(principal, counted.length);
          if (!rate.allowed) {
            const error = deps.mcpToolbox.rateLimitError(rate);
            return { status: 429, headers: { 'Retry-After': String(rate.retryAfter) }, body: jsonRpcError(id, error.code, error.message) };
          }
        }
        await serve(
          ctx,
          body,
          () =>
            createMcpServer(
              deps.mcpToolbox,
              async () => principal,
              () => requestId,
              { rateLimitCalls: false },
            ),
          deps.logger,
        );
        return {};
      },
    }),
  ];
});

async function serve(ctx: Context, body: unknown, build: () => ReturnType<typeof createMcpServer>, logger: Logger): Promise<void> {
  const server = build();
  const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
  ctx.res.on('close', () => {
    transport.close().catch(() => undefined);
    server.close().catch(() => undefined);
  });
  await server.connect(transport);
  // From here the SDK writes the response itself; Koa must not.
  ctx.respond = false;
  try {
    await transport.handleRequest(ctx.req, ctx.res, body);
  } catch (error) {
    logger.error({ err: error }, 'MCP transport failed');
    if (!ctx.res.headersSent) {
      ctx.res.writeHead(500, { 'content-type': 'application/json' });
      ctx.res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error', data: { error_code: 'internal_error' } } }));
    } else ctx.res.end();
  }
}

/** A Bearer challenge with its parameters in the given order (`resource_metadata` stands for the URL). */
function challenge(addresses: OAuthAddresses, params: readonly (readonly [string, string])[]): string {
  const value = (name: string, raw: string) => (name === 'resource_metadata' ? addresses.protectedResourceMetadataUrl : raw.replace(/["\\]/g, ''));
  return `Bearer ${params.map(([name, raw]) => `${name}="${value(name, raw)}"`).join(', ')}`;
}

function refusal(status: number, wwwAuthenticate: string, id: unknown, errorCode: string, message: string) {
  return { status, headers: { 'WWW-Authenticate': wwwAuthenticate, 'Cache-Control': 'no-store' }, body: jsonRpcError(id, errorCode, message) };
}

function jsonRpcError(id: unknown, errorCode: string, message: string) {
  return {
    jsonrpc: '2.0',
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
    error: { code: INVALID_REQUEST, message, data: { error_code: errorCode } },
  };
}
