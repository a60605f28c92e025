/**
 * The MCP tools of checkout sessions and payment links (issue 38) over the MCP plugin's streamable
 * HTTP transport, with the MCP SDK's own client and a PAT, on a sandbox project: an agent creates a
 * payment link (the issue's `create_payment_link`) and a checkout session, lists links and reads a
 * session; bad input comes back as the services' error codes; the scopes are the invoice tools'.
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { MCP_PLUGINS, callError, callOk, patClient, rawCall } from '@gw/plugin-mcp/testing';
import { startSandboxKernel } from '@gw/plugin-sandbox/testing';
import { watchersPlugin } from '@gw/plugin-watchers';
import { checkoutPlugin } from '@gw/plugin-checkout';
import { sessionsPlugin } from '../src/index.js';

let gw: TestKernel;
let operatorId: string;
let projectId: string;

test.before(async () => {
  gw = await startSandboxKernel({ 'plugins.mcp.toolCallsPerMinute': 1000 }, [...MCP_PLUGINS, watchersPlugin, checkoutPlugin, sessionsPlugin]);
  operatorId = (await gw.kernel.cradle.tenancyOperators.create('sessions-mcp', CLI_ACTOR)).id;
  projectId = (await gw.kernel.cradle.sandboxProjects.provision({ name: 'shop', operator: operatorId }, CLI_ACTOR)).project.id;
});
test.after.always(async () => {
  await gw?.close();
});

const tokenWith = async (scopes: string[]) => (await gw.kernel.cradle.tenancyPats.create({ scopes, operator: operatorId }, CLI_ACTOR)).token;

test.serial('an agent creates a payment link and a checkout session, lists links and reads the session', async (t) => {
  const client = await patClient(gw, await tokenWith(['invoices:read', 'invoices:write']));
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  for (const name of ['create_payment_link', 'create_checkout_session', 'list_payment_links', 'get_checkout_session']) t.true(byName.has(name), name);
  t.true(byName.get('list_payment_links')!.annotations?.readOnlyHint);
  t.true(byName.get('get_checkout_session')!.annotations?.readOnlyHint);
  t.false(byName.get('create_payment_link')!.annotations?.readOnlyHint ?? false);
  t.regex(byName.get('create_payment_link')!.description ?? '', /picks the coin/);

  // A ranged link under an idempotency key: sent twice, the second answers the first.
  const tipJar = {
    project_id: projectId,
    price_currency: 'USD',
    min_amount: '5',
    max_amount: '500',
    allowed_coins: ['btc', 'usdt_trc20'],
    description: 'Tip jar',
    idempotency_key: 'agent-link-1',
  };
  const link = await callOk(client, 'create_payment_link', tipJar);
  t.like(link, { object: 'payment_link', project_id: projectId, active: true, price_amount: null, min_amount: '5.00', max_amount: '500.00', uses: 0 });
  t.deepEqual(link.allowed_coins, ['btc', 'usdt_trc20']);
  t.regex(link.url, /\/l\/[0-9a-f]{32}$/);
  t.is(link.qr_url, `${link.url}/qr.svg`);
  const replay = await callOk(client, 'create_payment_link', tipJar);
  t.is(replay.id, link.id, 'the same key answers the first link');
  const audit = await gw.kernel.cradle.audit.list({ projectIds: [projectId], target: `payment_link:${link.id}`, limit: 10 });
  t.true(audit.items.some((row) => row.channel === 'mcp'));

  const listed = await callOk(client, 'list_payment_links', { project_id: projectId });
  t.deepEqual(
    listed.items.map((l: { id: string }) => l.id),
    [link.id],
  );
  t.deepEqual((await callOk(client, 'list_payment_links', { project_id: projectId, active: false })).items, []);

  const session = await callOk(client, 'create_checkout_session', {
    project_id: projectId,
    price_currency: 'USD',
    price_amount: '42.5',
    line_items: [
      { name: 'Beans', quantity: 1, unit_amount: '25' },
      { name: 'Brush', quantity: 2, unit_amount: '8.75' },
    ],
    external_id: 'agent-order-1',
  });
  t.like(session, {
    object: 'checkout_session',
    status: 'open',
    price_currency: 'USD',
    price_amount: '42.50',
    external_id: 'agent-order-1',
    coin: null,
    invoices: [],
  });
  t.regex(session.url, /\/pay\/[0-9a-f]{32}$/);
  const read = await callOk(client, 'get_checkout_session', { project_id: projectId, checkout_session_id: session.id });
  t.deepEqual(read, session);
  await client.close();
});

test.serial('bad input is the services’ error code and creates nothing; a reader cannot create', async (t) => {
  const client = await patClient(gw, await tokenWith(['invoices:read', 'invoices:write']));
  const links = async () => (await gw.kernel.cradle.sessionsLinks.list({ projectId, limit: 200 })).items.length;
  const before = await links();
  t.is(await callError(client, 'create_payment_link', { project_id: projectId, price_currency: 'XYZ', price_amount: '5' }), 'validation_error');
  t.is(
    await callError(client, 'create_payment_link', { project_id: projectId, price_currency: 'USD', price_amount: '5', allowed_coins: ['nocoin'] }),
    'coin_not_allowed',
  );
  t.is(await callError(client, 'create_payment_link', { project_id: projectId, price_currency: 'USD', price_amount: '5', address: 'x' }), 'validation_error');
  t.is(await callError(client, 'create_checkout_session', { project_id: projectId, price_currency: 'USD' }), 'validation_error');
  t.is(
    await callError(client, 'get_checkout_session', { project_id: projectId, checkout_session_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }),
    'checkout_session_not_found',
  );
  t.is(await links(), before);
  await client.close();

  const reader = await tokenWith(['invoices:read']);
  for (const name of ['create_payment_link', 'create_checkout_session']) {
    const refused = await rawCall(
      gw,
      { jsonrpc: '2.0', id: name, method: 'tools/call', params: { name, arguments: { project_id: projectId, price_currency: 'USD', price_amount: '5' } } },
      reader,
    );
    t.is(refused.status, 403, name);
    t.is(refused.body.error.data.error_code, 'insufficient_scope');
    t.is(refused.body.error.message, `The tool ${name} needs the scope invoices:write.`);
  }
  t.is(await links(), before);
});
