import test from 'ava';
import { createCoalescer } from './coalesce.js';

test('concurrent callers of one key share a load; later callers load afresh', async (t) => {
  const coalesce = createCoalescer<number>();
  let loads = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const load = async () => {
    loads += 1;
    await gate;
    return loads;
  };
  const first = coalesce('a', load);
  const second = coalesce('a', load);
  const other = coalesce('b', load);
  release();
  t.deepEqual(await Promise.all([first, second, other]), [2, 2, 2]);
  t.is(loads, 2);
  t.is(await coalesce('a', load), 3);
});

test('a failed load is shared by its waiters and not remembered', async (t) => {
  const coalesce = createCoalescer<string>();
  let calls = 0;
  const failing = async () => {
    calls += 1;
    throw new Error(`boom ${calls}`);
  };
  const results = await Promise.allSettled([coalesce('k', failing), coalesce('k', failing)]);
  t.deepEqual(
    results.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  t.is(calls, 1);
  t.is(await coalesce('k', async () => 'ok'), 'ok');
});
