import test from 'ava';
import { REFUND_RATE_RULES } from '@gw/client';
import { PartnerUsageError } from './credentials.js';
import { choiceFlag, pageFlags, wholeNumberFlag, yesNoFlag } from './flag-values.js';

const usage = (message: string) => ({ instanceOf: PartnerUsageError, message });

test('wholeNumberFlag: digits up to the cap are a number; absent is undefined; anything else is a usage error', (t) => {
  t.is(wholeNumberFlag({ limit: '0' }, 'limit'), 0);
  t.is(wholeNumberFlag({ limit: '999999999' }, 'limit'), 999_999_999);
  t.is(wholeNumberFlag({}, 'limit'), undefined);
  t.is(wholeNumberFlag({ limit: true }, 'limit'), undefined, 'a bare switch carries no value');
  for (const value of ['1000000000', '', '-1', '1.5', '1e3', ' 1', 'ten'])
    t.throws(() => wholeNumberFlag({ limit: value }, 'limit'), usage('--limit must be a whole number'), JSON.stringify(value));
  t.is(wholeNumberFlag({ limit: '100' }, 'limit', 3), 100);
  t.throws(() => wholeNumberFlag({ limit: '1000' }, 'limit', 3), usage('--limit must be a whole number'), 'over a 3-digit cap');
});

test('choiceFlag: one of the choices, undefined when absent, a usage error naming the choices otherwise', (t) => {
  t.is(choiceFlag({ 'rate-rule': 'fiat_now' }, 'rate-rule', REFUND_RATE_RULES), 'fiat_now');
  t.is(choiceFlag({}, 'rate-rule', REFUND_RATE_RULES), undefined);
  for (const value of ['FIAT_NOW', 'fiat_now ', 'now', ''])
    t.throws(
      () => choiceFlag({ 'rate-rule': value }, 'rate-rule', REFUND_RATE_RULES),
      usage('--rate-rule must be one of coin_amount, fiat_at_payment, fiat_now'),
      JSON.stringify(value),
    );
});

test('yesNoFlag: yes and no are booleans, undefined when absent, anything else a usage error', (t) => {
  t.true(yesNoFlag({ active: 'yes' }, 'active'));
  t.false(yesNoFlag({ active: 'no' }, 'active'));
  t.is(yesNoFlag({}, 'active'), undefined);
  for (const value of ['true', 'Yes', 'y', '1', ''])
    t.throws(() => yesNoFlag({ 'ask-email': value }, 'ask-email'), usage('--ask-email must be yes or no'), JSON.stringify(value));
});

test('pageFlags: only the limit and cursor given, the limit under its digit cap', (t) => {
  t.deepEqual(pageFlags({}), {});
  t.deepEqual(pageFlags({ limit: '25', cursor: 'c1' }), { limit: 25, cursor: 'c1' });
  t.deepEqual(pageFlags({ cursor: '' }), {}, 'an empty cursor is no cursor');
  t.deepEqual(pageFlags({ limit: '500' }, 3), { limit: 500 });
  t.throws(() => pageFlags({ limit: '1000' }, 3), usage('--limit must be a whole number'));
});
