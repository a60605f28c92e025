import test from 'ava';
import Type from 'typebox';
import { isAppError } from '@gw/chain-api';
import { validateInput } from './validate.js';

const Body = Type.Object({ metadata: Type.Optional(Type.Unknown()) });

/** `{ a: { a: ... } }`, `levels` deep, built without recursion. */
function nested(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i += 1) value = { a: value };
  return value;
}

test('input nested deeper than the JSON limit is validation_error, not a stack overflow (input that never passed the HTTP body reader)', (t) => {
  const error = t.throws(() => validateInput(Body, { metadata: nested(20_000) }, 'body', false));
  t.true(isAppError(error));
  t.like(error, { code: 'validation_error', details: { field: 'body' } });
  t.deepEqual(validateInput(Body, { metadata: nested(10) }, 'body', false), { metadata: nested(10) });
});
