import test from 'ava';
import { UnitsError } from './decimal-units.js';
import { withUnitsColumns } from './units-columns.js';

test('withUnitsColumns reads the named text columns as bigint, in place, and leaves null, absent and other columns alone', (t) => {
  const row = { id: 'x', amount_units: '115792089237316195423570985008687907853269984665640564039457584007913129639935', block_height: '12', fee_units: null };
  const read = withUnitsColumns<{ id: string; amount_units: bigint; block_height: string; fee_units: bigint | null }>(row, [
    'amount_units',
    'fee_units',
    'absent_units',
  ]);
  t.is(read as object, row, 'the same object: no copy per row');
  t.is(read.amount_units, 2n ** 256n - 1n);
  t.is(read.block_height, '12');
  t.is(read.fee_units, null);
  t.false('absent_units' in read);
});

test('withUnitsColumns refuses a value that is not base units', (t) => {
  t.throws(() => withUnitsColumns({ amount_units: '1.5' }, ['amount_units']), { instanceOf: UnitsError });
  t.throws(() => withUnitsColumns({ amount_units: '-1' }, ['amount_units']), { instanceOf: UnitsError });
});
