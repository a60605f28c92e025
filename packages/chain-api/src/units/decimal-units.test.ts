import test from 'ava';
import {
  decimalOfNumber,
  divideDecimals,
  fixedFromBaseUnits,
  fromBaseUnits,
  isPositiveDecimal,
  parsePositiveDecimal,
  parseUnits,
  scaledDecimal,
  toBaseUnits,
  toPlainDecimal,
  UnitsError,
  unitsTimesRate,
} from './decimal-units.js';

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
  for (const [value, decimals] of [
    ['0.3', 18],
    ['1234567.000001', 6],
    ['0.000000000000000001', 18],
  ] as const) {
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

test('toBaseUnits: leading zeros, too many decimals, negative, exponents and huge values', (t) => {
  t.is(toBaseUnits('000123.4', 2), 12_340n);
  t.is(toBaseUnits('0.10', 1), 1n); // a trailing zero beyond the precision is not a digit too many
  for (const bad of ['0.001', '1.0001', '5.000000001']) t.throws(() => toBaseUnits(bad, bad === '5.000000001' ? 8 : 2), { instanceOf: UnitsError }, bad);
  for (const bad of ['-0.5', '+1', ' 1', '1 ', '1,5', '1.', '1e-2', '1E2', 'NaN', 'Infinity', '0x10', '١'])
    t.throws(() => toBaseUnits(bad, 8), { instanceOf: UnitsError }, bad);
  // 2^256 - 1 base units of an 18-decimal token: exact, no float anywhere.
  const uint256Max = (2n ** 256n - 1n).toString();
  const asDecimal = `${uint256Max.slice(0, -18)}.${uint256Max.slice(-18)}`;
  t.is(toBaseUnits(asDecimal, 18), 2n ** 256n - 1n);
  t.is(fromBaseUnits(2n ** 256n - 1n, 18), asDecimal);
  t.throws(() => toBaseUnits('1', 37), { instanceOf: UnitsError });
});

test('toPlainDecimal: plain decimals are normalised without changing their value', (t) => {
  const cases: [string, string][] = [
    ['97123.45', '97123.45'],
    ['97123.4500', '97123.45'],
    ['1.0', '1'],
    ['0001.50', '1.5'],
    ['000', '0'],
    ['0.999738', '0.999738'],
    ['.5', '0.5'],
    ['5.', '5'],
    ['+3', '3'],
    [' 7 ', '7'],
    ['-0', '0'],
    ['-0.000', '0'],
    // A value no IEEE double holds exactly stays exact, and so does a huge one.
    ['0.1000000000000000055511151231257827', '0.1000000000000000055511151231257827'],
    [`${'9'.repeat(80)}.${'9'.repeat(40)}`, `${'9'.repeat(80)}.${'9'.repeat(40)}`],
  ];
  for (const [input, expected] of cases) t.is(toPlainDecimal(input), expected, input);
});

test('toPlainDecimal: exponent notation is expanded exactly, within a bound', (t) => {
  const cases: [string, string][] = [
    ['2.5e-7', '0.00000025'],
    ['1E-6', '0.000001'],
    ['1.2345e3', '1234.5'],
    ['1.2345E+2', '123.45'],
    ['9.7e4', '97000'],
    ['12e-1', '1.2'],
    ['0.0012e3', '1.2'],
    ['1e21', '1000000000000000000000'],
    ['1e100', `1${'0'.repeat(100)}`],
    ['1e-100', `0.${'0'.repeat(99)}1`],
  ];
  for (const [input, expected] of cases) t.is(toPlainDecimal(input), expected, input);
  for (const bad of ['1e101', '1e-101', '1e9007199254740993', '1e1000']) t.throws(() => toPlainDecimal(bad), { instanceOf: UnitsError }, bad);
  t.is(toPlainDecimal('1e150', 200), `1${'0'.repeat(150)}`);
});

test('toPlainDecimal: anything that is not a non-negative decimal is refused', (t) => {
  for (const bad of ['', ' ', 'abc', '1,5', '-1', '-0.5', '-1e-9', '1e', 'e5', '.', '.e1', '0x10', 'NaN', 'Infinity', '1.2.3', '1_000', '--1']) {
    t.throws(() => toPlainDecimal(bad), { instanceOf: UnitsError }, bad);
  }
});

test('decimalOfNumber: a JSON number as the decimal its writer wrote, exponents moved in the digits', (t) => {
  t.is(decimalOfNumber(0), '0');
  t.is(decimalOfNumber(1.5), '1.5');
  t.is(decimalOfNumber(0.1), '0.1');
  t.is(decimalOfNumber(0.00000001), '0.00000001'); // String() gives 1e-8
  t.is(decimalOfNumber(1.2345e-15), '0.0000000000000012345');
  t.is(decimalOfNumber(1.5e22), '15000000000000000000000');
  t.is(decimalOfNumber(20_999_999.9769), '20999999.9769');
  t.is(decimalOfNumber(5e-324), `0.${'0'.repeat(323)}5`);
  t.is(decimalOfNumber(Number.MAX_VALUE).length, 309);
  for (const bad of [-1, -1e-8, Number.NaN, Number.POSITIVE_INFINITY]) t.throws(() => decimalOfNumber(bad), { instanceOf: UnitsError }, String(bad));
});

test('positive decimals and scaled decimals', (t) => {
  t.is(parsePositiveDecimal('65000'), '65000');
  t.is(parsePositiveDecimal('3.2e-1'), '0.32');
  for (const notPositive of ['0', '0.000', '-5', 'n/a', '']) t.is(parsePositiveDecimal(notPositive), undefined, notPositive);
  t.true(isPositiveDecimal('0.001'));
  t.false(isPositiveDecimal('0.000'));
  t.deepEqual(scaledDecimal('12.50'), { digits: 1250n, scale: 2 });
  t.deepEqual(scaledDecimal('007'), { digits: 7n, scale: 0 });
  for (const bad of ['1e2', '-1', '.5', '1.', '']) t.throws(() => scaledDecimal(bad), { instanceOf: UnitsError }, bad);
});

test('unitsTimesRate is exact and rounds half-up to the places asked', (t) => {
  const fixed = (units: bigint, decimals: number, rate: string, places: number) => fixedFromBaseUnits(unitsTimesRate(units, decimals, rate, places), places);
  t.is(fixed(12345678900000000n, 18, '3200.5', 8), '39.51234532');
  t.is(fixed(1n, 18, '0.5', 8), '0.00000000');
  t.is(fixed(5n, 1, '1', 0), '1');
  t.is(fixed(15n, 0, '0.00000001', 8), '0.00000015');
  t.is(fixed(2n ** 100n, 6, '65000.12345678', 8), '82397445514896180341752718459.59835140');
  // Half-up at the last place: 0.000000005 becomes 0.00000001, 0.0000000049 becomes 0.
  t.is(unitsTimesRate(5n, 9, '1', 8), 1n);
  t.is(unitsTimesRate(49n, 10, '1', 8), 0n);
  t.is(fromBaseUnits(unitsTimesRate(150_000_000n, 8, '64000.5', 8), 8), '96000.75');
  t.throws(() => unitsTimesRate(1n, 0, '1e5', 2), { instanceOf: UnitsError });
  t.throws(() => unitsTimesRate(1n, 0, '1', -1), { instanceOf: UnitsError });
});

test('fixedFromBaseUnits keeps exactly the places asked', (t) => {
  t.is(fixedFromBaseUnits(0n, 2), '0.00');
  t.is(fixedFromBaseUnits(3950000000n, 8), '39.50000000');
  t.is(fixedFromBaseUnits(7n, 0), '7');
  t.throws(() => fixedFromBaseUnits(-1n, 2), { instanceOf: UnitsError });
});

test('divideDecimals rounds the exact quotient half-up to the significant digits asked', (t) => {
  t.is(divideDecimals('1', '156', 12), '0.00641025641026');
  t.is(divideDecimals('97123.45', '89802.1', 12), '1.08152760347');
  t.is(divideDecimals('1', '4', 12), '0.25');
  t.is(divideDecimals('10', '4', 1), '3');
  t.is(divideDecimals('2', '3', 3), '0.667');
  t.is(divideDecimals('9.9996', '1', 4), '10');
  t.is(divideDecimals('123456789', '1', 3), '123456789');
  t.is(divideDecimals('1', '0.0000250', 6), '40000');
  t.is(divideDecimals('0', '7', 5), '0');
  t.is(divideDecimals('1', '3', 36), '0.333333333333333333333333333333333333');
  t.throws(() => divideDecimals('1', '0', 5), { instanceOf: UnitsError, message: 'division by zero' });
  t.throws(() => divideDecimals('1', '-2', 5), { instanceOf: UnitsError });
  t.throws(() => divideDecimals('1', '2', 0), { instanceOf: UnitsError });
});
