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
// statistics below it read 733 buffers, every answer of the project.
test('the request lookup reads recorded answers by their whole key, however many the project keeps', async (t) => {
  const operator = await gw.kernel.cradle.tenancyOperators.create('lookup', CLI_ACTOR);
  const { project } = await gw.kernel.cradle.tenancyProjects.create({ name: 'busy', kind: 'testnet', operator: operator.id }, CLI_ACTOR);
  const db = gw.kernel.cradle.db;
  // Statistics taken while the window held a few answers of many projects, then one project's
  // traffic grew: the planner expects a handful of answers per project.
  await sqlQuery(
    db,
    sql`insert into tenancy_signed_answers (project_id, request_hash, expires_at, status)
        select 'other-' || n, 'h' || n, now() + interval '6 minutes', 200 from generate_series(1, 200) as n`,
  );
  await sqlQuery(db, sql`analyze tenancy_signed_answers`);
  await sqlQuery(
    db,
    sql`insert into tenancy_signed_answers (project_id, request_hash, expires_at, status, headers, body)
        select ${project.id}, 'h' || n, now() + interval '6 minutes', 201, '{"content-type":"application/json"}', convert_to(repeat('x', 300), 'UTF8')
          from generate_series(1, 3000) as n`,
  );
  const keys = [
    { projectId: project.id, hash: 'h1234' },
    { projectId: project.id, hash: 'unknown-1' },
    { projectId: project.id, hash: 'unknown-2' },
  ];
  const lookup = requestLookupSql([project.id], keys);
  const measure = async () => {
    const [explained] = await sqlQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(db, sql`explain (analyze, buffers, format json) ${lookup}`);
    return scanBuffers(explained!['QUERY PLAN'][0].Plan, 'tenancy_signed_answers');
  };
  const [row] = await sqlQuery<{ answers: { hash: string; status: number }[] }>(db, lookup);
  t.deepEqual(
    row!.answers.map((answer) => [answer.hash, answer.status]),
    [['h1234', 201]],
  );
  // Three probes of a three-level index and one heap page for the answer found: about ten buffers.
  // The 3,000 answers fill over 100 heap pages.
  const staleStatistics = await measure();
  t.true(staleStatistics > 0 && staleStatistics <= 20, `${staleStatistics} buffers of tenancy_signed_answers on stale statistics`);
  await sqlQuery(db, sql`analyze tenancy_signed_answers`);
  const freshStatistics = await measure();
  t.true(freshStatistics > 0 && freshStatistics <= 20, `${freshStatistics} buffers of tenancy_signed_answers on fresh statistics`);
});
