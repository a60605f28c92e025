import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { CLI_ACTOR } from '@gw/kernel';
import { MailSink, signedInUser, startDashboardKernel } from './kernel.js';
import { stopAll } from '@gw/testing';

// The MCP tools page (`gateway mcp tools`) and the readiness page (`gateway doctor`) over HTTP, for
// an administrator and a read-only member; the readiness page names only the user's own
// operator's projects. The kernel here runs without the mcp plugin: the tools page reads the
// kernel's collected tools.

let gw: TestKernel, sink: MailSink, main: string, other: string;

test.before(async () => {
  sink = await MailSink.start();
  gw = await startDashboardKernel(sink);
  main = (await gw.kernel.cradle.tenancyOperators.create('ops-main', CLI_ACTOR)).id;
  other = (await gw.kernel.cradle.tenancyOperators.create('ops-other', CLI_ACTOR)).id;
});
test.after.always(() => stopAll(gw, sink));

test('MCP tools: every tool of the enabled plugins with its description, scope and effect, for administrators and members', async (t) => {
  const tools = gw.kernel.cradle.mcpTools;
  t.true(tools.length > 0, 'the plugins here declare tools');
  for (const role of ['admin', 'member'] as const) {
    const { client } = await signedInUser(gw, sink, role, main);
    const res = await client.get('/dashboard/mcp-tools');
    t.is(res.status, 200, role);
    for (const tool of tools) {
      t.true(res.text.includes(`<code>${tool.name}</code>`), `${role}: ${tool.name}`);
      t.true(res.text.includes(`<code>${tool.scope}</code>`), `${role}: scope of ${tool.name}`);
    }
    const create = tools.find((tool) => tool.name === 'create_invoice')!;
    t.true(create.writes);
    t.regex(res.text, /<code>create_invoice<\/code><\/td><td>[^<]*<\/td><td><code>[^<]+<\/code><\/td><td>writes<\/td>/);
    t.regex(res.text, /href="\/dashboard\/mcp-tools"/, 'in the navigation');
  }
});

test("readiness: project checks name only the own operator's projects; deployment details for administrators, outcomes alone for members", async (t) => {
  const projects = gw.kernel.cradle.tenancyProjects;
  const mine = (await projects.create({ name: 'mine-no-hook', kind: 'testnet', operator: main }, CLI_ACTOR)).project;
  const theirs = (await projects.create({ name: 'theirs-<b>no-hook</b>', kind: 'testnet', operator: other }, CLI_ACTOR)).project;
  const full = await gw.kernel.readiness();
  const hooks = full.checks.find((c) => c.check === 'webhooks.url')!;
  t.true(hooks.detail.includes(theirs.id), 'gateway doctor (deployment-wide) names both');

  const admin = await signedInUser(gw, sink, 'admin', main);
  const page = await admin.client.get('/dashboard/doctor');
  t.is(page.status, 200);
  t.regex(page.text, /href="\/dashboard\/doctor"/, 'in the navigation');
  t.true(page.text.includes(mine.id), 'the own project is named');
  t.false(page.text.includes(theirs.id), "another operator's project id never appears");
  t.false(page.text.includes('theirs-'), 'nor its name');
  for (const check of ['webhooks.url', 'wallets.verified', 'kernel.master-key', 'rates.source', 'watchers.providers'])
    t.true(page.text.includes(`<code>${check}</code>`), check);
  const masterKey = full.checks.find((c) => c.check === 'kernel.master-key')!;
  t.true(page.text.includes('Checks of the deployment'));
  t.regex(page.text, /<code>kernel\.master-key<\/code><\/td><td>[^<]*<\/td><td><span class="badge/);
  const escapedDetail = masterKey.detail.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
  t.true(page.text.includes(escapedDetail) || page.text.includes(masterKey.detail), 'administrators see the deployment details');

  const member = await signedInUser(gw, sink, 'member', main);
  const trimmed = await member.client.get('/dashboard/doctor');
  t.is(trimmed.status, 200);
  t.true(trimmed.text.includes(mine.id), "members see their projects' findings");
  t.false(trimmed.text.includes(theirs.id));
  t.true(trimmed.text.includes('<code>kernel.master-key</code>'), 'members see the outcome of deployment checks');
  t.false(trimmed.text.includes(escapedDetail) || trimmed.text.includes(masterKey.detail), 'but not their details');

  const otherAdmin = await signedInUser(gw, sink, 'admin', other);
  const theirsPage = await otherAdmin.client.get('/dashboard/doctor');
  t.true(theirsPage.text.includes(theirs.id));
  t.false(theirsPage.text.includes(mine.id), 'and the other way round');
  t.false(theirsPage.text.includes('<b>no-hook'), 'project names are escaped');
});
