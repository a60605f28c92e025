import { definePlugin, service, serviceValue, withDeps } from '@gw/kernel';
import { MCP_EXPORTS } from './contract.js';
import { mcpCommands } from './cli.js';
import { McpConfigSchema } from './config.js';
import { mcpErrors } from './errors.js';
import { mcpErrorFormat, mcpRoutes, transportPath } from './routes.js';
import { McpCredentials } from './services/mcp-credentials.js';
import { McpToolbox } from './services/mcp-toolbox.js';

/**
 * The MCP server (spec 4.6, 5.3, 5.4): every plugin's `mcpTools` over the MCP SDK's streamable
 * HTTP transport at {mcp_url}/api/mcp/transport and over STDIO (`gateway mcp stdio`), for OAuth
 * access tokens (read scopes) and PATs, with scope challenges and a per-token call limit.
 * See plugins/mcp/README.md and docs/mcp.md.
 */
export const mcpPlugin = definePlugin({
  id: 'mcp',
  dependsOn: ['tenancy', 'oauth'],
  exports: MCP_EXPORTS,
  config: McpConfigSchema,
  errors: [mcpErrors],
  register: ({ config, logger }) => ({
    mcpConfig: serviceValue(config),
    mcpCredentials: service(['tenancyPats', 'tenancyUsers', 'oauthTokens'], (deps) => new McpCredentials(deps)),
    mcpToolbox: service(
      ['mcpTools', 'tenancyProjects', 'rateLimiter', 'extensions'],
      (deps) =>
        new McpToolbox({
          mcpTools: deps.mcpTools,
          tenancyProjects: deps.tenancyProjects,
          rateLimiter: deps.rateLimiter,
          extensions: deps.extensions,
          logger,
          mcpConfig: config,
        }),
    ),
  }),
  routes: mcpRoutes,
  errorFormats: withDeps(['oauthConfig'], (deps) => [mcpErrorFormat(transportPath(deps.oauthConfig.mcpUrl))]),
  cli: mcpCommands,
  // Built at start, so clashing tool declarations stop the start instead of failing a request.
  start: withDeps(['mcpToolbox'], async (deps) => {
    void deps.mcpToolbox;
  }),
});

export * from './contract.js';
export { McpConfigSchema, type McpConfig } from './config.js';
export { mcpErrors } from './errors.js';
export { MCP_REALM, mcpErrorFormat, transportPath } from './routes.js';
export { McpCredentials, hasScope, type McpPrincipal } from './services/mcp-credentials.js';
export { McpToolbox, type ListedTool, type ToolCallResult } from './services/mcp-toolbox.js';
export { MCP_SERVER_NAME, MCP_SERVER_VERSION } from './services/mcp-server-factory.js';
