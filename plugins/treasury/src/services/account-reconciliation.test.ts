import test from 'ava';
import { compareHoldings, type RecordedHolding } from './account-reconciliation.js';

const held = (address: string, coin: string, expectedUnits: bigint, feeAllowanceUnits = 0n): RecordedHolding => ({
  address,
  projectId: 'p1',
  coin,
  expectedUnits,
  feeAllowanceUnits,
});

test('a token balance must be exactly what was received less moved out; more or less is a difference', (t) => {
  const recorded = [held('a1', 'tok', 100n), held('a2', 'tok', 50n), held('a3', 'tok', 0n)];
  const chain = new Map([
    ['a1', { tok: 100n, eth: 0n }],
    ['a2', { tok: 40n, eth: 0n }],
    ['a3', { tok: 0n, eth: 0n }],
  ]);
  t.deepEqual(compareHoldings(recorded, chain), [
    { address: 'a2', projectId: 'p1', coin: 'tok', kind: 'balance_differs', gateway_units: '50', provider_units: '40' },
  ]);
});

test('a coin the records never saw at an address is a difference when the chain shows some', (t) => {
  t.deepEqual(compareHoldings([held('a1', 'eth', 10n)], new Map([['a1', { eth: 10n, tok: 7n }]])), [
    { address: 'a1', projectId: 'p1', coin: 'tok', kind: 'balance_differs', gateway_units: '0', provider_units: '7' },
  ]);
});

test('the native coin may fall short by the fee allowance, never more, and never exceed', (t) => {
  const recorded = [held('a1', 'eth', 1000n, 300n)];
  t.deepEqual(compareHoldings(recorded, new Map([['a1', { eth: 700n }]])), []);
  t.deepEqual(compareHoldings(recorded, new Map([['a1', { eth: 1000n }]])), []);
  t.is(compareHoldings(recorded, new Map([['a1', { eth: 699n }]])).length, 1);
  t.is(compareHoldings(recorded, new Map([['a1', { eth: 1001n }]])).length, 1);
});

test('an address the chain did not answer holds nothing', (t) => {
  t.deepEqual(compareHoldings([held('a1', 'tok', 5n)], new Map()), [
    { address: 'a1', projectId: 'p1', coin: 'tok', kind: 'balance_differs', gateway_units: '5', provider_units: '0' },
  ]);
});
