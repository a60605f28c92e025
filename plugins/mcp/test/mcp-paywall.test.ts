import test from 'ava';
import { CLI_ACTOR, contribute, defineErrors, defineMcpTool, definePlugin, mcpArguments, MCP_PAYWALLS, withDeps, type PaidToolCall } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { startSandboxKernel } from '@gw/plugin-sandbox/testing';
import Type from 'typebox';
import { callError, MCP_PLUGINS, patClient, rawToolCall } from './helpers.js';

// A paywall as a payment plugin contributes it (x402 is the real one): it answers the calls of the
// tool it guards, runs the handler only for a call whose `_meta` carries its payment, and adds its
// receipt to the result.

const paywallTestErrors = defineErrors('paywall-test', { echo_refused: { status: 422, message: 'The echo was refused.' } });

const seen: PaidToolCall[] = [];
const runs: string[] = [];

const paywallTestPlugin = definePlugin({
  id: 'paywall-test',
  dependsOn: ['mcp'],
  errors: [paywallTestErrors],
  mcpTools: withDeps([], () => [
    defineMcpTool({
      name: 'paid_echo',
      title: 'Paid echo',
      description: 'Echoes its text, for a price.',
      input: mcpArguments({ text: Type.String({ maxLength: 20 }) }),
      scope: 'invoices:read',
      writes: false,
      handler: async ({ args }) => {
        runs.push(args.text);
        if (args.text === 'refuse') throw paywallTestErrors.echo_refused();
        return { echo: args.text };
      },
    }),
  ]),
  contributes: [
    contribute(
      MCP_PAYWALLS,
      withDeps([], () => [
        {
          id: 'test',
          guards: (tool: string) => tool === 'paid_echo',
          call: async (call: PaidToolCall) => {
            seen.push(call);
            const payment = call.meta?.['test/payment'];
            if (payment !== 'coin') {
              const required = { accepts: ['coin'] };
              return { isError: true, structuredContent: required, content: [{ type: 'text' as const, text: JSON.stringify(required) }] };
            }
            const result = await call.run();
            return result.isError ? result : { ...result, _meta: { 'test/receipt': `paid ${call.tool} in ${call.project.id}` } };
          },
        },
      ]),
    ),
  ],
});

let gw: TestKernel;
let projectId: string;
let token: string;
let readOnly: string;

test.before(async () => {
  gw = await startSandboxKernel({ 'plugins.mcp.toolCallsPerMinute': 1000 }, [...MCP_PLUGINS, paywallTestPlugin]);
  const { tenancyOperators, tenancyProjects, tenancyPats } = gw.kernel.cradle;
  const operatorId = (await tenancyOperators.create('paywall-op', CLI_ACTOR)).id;
  projectId = (await tenancyProjects.create({ name: 'paid', kind: 'testnet', operator: operatorId }, CLI_ACTOR)).project.id;
  token = (await tenancyPats.create({ scopes: ['projects:read', 'invoices:read'], operator: operatorId }, CLI_ACTOR)).token;
  readOnly = (await tenancyPats.create({ scopes: ['projects:read'], operator: operatorId }, CLI_ACTOR)).token;
});

test.after.always(async () => {
  await gw?.close();
});

test.serial('a guarded tool without its payment gets the paywall’s answer and does not run', async (t) => {
  const client = await patClient(gw, token);
  const result = await client.callTool({ name: 'paid_echo', arguments: { project_id: projectId, text: 'free' } });
  t.true(result.isError);
  t.deepEqual(result.structuredContent, { accepts: ['coin'] });
  t.false(runs.includes('free'));
  t.is(seen.at(-1)!.tool, 'paid_echo');
  t.is(seen.at(-1)!.project.id, projectId);
  t.like(seen.at(-1)!.actor, { channel: 'mcp' });
  t.regex(seen.at(-1)!.actor.actor, /^pat:/);
  await client.close();
});

test.serial('the request’s _meta reaches the paywall, which runs the tool and adds to its result', async (t) => {
  const client = await patClient(gw, token);
  const result = await client.callTool({ name: 'paid_echo', arguments: { project_id: projectId, text: 'hello' }, _meta: { 'test/payment': 'coin' } });
  t.falsy(result.isError);
  t.deepEqual(result.structuredContent, { echo: 'hello' });
  t.deepEqual(result._meta, { 'test/receipt': `paid paid_echo in ${projectId}` });
  t.deepEqual(runs, ['hello']);
  await client.close();
});

test.serial('the handler’s failure reaches the paywall as a tool error (so it is not settled), with its error_code', async (t) => {
  const client = await patClient(gw, token);
  const result = await client.callTool({ name: 'paid_echo', arguments: { project_id: projectId, text: 'refuse' }, _meta: { 'test/payment': 'coin' } });
  t.true(result.isError);
  t.is((result.structuredContent as { error_code: string }).error_code, 'echo_refused');
  t.is(result._meta, undefined);
  await client.close();
});

test.serial('scope, arguments and project reach are checked before the paywall is asked', async (t) => {
  const before = seen.length;
  t.is((await rawToolCall(gw, 'paid_echo', { project_id: projectId, text: 'x' }, readOnly)).status, 403);
  const client = await patClient(gw, token);
  t.is(await callError(client, 'paid_echo', { project_id: projectId, text: 'x'.repeat(21) }), 'validation_error');
  t.is(await callError(client, 'paid_echo', { project_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', text: 'x' }), 'permission_denied');
  t.is(seen.length, before);
  await client.close();
});
