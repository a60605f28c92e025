import test from 'ava';
import { createBatcher, type Settled } from './batcher.js';

/** Resolves after the current turn of the event loop, when the batcher has pumped. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('items arriving while the slots are busy leave together; outcomes reach their own callers', async (t) => {
  const batches: number[][] = [];
  let release!: () => void;
  let gate = new Promise<void>((resolve) => (release = resolve));
  const batcher = createBatcher<number, number>({
    maxBatch: 3,
    concurrency: 1,
    run: async (items) => {
      batches.push(items);
      await gate;
      return items.map((n): Settled<number> => (n % 2 === 0 ? { ok: true, value: n * 10 } : { ok: false, error: new Error(`odd ${n}`) }));
    },
  });
  const first = batcher.submit(2);
  await nextTurn();
  const rest = [3, 4, 6, 8].map((n) => batcher.submit(n));
  await nextTurn();
  t.deepEqual(batches, [[2]], 'the first item starts alone at the end of its turn; the rest wait for the slot');
  const opened = release;
  gate = Promise.resolve();
  opened();
  const settled = await Promise.allSettled([first, ...rest]);
  t.deepEqual(batches, [[2], [3, 4, 6], [8]]);
  t.deepEqual(
    settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message)),
    [20, 'odd 3', 40, 60, 80],
  );
});

test('a batch that throws fails each of its items; later batches still run', async (t) => {
  let calls = 0;
  const batcher = createBatcher<string, string>({
    maxBatch: 10,
    concurrency: 1,
    run: async (items) => {
      calls += 1;
      if (calls === 1) throw new Error('database down');
      return items.map((value) => ({ ok: true, value }));
    },
  });
  await t.throwsAsync(batcher.submit('a'), { message: 'database down' });
  t.is(await batcher.submit('b'), 'b');
});

test('with minBatchWhileBusy, a second batch waits for enough items while one runs; nothing waits when none runs', async (t) => {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  const batcher = createBatcher<number, number>({
    maxBatch: 10,
    concurrency: 2,
    minBatchWhileBusy: 3,
    run: async (items) => {
      batches.push(items);
      await new Promise<void>((resolve) => gates.push(resolve));
      return items.map((value) => ({ ok: true, value }));
    },
  });
  const all = [batcher.submit(1)];
  await nextTurn();
  all.push(batcher.submit(2), batcher.submit(3));
  await nextTurn();
  t.deepEqual(batches, [[1]], 'a lone item starts at the end of its turn; two waiting items do not open the second slot');
  all.push(batcher.submit(4));
  await nextTurn();
  t.deepEqual(batches, [[1], [2, 3, 4]], 'three waiting items do');
  all.push(batcher.submit(5));
  gates.shift()!();
  await all[0];
  t.deepEqual(batches, [[1], [2, 3, 4]], 'one item waits while the other batch runs');
  gates.shift()!();
  await Promise.all(all.slice(1, 4));
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(batches, [[1], [2, 3, 4], [5]], 'and starts once nothing runs');
  gates.shift()!();
  t.deepEqual(await Promise.all(all), [1, 2, 3, 4, 5]);
});

test('items submitted in one turn of the event loop leave in one batch, even when a slot is free', async (t) => {
  const batches: number[][] = [];
  const batcher = createBatcher<number, number>({
    maxBatch: 10,
    concurrency: 2,
    run: async (items) => {
      batches.push(items);
      return items.map((value) => ({ ok: true, value }));
    },
  });
  const together = [1, 2, 3].map((n) => batcher.submit(n));
  t.deepEqual(batches, [], 'nothing starts before the turn ends');
  t.deepEqual(await Promise.all(together), [1, 2, 3]);
  t.deepEqual(batches, [[1, 2, 3]]);
  t.is(await batcher.submit(4), 4, 'a lone item later runs on its own');
  t.deepEqual(batches, [[1, 2, 3], [4]]);
});
