import { readFileSync } from 'node:fs';
import test from 'ava';
import { INVOICE_STATUSES } from '@gw/plugin-invoices/contract';
import { SESSION_STATUSES } from '@gw/plugin-sessions/contract';
import { btcpayState, markableStatuses, STATUS_TABLE, type BtcpayState, type CurrentInvoice } from './status-table.js';

const CURRENT: readonly CurrentInvoice[] = ['none', ...INVOICE_STATUSES];

/** Every (session, current invoice) as `status/additionalStatus`, written out independently of the table. */
const EXPECTED: Record<string, string> = {
  'open none': 'New/None',
  'open pending': 'New/None',
  'open detected': 'Processing/None',
  'open partial': 'New/PaidPartial',
  'open reverted': 'New/PaidPartial',
  'open ambiguous': 'New/None',
  'open cancelled': 'New/None',
  'open expired': 'New/None',
  'open expired_paid_late': 'Expired/PaidPartial',
  'open paid': 'Settled/None',
  'open overpaid': 'Settled/PaidOver',
  'completed none': 'Settled/None',
  'completed pending': 'Settled/None',
  'completed detected': 'Settled/None',
  'completed partial': 'Settled/None',
  'completed reverted': 'Processing/None',
  'completed ambiguous': 'Settled/None',
  'completed cancelled': 'Settled/None',
  'completed expired': 'Settled/None',
  'completed expired_paid_late': 'Expired/PaidLate',
  'completed paid': 'Settled/None',
  'completed overpaid': 'Settled/PaidOver',
  'expired none': 'Expired/None',
  'expired pending': 'Expired/None',
  'expired detected': 'Processing/None',
  'expired partial': 'Expired/PaidPartial',
  'expired reverted': 'Expired/PaidPartial',
  'expired ambiguous': 'Expired/None',
  'expired cancelled': 'Expired/None',
  'expired expired': 'Expired/None',
  'expired expired_paid_late': 'Expired/PaidPartial',
  'expired paid': 'Expired/PaidLate',
  'expired overpaid': 'Expired/PaidLate',
};

const text = (state: BtcpayState) => `${state.status}/${state.additionalStatus}`;

test('every session status and current invoice status has its BTCPay state', (t) => {
  for (const sessionStatus of SESSION_STATUSES) {
    for (const current of CURRENT) {
      const state = btcpayState({ sessionStatus, invoiceStatus: current === 'none' ? null : current, marked: null });
      t.is(text(state), EXPECTED[`${sessionStatus} ${current}`] ?? 'no row', `${sessionStatus} ${current}`);
      t.true(STATUS_TABLE[sessionStatus][current].why.length > 0);
    }
  }
  t.is(Object.keys(EXPECTED).length, SESSION_STATUSES.length * CURRENT.length);
});

test('a merchant’s mark wins over whatever the session and its invoice say', (t) => {
  for (const sessionStatus of SESSION_STATUSES) {
    for (const current of CURRENT) {
      const invoiceStatus = current === 'none' ? null : current;
      t.is(text(btcpayState({ sessionStatus, invoiceStatus, marked: 'Settled' })), 'Settled/Marked');
      t.is(text(btcpayState({ sessionStatus, invoiceStatus, marked: 'Invalid' })), 'Invalid/Marked');
    }
  }
});

test('the statuses a merchant may mark follow BTCPay’s CanMarkComplete and CanMarkInvalid', (t) => {
  t.deepEqual(markableStatuses({ status: 'New', additionalStatus: 'None' }), ['Settled', 'Invalid']);
  t.deepEqual(markableStatuses({ status: 'New', additionalStatus: 'PaidPartial' }), ['Settled', 'Invalid']);
  t.deepEqual(markableStatuses({ status: 'Processing', additionalStatus: 'None' }), ['Settled', 'Invalid']);
  t.deepEqual(markableStatuses({ status: 'Expired', additionalStatus: 'PaidLate' }), ['Settled', 'Invalid']);
  t.deepEqual(markableStatuses({ status: 'Settled', additionalStatus: 'None' }), []);
  t.deepEqual(markableStatuses({ status: 'Settled', additionalStatus: 'PaidOver' }), []);
  t.deepEqual(markableStatuses({ status: 'Settled', additionalStatus: 'Marked' }), ['Invalid']);
  t.deepEqual(markableStatuses({ status: 'Invalid', additionalStatus: 'Marked' }), ['Settled']);
  t.deepEqual(markableStatuses({ status: 'Invalid', additionalStatus: 'None' }), ['Settled']);
});

test('docs/btcpay-compatibility.md shows the whole table', (t) => {
  const doc = readFileSync(new URL('../../../../docs/btcpay-compatibility.md', import.meta.url), 'utf8');
  const lines = ['| Session | Current invoice | `status` | `additionalStatus` | Why |', '| --- | --- | --- | --- | --- |'];
  for (const session of SESSION_STATUSES) {
    for (const invoice of CURRENT) {
      const row = STATUS_TABLE[session][invoice];
      lines.push(`| \`${session}\` | ${invoice === 'none' ? '— (no pick yet)' : `\`${invoice}\``} | ${row.status} | ${row.additionalStatus} | ${row.why} |`);
    }
  }
  t.true(doc.includes(lines.join('\n')), 'the "### Statuses" table differs from STATUS_TABLE');
});
