/**
 * The contract of the mcp plugin (the MCP server): the services it registers and
 * what other plugins may import from it (`@gw/plugin-mcp/contract`), nothing else (ADR 0009).
 * Services are exported as types: other plugins receive them from the container, declared
 * with `withDeps`/`service`, and never construct them.
 */
import type { ServiceName } from '@gw/kernel';
import type { McpConfig } from './config.js';
import type { McpCredentials } from './services/mcp-credentials.js';
import type { McpToolbox } from './services/mcp-toolbox.js';

declare module '@gw/kernel' {
  interface Cradle {
    readonly mcpConfig: McpConfig;
    readonly mcpCredentials: McpCredentials;
    readonly mcpToolbox: McpToolbox;
  }
}

/**
 * The services other plugins may declare (ADR 0009); the plugin's other services are its own and
 * start-up refuses another plugin's declaration of one.
 */
export const MCP_EXPORTS: readonly ServiceName[] = [];
