import test from 'ava';
import { CLI_ACTOR, isAppError, sql, sqlQuery } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { invoiceWithEvents, projectWithPools, startWebhooksKernel } from './helpers.js';

// EventLog.redeliverDeadLettered, the dashboard's bulk replay: only dead-lettered events of the
// project, locked and replayed in one transaction, all of them or none.

let gw: TestKernel;
test.before(async () => {
  // No workers: the events stay where the test puts them.
  gw = await startWebhooksKernel({}, { role: 'cli' });
});
test.after.always(async () => {
  await gw?.close();
});

const cradle = () => gw.kernel.cradle;
const statuses = async (ids: readonly string[]) =>
  Object.fromEntries((await cradle().db('webhooks_events').whereIn('id', ids).select('id', 'status')).map((r) => [r.id, r.status]));
const redeliverAudits = async (ids: readonly string[]) =>
  (
    await cradle()
      .db('kernel_audit_log')
      .where({ action: 'webhook.redeliver' })
      .whereIn(
        'target',
        ids.map((id) => `webhook_event:${id}`),
      )
  ).length;
/** How many of `ids` are due for delivery now (the event row is its own delivery job, ADR 0013). */
const dueNow = async (ids: readonly string[]) =>
  (
    await sqlQuery<{ n: number }>(
      cradle().db,
      sql`select count(*)::int as n from webhooks_events where id = any(${[...ids]}) and status = 'retrying' and next_attempt_at <= now()`,
    )
  )[0]!.n;

/** Two projects with five events each; of the first project's, three dead-lettered and one delivered. */
async function setUp(name: string) {
  const operatorId = (await cradle().tenancyOperators.create(name, CLI_ACTOR)).id;
  const project = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const other = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const ids = await invoiceWithEvents(gw, project.projectId, 'https://partner.example/hook', 5);
  const foreign = await invoiceWithEvents(gw, other.projectId, 'https://partner.example/hook', 2);
  const dead = ids.slice(0, 3);
  await cradle()
    .db('webhooks_events')
    .whereIn('id', [...dead, ...foreign])
    .update({ status: 'dlq', attempts: 3 });
  await cradle().db('webhooks_events').where({ id: ids[3] }).update({ status: 'delivered', delivered_at: new Date() });
  return { projectId: project.projectId, dead, delivered: ids[3]!, retrying: ids[4]!, foreign };
}

async function refused(t: import('ava').ExecutionContext, run: () => Promise<unknown>, status: number, code: string) {
  const error = await t.throwsAsync(run);
  t.true(isAppError(error), 'an AppError, not a 500');
  if (isAppError(error)) {
    t.is(error.status, status);
    t.is(error.code, code);
  }
  return error;
}

test.serial('the listed dead-lettered events go back to retrying, due at once, with an audit row each, in one call', async (t) => {
  const { projectId, dead, foreign } = await setUp('replay-listed');
  t.is(await dueNow(dead), 0);
  const replayed = await cradle().webhooksEventLog.redeliverDeadLettered(projectId, [dead[0]!, dead[2]!, dead[0]!], 100, CLI_ACTOR);
  t.deepEqual(replayed.map((r) => r.event_id).sort(), [dead[0], dead[2]].sort());
  t.true(replayed.every((r) => r.status === 'retrying'));
  t.deepEqual(await statuses(dead), { [dead[0]!]: 'retrying', [dead[1]!]: 'dlq', [dead[2]!]: 'retrying' });
  t.is(await dueNow(dead), 2);
  t.is(await redeliverAudits(dead), 2);
  t.deepEqual(Object.values(await statuses(foreign)), ['dlq', 'dlq'], "the other project's are untouched");
});

test.serial("'all' replays only this project's dead-lettered events, the newest up to the limit", async (t) => {
  const { projectId, dead, delivered, retrying, foreign } = await setUp('replay-all');
  const replayed = await cradle().webhooksEventLog.redeliverDeadLettered(projectId, 'all', 2, CLI_ACTOR);
  t.deepEqual(
    replayed.map((r) => r.event_id),
    [dead[2], dead[1]],
    'the newest two, newest first',
  );
  t.deepEqual(await statuses([...dead, delivered, retrying]), {
    [dead[0]!]: 'dlq',
    [dead[1]!]: 'retrying',
    [dead[2]!]: 'retrying',
    [delivered]: 'delivered',
    [retrying]: 'retrying',
  });
  t.deepEqual(Object.values(await statuses(foreign)), ['dlq', 'dlq']);
  t.is((await cradle().webhooksEventLog.redeliverDeadLettered(projectId, 'all', 100, CLI_ACTOR)).length, 1, 'the rest on the next press');
  t.deepEqual(await cradle().webhooksEventLog.redeliverDeadLettered(projectId, 'all', 100, CLI_ACTOR), [], 'none left');
});

test.serial('all or nothing: a listed event that is not dead-lettered, of another project, or malformed, or too many ids, replays none', async (t) => {
  const { projectId, dead, delivered, retrying, foreign } = await setUp('replay-refused');
  const log = cradle().webhooksEventLog;
  const notDead = await refused(t, () => log.redeliverDeadLettered(projectId, [...dead, delivered, retrying], 100, CLI_ACTOR), 409, 'event_not_dead_lettered');
  if (isAppError(notDead)) t.deepEqual([...(notDead.details?.['event_ids'] as string[])].sort(), [delivered, retrying].sort());
  const notOurs = await refused(t, () => log.redeliverDeadLettered(projectId, [...dead, foreign[0]!], 100, CLI_ACTOR), 404, 'event_not_found');
  if (isAppError(notOurs)) t.deepEqual(notOurs.details?.['event_ids'], [foreign[0]]);
  await refused(t, () => log.redeliverDeadLettered(projectId, [dead[0]!, 'not-an-id\u0000'], 100, CLI_ACTOR), 404, 'event_not_found');
  await refused(t, () => log.redeliverDeadLettered(projectId, dead, 2, CLI_ACTOR), 400, 'validation_error');
  t.deepEqual(await statuses([...dead, ...foreign]), Object.fromEntries([...dead, ...foreign].map((id) => [id, 'dlq'])), 'nothing replayed');
  t.is(await redeliverAudits([...dead, ...foreign]), 0, 'nothing audited');
});
