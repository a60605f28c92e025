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

/** The time part a ULID of `at` has (the ulid package's own encoding, independent of ours). */
function newIdAt(at: Date): string {
  return ulid(at.getTime());
}
