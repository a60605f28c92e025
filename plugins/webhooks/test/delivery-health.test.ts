import test from 'ava';
import { CLI_ACTOR, newId, ulidFloor } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { invoiceWithEvents, projectWithPools, startWebhooksKernel } from './helpers.js';

// The dashboard overview's webhook health (issue 20): delivered in the last day, retrying,
// dead-lettered and the oldest undelivered event of one project.

let gw: TestKernel;
test.before(async () => {
  // No workers: written events stay retrying until the test moves them.
  gw = await startWebhooksKernel({}, { role: 'cli' });
});
test.after.always(async () => {
  await gw?.close();
});

test('ulidFloor is the smallest id of its millisecond: ids made after it sort after it', (t) => {
  const before = Date.now();
  const id = newId();
  t.true(ulidFloor(before) <= id);
  t.true(ulidFloor(before + 60_000) > id);
  t.is(ulidFloor(0), '0'.repeat(26));
});

test('health counts delivered events of the last day, retrying and dead-lettered ones, and the oldest undelivered, per project', async (t) => {
  const { cradle } = gw.kernel;
  const operatorId = (await cradle.tenancyOperators.create('webhooks-health', CLI_ACTOR)).id;
  const project = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const other = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  t.deepEqual(await cradle.webhooksHealth.health(project.projectId), { delivered_last_day: 0, retrying: 0, dead_lettered: 0, oldest_undelivered_iso: null });
  const ids = await invoiceWithEvents(gw, project.projectId, 'https://partner.example/hook', 5);
  await invoiceWithEvents(gw, other.projectId, 'https://partner.example/hook', 2);
  await cradle.db('webhooks_events').whereIn('id', ids.slice(0, 2)).update({ status: 'delivered', delivered_at: new Date() });
  await cradle.db('webhooks_events').where({ id: ids[2] }).update({ status: 'dlq' });
  const oldest = await cradle.db('webhooks_events').where({ id: ids[3] }).first('created_at');
  const health = await cradle.webhooksHealth.health(project.projectId);
  t.deepEqual(health, { delivered_last_day: 2, retrying: 2, dead_lettered: 1, oldest_undelivered_iso: new Date(oldest.created_at).toISOString() });
  // A day later the deliveries are outside the window; the backlog counts stay.
  t.like(await cradle.webhooksHealth.health(project.projectId, new Date(Date.now() + 25 * 3_600_000)), {
    delivered_last_day: 0,
    retrying: 2,
    dead_lettered: 1,
  });
  t.like(await cradle.webhooksHealth.health(other.projectId), { delivered_last_day: 0, retrying: 2, dead_lettered: 0 });
});
