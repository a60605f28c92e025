import test from 'ava';
import { isUlid, newId, randomHex } from './ids.js';

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
