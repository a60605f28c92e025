import { configSlice } from '@gw/kernel';
import Type, { type Static } from 'typebox';

/** Config slice `plugins.mcp` (plugins/mcp/README.md). */
export const McpConfigSchema = configSlice({
  toolCallsPerMinute: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 60,
    description: 'Tool calls per minute per token (spec 8, `mcp_tool_per_token`), one pool for PATs and OAuth tokens.',
  }),
});

export type McpConfig = Static<typeof McpConfigSchema>;
