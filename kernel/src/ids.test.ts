import test from 'ava';
import { ulid } from 'ulid';
import { derivedIdAt, isUlid, newId, randomHex } from './ids.js';

test('randomHex draws fresh bytes from the shared pool across refills, interleaved with ids', (t) => {
  const tokens = new Set<string>();
  for (let i = 0; i < 2000; i += 1) {
    const token = randomHex(8);
    t.regex(token, /^[0-9a-f]{16}$/);
    tokens.add(token);
    t.true(isUlid(newId()));
  }
  t.is(tokens.size, 2000);
});

test('derivedIdAt: a ULID of the given time, the same for the same inputs, other parts another id; ordered by time', (t) => {
  const at = new Date('2026-11-24T10:00:00.000Z');
  const a = derivedIdAt(at, 'invoice', 'paid', '1');
  t.true(isUlid(a));
  t.is(a, derivedIdAt(at, 'invoice', 'paid', '1'));
  t.not(a, derivedIdAt(at, 'invoice', 'paid', '2'));
  t.is(a.slice(0, 10), newIdAt(at).slice(0, 10), 'the time part is the ULID time of `at`');
  const later = derivedIdAt(new Date(at.getTime() + 1), 'invoice', 'detected', '1');
  t.true(later > a, 'a later id sorts after, whatever its parts');
});

test('newId: strictly increasing within the process (the random part counts up within a millisecond), its time part the ULID time of now', (t) => {
  let previous = newId();
  const before = Date.now();
  for (let i = 0; i < 50_000; i += 1) {
    const id = newId();
    t.true(id > previous, `${id} after ${previous}`);
    previous = id;
  }
  const after = Date.now();
  t.true(isUlid(previous));
  const time = previous.slice(0, 10);
  t.true(time >= ulid(before).slice(0, 10) && time <= ulid(after).slice(0, 10), 'the time part lies between the clock before and after');
  // Fresh random parts: ids of different milliseconds do not share their random digits.
  const randoms = new Set<string>();
  for (let i = 0; i < 20; i += 1) {
    const start = Date.now();
    while (Date.now() === start) {
      // wait for the next millisecond
    }
    randoms.add(newId().slice(10));
  }
  t.is(randoms.size, 20);
});

/** The time part a ULID of `at` has (the ulid package's own encoding, independent of ours). */
function newIdAt(at: Date): string {
  return ulid(at.getTime());
}
