import test from 'ava';
import { fromBaseUnits, parseUnits, toBaseUnits, UnitsError } from './decimal-units.js';

test('decimal strings convert to exact base units', (t) => {
  t.is(toBaseUnits('1', 8), 100_000_000n);
  t.is(toBaseUnits('0.00000001', 8), 1n);
  t.is(toBaseUnits('123.45', 6), 123_450_000n);
  t.is(toBaseUnits('1.500', 2), 150n);
  t.is(toBaseUnits('0.1', 18), 100_000_000_000_000_000n);
  t.is(toBaseUnits('99999999999.999999999999999999', 18), 99_999_999_999_999_999_999_999_999_999n);
  t.is(toBaseUnits('7', 0), 7n);
});

test('base units render as the shortest exact decimal', (t) => {
  t.is(fromBaseUnits(100_000_000n, 8), '1');
  t.is(fromBaseUnits(1n, 8), '0.00000001');
  t.is(fromBaseUnits(150n, 2), '1.5');
  t.is(fromBaseUnits(0n, 6), '0');
  t.is(fromBaseUnits(123_450_000n, 6), '123.45');
  t.is(fromBaseUnits(5n, 0), '5');
});

test('round trip holds for awkward values', (t) => {
  for (const [value, decimals] of [['0.3', 18], ['1234567.000001', 6], ['0.000000000000000001', 18]] as const) {
    t.is(fromBaseUnits(toBaseUnits(value, decimals), decimals), value);
  }
});

test('bad input is refused, never rounded', (t) => {
  t.throws(() => toBaseUnits('1.123', 2), { instanceOf: UnitsError });
  t.throws(() => toBaseUnits('-1', 2), { instanceOf: UnitsError });
  t.throws(() => toBaseUnits('1e5', 2), { instanceOf: UnitsError });
  t.throws(() => toBaseUnits('.5', 2), { instanceOf: UnitsError });
  t.throws(() => toBaseUnits('', 2), { instanceOf: UnitsError });
  t.throws(() => parseUnits('12a'), { instanceOf: UnitsError });
  t.throws(() => fromBaseUnits(-1n, 2), { instanceOf: UnitsError });
  t.is(parseUnits('0012'), 12n);
});
