import test from 'ava';
import { createBatcher, type Settled } from './batcher.js';

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
  const rest = [3, 4, 6, 8].map((n) => batcher.submit(n));
  t.deepEqual(batches, [[2]], 'the first item starts alone at once');
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
