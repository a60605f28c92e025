import test from 'ava';
import { percent } from './plan-view.js';

test('the fee share is exact to the hundredth of a percent, rounded down', (t) => {
  t.is(percent(1_000n, 100_000n), '1.00');
  t.is(percent(2_821n, 500_000_000n), '0.00');
  t.is(percent(2_821n, 50_000_000n), '0.00');
  t.is(percent(2_821n, 500_000n), '0.56');
  t.is(percent(1n, 3n), '33.33');
  t.is(percent(5n, 0n), '0.00');
});
