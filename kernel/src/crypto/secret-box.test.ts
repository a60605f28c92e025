import test from 'ava';
import { createSecretBox } from './secret-box.js';

const box = createSecretBox('11'.repeat(32));

test('sealed secrets open with the same key and aad', (t) => {
  const sealed = box.seal('my secret', 'key:1');
  t.not(sealed, 'my secret');
  t.false(sealed.includes('my secret'));
  t.is(box.open(sealed, 'key:1'), 'my secret');
});

test('each seal uses a fresh iv', (t) => {
  t.not(box.seal('x', 'a'), box.seal('x', 'a'));
});

test('wrong aad, wrong key or tampering fail', (t) => {
  const sealed = box.seal('my secret', 'key:1');
  t.throws(() => box.open(sealed, 'key:2'));
  t.throws(() => createSecretBox('22'.repeat(32)).open(sealed, 'key:1'));
  const parts = sealed.split('.');
  parts[3] = Buffer.from('tampered').toString('base64url');
  t.throws(() => box.open(parts.join('.'), 'key:1'));
  t.throws(() => createSecretBox('abc'));
});

test('a truncated authentication tag is refused (issue 26 finding 11)', (t) => {
  const sealed = box.seal('my secret', 'key:1');
  const parts = sealed.split('.');
  const tag = Buffer.from(parts[2]!, 'base64url');
  t.is(tag.length, 16);
  // Without a pinned tag length GCM accepts any prefix of the right tag (4 to 16 bytes).
  for (const length of [4, 8, 12, 15]) {
    const truncated = [parts[0], parts[1], tag.subarray(0, length).toString('base64url'), parts[3]].join('.');
    t.throws(() => box.open(truncated, 'key:1'), undefined, `tag of ${length} bytes`);
  }
  t.is(box.open(sealed, 'key:1'), 'my secret');
});

test('previous keys open what they sealed; reseal moves a ciphertext to the current key and leaves current ones alone', (t) => {
  const old = createSecretBox('33'.repeat(32));
  const sealedOld = old.seal('rotating', 'id:1');
  const rotated = createSecretBox('44'.repeat(32), ['33'.repeat(32)]);
  t.is(rotated.open(sealedOld, 'id:1'), 'rotating');
  t.throws(() => rotated.open(sealedOld, 'id:2'), undefined, 'the aad still binds under a previous key');
  const moved = rotated.reseal(sealedOld, 'id:1')!;
  t.truthy(moved);
  t.is(createSecretBox('44'.repeat(32)).open(moved, 'id:1'), 'rotating');
  t.throws(() => old.open(moved, 'id:1'));
  t.is(rotated.reseal(moved, 'id:1'), undefined);
  t.throws(() => createSecretBox('55'.repeat(32)).reseal(sealedOld, 'id:1'));
});
