import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { waitFor, type TestKernel } from '@gw/kernel/testing';
import { verifyWebhook } from '@gw/webhook-verify';
import { callError, callOk, patClient, projectWithPools, rawCall, Receiver, startMcpKernel } from './helpers.js';

const ALL_SCOPES = ['projects:read', 'invoices:read', 'transactions:read', 'webhooks:read', 'invoices:write', 'webhooks:manage', 'sandbox:simulate'];

let gw: TestKernel;
let receiver: Receiver;
let operatorId: string;
let testnet: { projectId: string; secret: string };
let sandbox: { projectId: string; secret: string };
let token: string;

test.before(async () => {
  gw = await startMcpKernel({ 'plugins.address-pool.targetFree': 12 });
  receiver = await Receiver.start();
  const { tenancyOperators, tenancyProjects, tenancyPats, sandboxProjects } = gw.kernel.cradle;
  operatorId = (await tenancyOperators.create('mcp-op', CLI_ACTOR)).id;
  testnet = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  await tenancyProjects.setWebhookUrl(testnet.projectId, `${receiver.url}/testnet`, CLI_ACTOR);
  const provisioned = await sandboxProjects.provision({ name: 'mcp-sandbox', operator: operatorId }, CLI_ACTOR);
  sandbox = { projectId: provisioned.project.id, secret: provisioned.api_key.api_secret };
  await tenancyProjects.setWebhookUrl(sandbox.projectId, `${receiver.url}/sandbox`, CLI_ACTOR);
  token = (await tenancyPats.create({ scopes: ALL_SCOPES, operator: operatorId, name: 'agent' }, CLI_ACTOR)).token;
});

test.after.always(async () => {
  await receiver?.close();
  await gw?.close();
});

test.serial('tools/list shows every tool with a JSON Schema, its scope and a read-only hint', async (t) => {
  const client = await patClient(gw, token);
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name).sort();
  t.deepEqual(names, [
    'cancel_invoice',
    'create_invoice',
    'get_invoice',
    'get_webhook_events',
    'list_invoices',
    'list_projects',
    'retry_webhook',
    'sandbox_clock_advance',
    'sandbox_delete',
    'sandbox_reset',
    'sandbox_simulate_detect',
    'sandbox_simulate_duplicate_delivery',
    'sandbox_simulate_event',
    'sandbox_simulate_expire',
    'sandbox_simulate_late_payment',
    'sandbox_simulate_overpaid',
    'sandbox_simulate_paid',
    'sandbox_simulate_partial',
    'sandbox_simulate_reconfirm',
    'sandbox_simulate_reorg',
  ]);
  const create = tools.find((tool) => tool.name === 'create_invoice')!;
  t.deepEqual(create.inputSchema.required?.slice().sort(), ['coin', 'external_id', 'project_id']);
  t.truthy(create.inputSchema.properties?.['amount_usd']);
  // The coin argument lists the enabled coins, as the REST schema does (bound from config when the kernel starts).
  t.deepEqual((create.inputSchema.properties?.['coin'] as { enum?: string[] }).enum, gw.kernel.cradle.chains.coinIds());
  t.false(JSON.stringify(tools).includes('x-gw-ids'));
  t.false(create.annotations?.readOnlyHint);
  t.regex(create.description!, /Scope: invoices:write\./);
  t.regex(tools.find((tool) => tool.name === 'get_webhook_events')!.description!, /Scope: webhooks:read\./);
  t.true(tools.find((tool) => tool.name === 'list_invoices')!.annotations?.readOnlyHint);
  await client.close();
});

test.serial('a PAT client lists projects and creates, lists, gets and cancels a testnet invoice through the same logic as REST', async (t) => {
  const client = await patClient(gw, token);
  const projects = await callOk(client, 'list_projects', {});
  t.deepEqual(projects.data.map((p: { id: string }) => p.id).sort(), [testnet.projectId, sandbox.projectId].sort());

  const args = { project_id: testnet.projectId, external_id: 'mcp-order-1', coin: 'eth', amount_usd: 12.5 };
  const invoice = await callOk(client, 'create_invoice', args);
  t.is(invoice.status, 'pending');
  t.is(invoice.project_id, testnet.projectId);
  t.is(invoice.amount_usd, 12.5);
  t.regex(invoice.address, /^0x[0-9a-fA-F]{40}$/);
  // Idempotent on external_id, like POST /invoices; a different amount is a conflict.
  t.is((await callOk(client, 'create_invoice', args)).id, invoice.id);
  t.is(await callError(client, 'create_invoice', { ...args, amount_usd: 13 }), 'external_id_conflict');
  // A fiat price (issue 38): the same arguments as the REST body; USD is priced at rate 1 without a provider.
  const priced = await callOk(client, 'create_invoice', {
    project_id: testnet.projectId,
    external_id: 'mcp-order-2',
    coin: 'eth',
    price_currency: 'USD',
    price_amount: '7.25',
  });
  t.like(priced, { price_currency: 'USD', price_amount: '7.25', price_rate: '1', amount_usd: 7.25 });
  t.is(
    await callError(client, 'create_invoice', {
      project_id: testnet.projectId,
      external_id: 'mcp-order-3',
      coin: 'eth',
      price_currency: 'XYZ',
      price_amount: '1',
    }),
    'validation_error',
  );

  const page = await callOk(client, 'list_invoices', { project_id: testnet.projectId, external_id: 'mcp-order-1' });
  t.deepEqual(
    page.items.map((i: { id: string }) => i.id),
    [invoice.id],
  );
  const fetched = await callOk(client, 'get_invoice', { project_id: testnet.projectId, invoice_id: invoice.id });
  t.is(fetched.id, invoice.id);
  t.deepEqual(fetched.transactions, []);
  const cancelled = await callOk(client, 'cancel_invoice', { project_id: testnet.projectId, invoice_id: invoice.id });
  t.is(cancelled.status, 'cancelled');
  t.is(await callError(client, 'cancel_invoice', { project_id: testnet.projectId, invoice_id: invoice.id }), 'invoice_not_cancellable');

  // The writes are audited on channel mcp with the PAT as actor.
  const audit = await gw.kernel.cradle
    .db('kernel_audit_log')
    .where({ target: `invoice:${invoice.id}` })
    .orderBy('id');
  t.true(audit.length >= 2);
  for (const row of audit) {
    t.is(row.channel, 'mcp');
    t.regex(row.actor, /^pat:/);
  }

  const events = await callOk(client, 'get_webhook_events', { project_id: testnet.projectId });
  t.true(Array.isArray(events.items));
  t.is(await callError(client, 'retry_webhook', { project_id: testnet.projectId, event_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }), 'event_not_found');
  await client.close();
});

test.serial('a PAT client drives a sandbox invoice through every simulation and receives the signed webhooks', async (t) => {
  const client = await patClient(gw, token);
  const create = (externalId: string) =>
    callOk(client, 'create_invoice', { project_id: sandbox.projectId, external_id: externalId, coin: 'eth', amount_usd: 20 });
  const simulate = (name: string, invoiceId: string, extra: Record<string, unknown> = {}) =>
    callOk(client, `sandbox_simulate_${name}`, { project_id: sandbox.projectId, invoice_id: invoiceId, ...extra });

  const a = await create('sb-a');
  t.is(a.status, 'pending');
  t.is((await simulate('detect', a.id)).status, 'detected');
  t.is((await simulate('partial', a.id, { fraction: 0.5 })).status, 'detected');
  const paid = await simulate('paid', a.id);
  t.is(paid.status, 'paid');
  const delivered = await waitFor(async () => receiver.forEvent(paid.event_id)[0]);
  const envelope = JSON.parse(delivered.body);
  t.is(envelope.event_type, 'invoice.paid');
  t.is(envelope.mode, 'sandbox');
  t.is(envelope.data.invoice_id, a.id);
  t.true(verifyWebhook({ header: delivered.headers['x-service-signature'] as string, rawBody: delivered.body, secrets: [sandbox.secret] }).ok);
  t.is((await callOk(client, 'get_invoice', { project_id: sandbox.projectId, invoice_id: a.id })).status, 'paid');
  t.is((await simulate('reorg', a.id)).status, 'reverted');
  t.is((await simulate('reconfirm', a.id)).status, 'paid');
  const duplicate = await simulate('duplicate_delivery', a.id);
  // The latest terminal event (the reconfirmed paid) arrives again under the same event_id.
  await waitFor(async () => receiver.forEvent(duplicate.event_id).length >= 2);
  t.pass();

  const b = await create('sb-b');
  await simulate('detect', b.id);
  t.is((await simulate('overpaid', b.id, { multiplier: 1.5 })).status, 'overpaid');

  const c = await create('sb-c');
  t.is((await simulate('expire', c.id)).status, 'expired');
  t.is((await simulate('late_payment', c.id)).status, 'expired_paid_late');

  const d = await create('sb-d');
  const event = await simulate('event', d.id, {
    eventType: 'invoice.detected',
    amountUnits: d.amount_crypto_units,
    confirmations: 0,
    blockHeight: 100,
    expectedCurrentStatus: 'pending',
  });
  t.is(event.status, 'detected');
  t.is(await callError(client, 'sandbox_simulate_paid', { project_id: sandbox.projectId, invoice_id: c.id }), 'sandbox_invoice_transition_invalid');

  const e = await create('sb-e');
  await simulate('detect', e.id);
  const advanced = await callOk(client, 'sandbox_clock_advance', { project_id: sandbox.projectId, chain: 'eth', blocks: 64 });
  t.true(advanced.advanced >= 1);
  t.is((await callOk(client, 'get_invoice', { project_id: sandbox.projectId, invoice_id: e.id })).status, 'paid');

  // Webhook log and resend through the sandbox variant of retry_webhook.
  const log = await callOk(client, 'get_webhook_events', { project_id: sandbox.projectId, invoice_id: a.id, event_type: 'invoice.paid' });
  t.true(log.items.length >= 1);
  const delivered2 = await waitFor(async () => {
    const page = await callOk(client, 'get_webhook_events', {
      project_id: sandbox.projectId,
      status: 'delivered',
      event_type: 'invoice.paid',
      invoice_id: a.id,
    });
    return page.items[0];
  });
  const resend = await callOk(client, 'retry_webhook', { project_id: sandbox.projectId, event_id: delivered2.id });
  t.is(resend.original_event_id, delivered2.id);
  t.not(resend.event_id, delivered2.id);
  await waitFor(async () => receiver.forEvent(resend.event_id)[0]);

  t.is((await callOk(client, 'cancel_invoice', { project_id: sandbox.projectId, invoice_id: (await create('sb-f')).id })).status, 'cancelled');
  t.deepEqual(await callOk(client, 'sandbox_reset', { project_id: sandbox.projectId }), { status: 'reset' });
  t.deepEqual((await callOk(client, 'list_invoices', { project_id: sandbox.projectId })).items, []);

  const doomed = await gw.kernel.cradle.sandboxProjects.provision({ name: 'mcp-doomed', operator: operatorId }, CLI_ACTOR);
  t.deepEqual(await callOk(client, 'sandbox_delete', { project_id: doomed.project.id }), { status: 'deleted' });
  t.is(await callError(client, 'list_invoices', { project_id: doomed.project.id }), 'permission_denied');
  t.is(await callError(client, 'sandbox_delete', { project_id: testnet.projectId }), 'sandbox_project_required');
  await client.close();
});

test.serial('tool errors carry the spec error_code: bad arguments, unknown tools, projects the credential does not reach, wrong project kind', async (t) => {
  const client = await patClient(gw, token);
  t.is(await callError(client, 'get_invoice', { invoice_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }), 'validation_error');
  t.is(await callError(client, 'create_invoice', { project_id: testnet.projectId, external_id: 'x', coin: 'eth', amount_usd: 0.001 }), 'validation_error');
  t.is(await callError(client, 'list_invoices', { project_id: testnet.projectId, surprise: 1 }), 'validation_error');
  // An unknown coin, and one of a chain the build has but config does not enable (ltc).
  for (const coin of ['doge', 'ltc'])
    t.is(await callError(client, 'create_invoice', { project_id: testnet.projectId, external_id: 'x', coin, amount_usd: 5 }), 'validation_error', coin);
  t.is(await callError(client, 'no_such_tool', {}), 'validation_error');
  t.is(await callError(client, 'get_invoice', { project_id: testnet.projectId, invoice_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }), 'invoice_not_found');
  t.is(
    await callError(client, 'sandbox_simulate_detect', { project_id: testnet.projectId, invoice_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }),
    'sandbox_project_required',
  );

  // Another operator's project and a project-bound PAT's neighbour are both unreachable.
  const other = await gw.kernel.cradle.tenancyOperators.create('mcp-other', CLI_ACTOR);
  const foreign = await gw.kernel.cradle.tenancyProjects.create({ name: 'foreign', kind: 'testnet', operator: other.id }, CLI_ACTOR);
  t.is(await callError(client, 'list_invoices', { project_id: foreign.project.id }), 'permission_denied');
  const bound = await gw.kernel.cradle.tenancyPats.create({ scopes: ['invoices:read', 'projects:read'], project: testnet.projectId }, CLI_ACTOR);
  const boundClient = await patClient(gw, bound.token);
  t.is(await callError(boundClient, 'list_invoices', { project_id: sandbox.projectId }), 'permission_denied');
  t.deepEqual(
    (await callOk(boundClient, 'list_projects', {})).data.map((p: { id: string }) => p.id),
    [testnet.projectId],
  );

  // A suspended operator subscription blocks writes on testnet projects (402), not reads.
  await gw.kernel.cradle.db('tenancy_operators').where({ id: operatorId }).update({ subscription_status: 'expired' });
  try {
    t.is(
      await callError(client, 'create_invoice', { project_id: testnet.projectId, external_id: 'blocked', coin: 'eth', amount_usd: 5 }),
      'subscription_expired',
    );
    t.truthy(await callOk(client, 'list_invoices', { project_id: testnet.projectId }));
  } finally {
    await gw.kernel.cradle.db('tenancy_operators').where({ id: operatorId }).update({ subscription_status: 'active' });
  }
  await boundClient.close();
  await client.close();
});

test.serial('no credential, an unknown or revoked token: 401 with the Bearer challenge; nothing reaches a tool', async (t) => {
  const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_projects', arguments: {} } };
  const none = await rawCall(gw, call);
  t.is(none.status, 401);
  t.is(none.headers.get('www-authenticate'), `Bearer realm="service-mcp", resource_metadata="${gw.url}/.well-known/oauth-protected-resource"`);
  t.is(none.body.error.data.error_code, 'invalid_token');
  t.is(none.body.id, 7);

  const unknown = await rawCall(gw, call, 'svc_pat_' + 'x'.repeat(32));
  t.is(unknown.status, 401);
  t.regex(unknown.headers.get('www-authenticate')!, /^Bearer realm="service-mcp", error="invalid_token", error_description="[^"]+", resource_metadata="/);

  const pat = await gw.kernel.cradle.tenancyPats.create({ scopes: ['projects:read'], operator: operatorId }, CLI_ACTOR);
  t.is((await rawCall(gw, call, pat.token)).status, 200);
  await gw.kernel.cradle.tenancyPats.revoke(pat.id, CLI_ACTOR);
  const revoked = await rawCall(gw, call, pat.token);
  t.is(revoked.status, 401);
  t.is(revoked.body.error.data.error_code, 'invalid_token');
});

test.serial('a missing scope is 403 insufficient_scope with the challenge and the JSON-RPC error body of spec 7', async (t) => {
  const reader = await gw.kernel.cradle.tenancyPats.create({ scopes: ['invoices:read', 'projects:read'], operator: operatorId }, CLI_ACTOR);
  const call = {
    jsonrpc: '2.0',
    id: 'c1',
    method: 'tools/call',
    params: { name: 'create_invoice', arguments: { project_id: testnet.projectId, external_id: 'nope', coin: 'eth', amount_usd: 1 } },
  };
  const refused = await rawCall(gw, call, reader.token);
  t.is(refused.status, 403);
  t.is(
    refused.headers.get('www-authenticate'),
    `Bearer error="insufficient_scope", scope="invoices:write", resource_metadata="${gw.url}/.well-known/oauth-protected-resource", error_description="The tool create_invoice needs the scope invoices:write."`,
  );
  t.deepEqual(refused.body, {
    jsonrpc: '2.0',
    id: 'c1',
    error: { code: -32600, message: 'The tool create_invoice needs the scope invoices:write.', data: { error_code: 'insufficient_scope' } },
  });
  t.is((await gw.kernel.cradle.db('invoices_invoices').where({ external_id: 'nope' })).length, 0);

  // The SDK client sees the refusal as an error; reads with the scope it has still work.
  const client = await patClient(gw, reader.token);
  await t.throwsAsync(client.callTool({ name: 'get_webhook_events', arguments: { project_id: testnet.projectId } }), { message: /insufficient_scope/ });
  t.truthy(await callOk(client, 'list_invoices', { project_id: testnet.projectId }));
  await client.close();
});
