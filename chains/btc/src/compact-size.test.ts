import test from 'ava';
import { compactSize, compactSizeLength } from './compact-size.js';

test('CompactSize: one byte below 0xfd, 0xfd + 2 bytes, 0xfe + 4 bytes, little-endian', (t) => {
  const cases: [number, string][] = [
    [0, '00'],
    [0xfc, 'fc'],
    [0xfd, 'fdfd00'],
    [0x1234, 'fd3412'],
    [0xffff, 'fdffff'],
    [0x10000, 'fe00000100'],
    [0xffffffff, 'feffffffff'],
  ];
  for (const [n, hex] of cases) {
    t.is(compactSize(n).toString('hex'), hex, String(n));
    t.is(compactSizeLength(n), hex.length / 2, String(n));
  }
  t.is(compactSizeLength(2 ** 32), 9);
});
