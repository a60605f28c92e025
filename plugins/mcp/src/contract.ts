/**
 * The contract of the mcp plugin (the MCP server): the services it registers and
 * what other plugins may import from it (`@gw/plugin-mcp/contract`), nothing else (ADR 0009).
 * Services are exported as types: other plugins receive them from the container, declared
 * with `withDeps`/`service`, and never construct them.
 */
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

