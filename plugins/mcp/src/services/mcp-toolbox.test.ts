import test from 'ava';
import { defineMcpTool, mcpArguments, type McpToolDefinition } from '@gw/kernel';
import { pino } from 'pino';
import Type from 'typebox';
import { McpToolbox } from './mcp-toolbox.js';

const tool = (name: string): McpToolDefinition =>
  defineMcpTool({
    name,
    title: name,
    description: name,
    input: mcpArguments({ n: Type.Optional(Type.Integer()) }),
    scope: 'invoices:read',
    writes: false,
    errors: [],
    handler: async () => ({}),
  });

const toolbox = (mcpTools: McpToolDefinition[]) =>
  new McpToolbox({
    mcpTools,
    tenancyProjects: {} as never,
    rateLimiter: {} as never,
    extensions: {} as never,
    logger: pino({ level: 'silent' }),
    mcpConfig: {} as never,
  });

test('clashing tool declarations are refused when the toolbox is built (at start), not at the first request', (t) => {
  t.notThrows(() => toolbox([tool('get_thing'), tool('other_thing')]));
  t.throws(() => toolbox([tool('get_thing'), tool('get_thing')]), { message: /declared twice/ });
  t.throws(() => toolbox([tool('list_projects')]), { message: /reserved/ });
});
