import test from 'ava';
import { isCount, isJsonObject } from './answer-shapes.js';

test('isJsonObject: objects with fields, never null or an array', (t) => {
  for (const value of [{}, { a: 1 }, Object.create(null)]) t.true(isJsonObject(value));
  for (const value of [null, undefined, [], [1], 'x', 1, true]) t.false(isJsonObject(value), JSON.stringify(value));
});

test('isCount: non-negative safe integers only', (t) => {
  for (const value of [0, 1, 800_000, Number.MAX_SAFE_INTEGER]) t.true(isCount(value), String(value));
  for (const value of [-1, 1.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN, Infinity, '1', 1n, null]) t.false(isCount(value), String(value));
});
