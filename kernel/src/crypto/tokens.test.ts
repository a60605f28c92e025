import test from 'ava';
import { hashToken, randomBase62 } from './tokens.js';

test('hashToken is the hex SHA-256 of the token', (t) => {
  t.is(hashToken('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});

test('randomBase62 returns the asked length in base62, different each time', (t) => {
  const a = randomBase62(32);
  t.regex(a, /^[0-9A-Za-z]{32}$/);
  t.not(a, randomBase62(32));
});
