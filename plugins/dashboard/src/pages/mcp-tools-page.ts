import { html } from '@gw/kernel';
import { table } from '../web/components.js';
import { definePage, page } from '../web/dashboard-page.js';

/**
 * The MCP tools agents can call (`gateway mcp tools`), read from the kernel's collected
 * `mcpTools` (every enabled plugin's McpToolDefinitions), so the page needs no dependency on the
 * mcp plugin and still renders when it is disabled. Read-only, for every signed-in user.
 */
export const mcpToolsPage = definePage({
  nav: { label: 'MCP tools', scope: 'operator', path: '/dashboard/mcp-tools', order: 60 },
  cli: ['mcp tools'],
  summary: 'The MCP tools agents can use: name, description, the scope a token needs, and whether it writes.',
  render: async (req) => {
    // Two plugins may declare one tool name for different project kinds; like the MCP listing,
    // the first variant describes it (variants share their scope).
    const tools = new Map<string, (typeof req.services.mcpTools)[number]>();
    for (const tool of req.services.mcpTools) if (!tools.has(tool.name)) tools.set(tool.name, tool);
    const rows = [...tools.values()].map((tool) => [
      html`<code>${tool.name}</code>`,
      tool.description,
      html`<code>${tool.scope}</code>`,
      tool.writes ? 'writes' : 'read-only',
    ]);
    return page(
      'MCP tools',
      html`<h1>MCP tools</h1>
<p class="note">What an AI agent connected over MCP (a personal access token or an OAuth app) can call; each call acts on one project the token reaches and needs the scope shown. The MCP server also offers <code>list_projects</code>, which lists the projects a token reaches. The tools are served when the mcp plugin is enabled.</p>
${table('MCP tools', ['Tool', 'What it does', 'Scope needed', 'Effect'], rows, 'No enabled plugin offers MCP tools.')}`,
    );
  },
});
