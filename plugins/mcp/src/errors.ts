import { defineErrors } from '@gw/kernel';

/** Errors of the MCP endpoint (spec 7); `invalid_token` is the OAuth plugin's. */
export const mcpErrors = defineErrors('mcp', {
  insufficient_scope: { status: 403, message: 'The token lacks the scope this tool needs.' },
});
