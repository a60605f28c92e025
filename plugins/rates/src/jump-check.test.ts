import test from 'ava';
import { changePercent, movedBeyond } from './jump-check.js';

test('movedBeyond: more than the share of the first rate, either way, exactly at the boundary', (t) => {
  t.false(movedBeyond('100', '110', '0.1'));
  t.false(movedBeyond('100', '90', '0.1'));
  t.true(movedBeyond('100', '110.01', '0.1'));
  t.true(movedBeyond('100', '89.99', '0.1'));
  // Scales differ: 5 % above 0.00639304436773 is exactly 0.0067126965861165.
  t.false(movedBeyond('0.00639304436773', '0.0067126965861165', '0.05'));
  t.true(movedBeyond('0.00639304436773', '0.0067126965861166', '0.05'));
  t.false(movedBeyond('0.00639304436773', '0.006712696586', '0.05'));
  t.false(movedBeyond('97123.45', '97123.45', '0.000001'));
  t.true(movedBeyond('1', '3', '1'));
  t.false(movedBeyond('1', '2', '1'));
});

test('changePercent: signed, two decimals, half away from zero', (t) => {
  t.is(changePercent('100', '123.456'), '+23.46');
  t.is(changePercent('100', '90'), '-10.00');
  t.is(changePercent('3', '3'), '+0.00');
  t.is(changePercent('3', '2'), '-33.33');
  t.is(changePercent('0.00639304436773', '0.00747103461538'), '+16.86');
  t.is(changePercent('8', '8.0004'), '+0.01');
  t.is(changePercent('8', '7.9996'), '-0.01');
});
