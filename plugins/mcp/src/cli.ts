import { defineCommand, newId, type CliCommand } from '@gw/kernel';
import { oauthErrors } from '@gw/plugin-oauth/contract';
import { PAT_PREFIX } from '@gw/plugin-tenancy/contract';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from './services/mcp-server-factory.js';

/** Operator CLI: the tool catalogue, and the STDIO server for local agents. */
export const mcpCommands: CliCommand[] = [
  defineCommand(['mcpToolbox'], {
    noun: 'mcp',
    verb: 'tools',
    summary: 'Every MCP tool this deployment serves, with the scope it needs.',
    flags: {},
    run: async ({ deps }) => ({
      tools: deps.mcpToolbox.list().map((tool) => ({ name: tool.name, scope: deps.mcpToolbox.scopeOf(tool.name), read_only: tool.annotations.readOnlyHint })),
    }),
  }),
  defineCommand(['mcpCredentials', 'mcpToolbox'], {
    noun: 'mcp',
    verb: 'stdio',
    summary: 'Serve the MCP tools over STDIO (JSON-RPC on stdin/stdout) for a local agent, authenticated by a PAT.',
    flags: {
      token: { type: 'string', description: 'The PAT (svc_pat_...). Default: the GW_MCP_TOKEN environment variable (keeps it out of the process list).' },
    },
    help:
      'Example agent configuration: command "pnpm", args ["--silent", "gateway", "mcp", "stdio"], env { "GW_MCP_TOKEN": "svc_pat_..." }.\n' +
      'Only PATs are accepted here (OAuth tokens are for the HTTP endpoint). The token is checked at start and again on every tool call, so a\n' +
      'revoked PAT stops working at once; calls count against the same per-token limit as over HTTP. Logs go to stderr; stdout carries only\n' +
      'JSON-RPC. The process ends when stdin closes.',
    ownsStdout: true,
    run: async ({ flags, deps }) => {
      const token = String(flags['token'] ?? process.env['GW_MCP_TOKEN'] ?? '');
      if (!token.startsWith(PAT_PREFIX)) throw oauthErrors.invalid_token({ message: 'mcp stdio needs a PAT (svc_pat_...) in --token or GW_MCP_TOKEN.' });
      const principal = async () => {
        const resolved = await deps.mcpCredentials.resolve(token, '');
        if (!resolved.ok)
          throw oauthErrors.invalid_token({ message: `The PAT is ${resolved.problem === 'unknown' ? 'unknown or revoked' : resolved.problem}.` });
        return resolved.principal;
      };
      await principal();
      const server = createMcpServer(deps.mcpToolbox, principal, () => newId(), { rateLimitCalls: true });
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => {
        transport.onclose = () => resolve();
        process.stdin.once('end', () => resolve());
      });
      await server.connect(transport);
      await closed;
      await server.close().catch(() => undefined);
      return {};
    },
  }),
];
