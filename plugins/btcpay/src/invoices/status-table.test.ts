import { readFileSync } from 'node:fs';
import test from 'ava';
import { INVOICE_STATUSES, type InvoiceStatus, statusesReaching } from '@gw/plugin-invoices/contract';
import { SESSION_STATUSES } from '@gw/plugin-sessions/contract';
import { btcpayState, markableStatuses, rowOf, STATUS_TABLE, type BtcpayState, type CurrentInvoice } from './status-table.js';

const CURRENT: readonly CurrentInvoice[] = ['none', ...INVOICE_STATUSES];

/**
 * Every (session, current invoice) as `status/additionalStatus` when its live payments fall short
 * of the amount (or there are none), written out independently of the table.
 */
const EXPECTED: Record<string, string> = {
  'open none': 'New/None',
  'open pending': 'New/None',
  'open detected': 'New/PaidPartial',
  'open partial': 'New/PaidPartial',
  'open reverted': 'New/PaidPartial',
  'open ambiguous': 'New/None',
  'open cancelled': 'New/None',
  'open expired': 'New/None',
  'open expired_paid_late': 'Expired/PaidPartial',
  'open paid': 'Settled/None',
  'open overpaid': 'Settled/PaidOver',
  'completed none': 'Invalid/None',
  'completed pending': 'Invalid/None',
  'completed detected': 'Invalid/None',
  'completed partial': 'Invalid/PaidPartial',
  'completed reverted': 'Processing/None',
  'completed ambiguous': 'Invalid/None',
  'completed cancelled': 'Invalid/None',
  'completed expired': 'Invalid/PaidPartial',
  'completed expired_paid_late': 'Invalid/PaidPartial',
  'completed paid': 'Settled/None',
  'completed overpaid': 'Settled/PaidOver',
  'expired none': 'Expired/None',
  'expired pending': 'Expired/None',
  'expired detected': 'Expired/PaidPartial',
  'expired partial': 'Expired/PaidPartial',
  'expired reverted': 'Expired/PaidPartial',
  'expired ambiguous': 'Expired/None',
  'expired cancelled': 'Expired/None',
  'expired expired': 'Expired/None',
  'expired expired_paid_late': 'Expired/PaidPartial',
  'expired paid': 'Expired/PaidLate',
  'expired overpaid': 'Expired/PaidLate',
};

/** Where live payments covering the amount change the state: paid in full, not yet confirmed, is `Processing`. */
const EXPECTED_COVERED: Record<string, string> = {
  'open detected': 'Processing/None',
  'open partial': 'Processing/None',
  'open reverted': 'Processing/None',
  'completed partial': 'Processing/None',
  'completed expired': 'Processing/None',
  'completed expired_paid_late': 'Expired/PaidLate',
  'expired detected': 'Processing/None',
};

const text = (state: BtcpayState) => `${state.status}/${state.additionalStatus}`;

test('every session status, current invoice status and cover has its BTCPay state', (t) => {
  for (const sessionStatus of SESSION_STATUSES) {
    for (const current of CURRENT) {
      for (const covered of [false, true]) {
        const key = `${sessionStatus} ${current}`;
        const state = btcpayState({ sessionStatus, invoiceStatus: current === 'none' ? null : current, covered, marked: null });
        t.is(text(state), (covered ? EXPECTED_COVERED[key] : undefined) ?? EXPECTED[key] ?? 'no row', `${key} covered: ${covered}`);
        t.true(rowOf(STATUS_TABLE[sessionStatus][current], covered).why.length > 0);
      }
    }
  }
  t.is(Object.keys(EXPECTED).length, SESSION_STATUSES.length * CURRENT.length);
});

test('a completed session whose paying invoice became short after a reorganisation is never Settled', (t) => {
  // Every status a paid invoice can reach through the invoices' transition table.
  for (const invoiceStatus of statusesAfterPaid()) {
    const state = btcpayState({ sessionStatus: 'completed', invoiceStatus, covered: false, marked: null });
    if (invoiceStatus === 'paid' || invoiceStatus === 'overpaid') continue;
    t.not(state.status, 'Settled', invoiceStatus);
  }
  t.deepEqual([...statusesAfterPaid()].sort(), ['expired', 'expired_paid_late', 'overpaid', 'paid', 'partial', 'reverted']);
});

/** The facts of the invoices' lifecycle that move an existing invoice. */
const FACTS: readonly Parameters<typeof statusesReaching>[0][] = [
  'payment_seen',
  'payment_confirmed',
  'payment_reverted',
  'payment_dropped',
  'deadline_passed',
  'cancel_requested',
  'ambiguous_match',
];

/** The statuses an invoice can reach from `paid` or `overpaid`, read off the invoices' transition table. */
function statusesAfterPaid(): Set<InvoiceStatus> {
  const reached = new Set<InvoiceStatus>(['paid', 'overpaid']);
  for (let grew = true; grew;) {
    grew = false;
    for (const fact of FACTS) {
      for (const to of INVOICE_STATUSES) {
        if (reached.has(to) || !statusesReaching(fact, to).some((from) => reached.has(from))) continue;
        reached.add(to);
        grew = true;
      }
    }
  }
  return reached;
}

test('a merchant’s mark wins over whatever the session and its invoice say', (t) => {
  for (const sessionStatus of SESSION_STATUSES) {
    for (const current of CURRENT) {
      const invoiceStatus = current === 'none' ? null : current;
      for (const covered of [false, true]) {
        t.is(text(btcpayState({ sessionStatus, invoiceStatus, covered, marked: 'Settled' })), 'Settled/Marked');
        t.is(text(btcpayState({ sessionStatus, invoiceStatus, covered, marked: 'Invalid' })), 'Invalid/Marked');
      }
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
  const lines = [
    '| Session | Current invoice | Live payments cover the amount | `status` | `additionalStatus` | Why |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const session of SESSION_STATUSES) {
    for (const invoice of CURRENT) {
      const cell = STATUS_TABLE[session][invoice];
      const rows =
        'why' in cell
          ? [['—', cell] as const]
          : ([
              ['yes', cell.covered],
              ['no', cell.short],
            ] as const);
      for (const [covers, row] of rows) {
        lines.push(
          `| \`${session}\` | ${invoice === 'none' ? '— (no pick yet)' : `\`${invoice}\``} | ${covers} | ${row.status} | ${row.additionalStatus} | ${row.why} |`,
        );
      }
    }
  }
  t.true(doc.includes(lines.join('\n')), 'the "### Statuses" table differs from STATUS_TABLE');
});
