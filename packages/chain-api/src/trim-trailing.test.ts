import test from 'ava';
import { trimTrailing } from './trim-trailing.js';

test('trims the run of one character at the end only', (t) => {
  t.is(trimTrailing('1.500', '0'), '1.5');
  t.is(trimTrailing('000', '0'), '');
  t.is(trimTrailing('0100', '0'), '01');
  t.is(trimTrailing('https://x.test//', '/'), 'https://x.test');
  t.is(trimTrailing('/', '/'), '');
  t.is(trimTrailing('', '/'), '');
  t.is(trimTrailing(`${'0'.repeat(100_000)}1`, '0'), `${'0'.repeat(100_000)}1`);
  t.throws(() => trimTrailing('x', '//'));
});
