/**
 * Fault: a partner whose webhook endpoint is slow for every event. Its deliveries hold their
 * connections for as long as it takes; deliveries to other partners go on meanwhile, and the slow
 * partner loses nothing.
 */
import { createServer } from 'node:http';
import { CLI_ACTOR } from '@gw/kernel';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { waitFor, type TestKernel } from '@gw/kernel/testing';
import { invoiceWithEvents, projectWithPools, startWebhooksKernel, type TestProject } from './helpers.js';

const SLOW = 150;
const FAST = 150;
let gw: TestKernel;
let project: TestProject;
test.before(async () => {
  // One fetch loop and batches smaller than the slow partner's events, so the slow deliveries fill
  // whole batches ahead of the others; a timeout long enough that the slow answers are not failures.
  gw = await startWebhooksKernel({
    'plugins.webhooks.workers': 1,
    'plugins.webhooks.batchSize': 50,
    'plugins.webhooks.timeoutMs': 20_000,
    'plugins.webhooks.batchWaitMs': 200,
  });
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('webhooks-slow', CLI_ACTOR)).id;
  project = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
});
test.after.always(async () => {
  await gw?.close();
});

/** A receiver counting deliveries per event id; `held` ones get no answer until `release()`. */
async function receiver(t: { teardown(fn: () => void): void }, held: boolean) {
  const seen = new Map<string, number>();
  const waiting = new Set<() => void>();
  let released = !held;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = JSON.parse(Buffer.concat(chunks).toString('utf8')).event_id as string;
      seen.set(id, (seen.get(id) ?? 0) + 1);
      const answer = () => !res.destroyed && res.end('{"ok":true}');
      if (released) answer();
      else waiting.add(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    seen,
    release() {
      released = true;
      for (const answer of waiting) answer();
      waiting.clear();
    },
  };
}

const emit = (url: string, count: number) => invoiceWithEvents(gw, project.projectId, url, count, `slow-${Math.random().toString(36).slice(2)}`);

const delivered = async (ids: readonly string[]) =>
  Number((await gw.kernel.cradle.db('webhooks_events').whereIn('id', ids).where({ status: 'delivered' }).count<{ n: string }[]>('* as n'))[0]!.n);

test.serial(
  'a receiver slow for every event: deliveries to the others go on while all of its deliveries wait; then all of its events are delivered, none lost, none retried',
  async (t) => {
    const slow = await receiver(t, true);
    const fast = await receiver(t, false);
    // The slow partner's events first, then the others' behind them in the queue.
    const slowIds = await emit(slow.url, SLOW);
    await waitFor(async () => slow.seen.size >= 50, 20_000, "the slow partner's first batch on the wire");
    const fastIds = await emit(fast.url, FAST);

    await waitFor(async () => (await delivered(fastIds)) === FAST, 60_000, 'every other delivery made');
    t.is(fast.seen.size, FAST);
    t.is(await delivered(slowIds), 0, "meanwhile not one of the slow partner's deliveries has been answered");
    t.true(slow.seen.size > 0);
    t.log(`every other delivery made while ${slow.seen.size} of the slow partner's ${SLOW} deliveries waited for their answers`);

    slow.release();
    await waitFor(async () => (await delivered(slowIds)) === SLOW, 60_000, 'every slow delivery made');
    const rows = await gw.kernel.cradle.db('webhooks_events').whereIn('id', [...slowIds, ...fastIds]);
    t.true(
      rows.every((r) => r.status === 'delivered' && r.attempts === 1),
      'each delivered at its first attempt',
    );
    t.true(slowIds.every((id) => (slow.seen.get(id) ?? 0) >= 1));
  },
);
