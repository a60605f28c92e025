import test from 'ava';
import { parseRate, toPlainDecimal } from './decimal.js';

test('plain decimals are normalised without changing their value', (t) => {
  t.is(toPlainDecimal('97123.45'), '97123.45');
  t.is(toPlainDecimal('97123.4500'), '97123.45');
  t.is(toPlainDecimal('1.0'), '1');
  t.is(toPlainDecimal('0001.50'), '1.5');
  t.is(toPlainDecimal('0.999738'), '0.999738');
  t.is(toPlainDecimal('.5'), '0.5');
  t.is(toPlainDecimal('5.'), '5');
  t.is(toPlainDecimal('0'), '0');
  t.is(toPlainDecimal('+3'), '3');
});

test('exponent notation is expanded exactly', (t) => {
  t.is(toPlainDecimal('2.5e-7'), '0.00000025');
  t.is(toPlainDecimal('1E-6'), '0.000001');
  t.is(toPlainDecimal('1.2345e3'), '1234.5');
  t.is(toPlainDecimal('1.2345E+2'), '123.45');
  t.is(toPlainDecimal('9.7e4'), '97000');
  t.is(toPlainDecimal('12e-1'), '1.2');
  t.is(toPlainDecimal('1e21'), '1000000000000000000000');
  // A value no IEEE double holds exactly stays exact.
  t.is(toPlainDecimal('0.1000000000000000055511151231257827'), '0.1000000000000000055511151231257827');
});

test('anything that is not a non-negative decimal is refused', (t) => {
  for (const bad of ['', ' ', 'abc', '1,5', '-1', '-0.5', '1e', 'e5', '.', '0x10', 'NaN', 'Infinity', '1e1000', '1.2.3']) {
    t.throws(() => toPlainDecimal(bad), { instanceOf: RangeError }, bad);
  }
  t.is(toPlainDecimal('-0'), '0');
});

test('parseRate accepts positive rates only', (t) => {
  t.is(parseRate('65000'), '65000');
  t.is(parseRate('3.2e-1'), '0.32');
  t.is(parseRate('0'), undefined);
  t.is(parseRate('0.000'), undefined);
  t.is(parseRate('-5'), undefined);
  t.is(parseRate('n/a'), undefined);
});
