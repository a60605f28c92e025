import test from 'ava';
import { CLI_ACTOR, sql, sqlQuery } from '@gw/kernel';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { requestLookupSql } from '../src/services/request-lookup-sql.js';

let gw: TestKernel;
test.before(async () => {
  gw = await startTestKernel({ plugins: [tenancyPlugin] });
});
test.after.always(async () => {
  await gw?.close();
});

interface PlanNode {
  'Relation Name'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/** Buffers the plan's scans of `table` touched (each node's own and its children's, as EXPLAIN counts them). */
function scanBuffers(node: PlanNode, table: string): number {
  if (node['Relation Name'] === table) return (node['Shared Hit Blocks'] ?? 0) + (node['Shared Read Blocks'] ?? 0);
  return (node.Plans ?? []).reduce((sum, child) => sum + scanBuffers(child, table), 0);
}

// Every signed request's lookup reads the answers recorded in the signature window. Checked failing
// on the statement before (a filter on the hashes over the project's index range): on the stale
// statistics below it read 736 buffers, every answer of the busy project, and it gave the busy
// project's `h2` to the quiet one as well (unused: the authenticator reads its own key only).
test('the request lookup reads recorded answers by their whole key, however many the project keeps', async (t) => {
  const operator = await gw.kernel.cradle.tenancyOperators.create('lookup', CLI_ACTOR);
  const create = async (name: string) => (await gw.kernel.cradle.tenancyProjects.create({ name, kind: 'testnet', operator: operator.id }, CLI_ACTOR)).project;
  const busy = await create('busy');
  const quiet = await create('quiet');
  const db = gw.kernel.cradle.db;
  // Statistics taken while the window held a few answers of many projects, then one project's
  // traffic grew: the planner expects a handful of answers per project. No autovacuum between.
  await sqlQuery(db, sql`alter table tenancy_signed_answers set (autovacuum_enabled = false)`);
  await sqlQuery(
    db,
    sql`insert into tenancy_signed_answers (project_id, request_hash, expires_at, status)
        select 'other-' || n, 'h' || n, now() + interval '6 minutes', 200 from generate_series(1, 200) as n`,
  );
  await sqlQuery(db, sql`analyze tenancy_signed_answers`);
  await sqlQuery(
    db,
    sql`insert into tenancy_signed_answers (project_id, request_hash, expires_at, status, headers, body)
        select ${busy.id}, 'h' || n, now() + interval '6 minutes', 201, '{"content-type":"application/json"}'::jsonb, convert_to(repeat('x', 300), 'UTF8')
          from generate_series(1, 3000) as n
        union all
        select ${quiet.id}, 'h1234', now() + interval '6 minutes', 409, '{}'::jsonb, convert_to('{}', 'UTF8')`,
  );
  // Two projects in one batch, as concurrent requests send them: each gets only the answers of its
  // own keys (the quiet project's 'h1234' is not the busy one's, and the reverse).
  const lookup = requestLookupSql(
    [busy.id, quiet.id],
    [
      { projectId: busy.id, hash: 'h1234' },
      { projectId: busy.id, hash: 'unknown-1' },
      { projectId: quiet.id, hash: 'h1234' },
      { projectId: quiet.id, hash: 'h2' },
    ],
  );
  const rows = await sqlQuery<{ project_id: string; answers: { hash: string; status: number }[] }>(db, lookup);
  t.deepEqual(
    new Map(rows.map((row) => [row.project_id, row.answers.map((answer) => [answer.hash, answer.status])])),
    new Map([
      [busy.id, [['h1234', 201]]],
      [quiet.id, [['h1234', 409]]],
    ]),
  );
  const measure = async () => {
    const [explained] = await sqlQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(db, sql`explain (analyze, buffers, format json) ${lookup}`);
    return scanBuffers(explained!['QUERY PLAN'][0].Plan, 'tenancy_signed_answers');
  };
  // Four probes of the primary key (two or three levels) and a heap page for each answer found:
  // about a dozen buffers. The busy project's 3,000 answers fill over 100 heap pages.
  const staleStatistics = await measure();
  t.true(staleStatistics > 0 && staleStatistics <= 24, `${staleStatistics} buffers of tenancy_signed_answers on stale statistics`);
  await sqlQuery(db, sql`analyze tenancy_signed_answers`);
  const freshStatistics = await measure();
  t.true(freshStatistics > 0 && freshStatistics <= 24, `${freshStatistics} buffers of tenancy_signed_answers on fresh statistics`);
});
