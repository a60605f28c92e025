import type { InvoiceStatus } from '@gw/plugin-invoices/contract';
import type { SessionStatus } from '@gw/plugin-sessions/contract';

/** BTCPay's Greenfield `InvoiceStatus`. */
export const BTCPAY_STATUSES = ['New', 'Processing', 'Settled', 'Expired', 'Invalid'] as const;
export type BtcpayStatus = (typeof BTCPAY_STATUSES)[number];

/** BTCPay's Greenfield `InvoiceAdditionalStatus` (its `InvoiceExceptionStatus`). */
export const BTCPAY_ADDITIONAL_STATUSES = ['None', 'PaidLate', 'PaidPartial', 'Marked', 'Invalid', 'PaidOver'] as const;
export type BtcpayAdditionalStatus = (typeof BTCPAY_ADDITIONAL_STATUSES)[number];

/** The statuses a merchant may mark an invoice with (`POST .../invoices/{id}/status`). */
export type MarkableStatus = 'Settled' | 'Invalid';

/** What BTCPay says of an invoice: its status and additional status. */
export interface BtcpayState {
  readonly status: BtcpayStatus;
  readonly additionalStatus: BtcpayAdditionalStatus;
}

/** What the BTCPay state of an invoice (a checkout session) follows from. */
export interface BtcpayStateInput {
  readonly sessionStatus: SessionStatus;
  /**
   * The status of the session's current invoice (the session's `invoice_id`: the coin picked last,
   * or the invoice that completed the session); null before the payer picks a coin.
   */
  readonly invoiceStatus: InvoiceStatus | null;
  /**
   * Whether the current invoice's live payments (seen or confirmed, neither reorganised away nor
   * dropped) cover its amount, less its tolerated shortfall (`paymentsCover`); false before a pick.
   */
  readonly covered: boolean;
  /** The status the merchant marked the invoice with, if any. */
  readonly marked: MarkableStatus | null;
}

/** The key of a session's current invoice in {@link STATUS_TABLE}: its status, or `none` before a pick. */
export type CurrentInvoice = InvoiceStatus | 'none';

/** One row of the table: the BTCPay state and why it follows. */
export interface StatusRow extends BtcpayState {
  readonly why: string;
}

/** A cell of the table: one row, or two told apart by whether the live payments cover the amount. */
export type StatusCell = StatusRow | { readonly covered: StatusRow; readonly short: StatusRow };

const row = (status: BtcpayStatus, additionalStatus: BtcpayAdditionalStatus, why: string): StatusRow => ({ status, additionalStatus, why });
const byCover = (covered: StatusRow, short: StatusRow): StatusCell => ({ covered, short });

/** BTCPay's `Processing`: the amount is there, not yet confirmed. */
const AWAITING = row('Processing', 'None', 'Payments covering the amount were seen and wait for their confirmations.');

/** Rows of a completed session whose invoice never has this status: the paying invoice never returns to it. */
const NEVER_AFTER_PAID = row(
  'Invalid',
  'None',
  'Never produced: a completed session’s invoice is the one that paid it, and a paid invoice never comes back to this status (transition table).',
);

/**
 * The BTCPay state of a BTCPay invoice that is not marked, for each (session status, current
 * invoice status), and where it matters whether the live payments cover the amount. BTCPay's
 * semantics (its `InvoiceWatcher`): `New` waits for money (`PaidPartial` once some arrived short),
 * `Processing` is paid in full but not yet confirmed, `Settled` confirmed (`PaidOver` when more
 * arrived), `Expired` past the deadline (`PaidPartial` with a short payment, `PaidLate` when the
 * full amount arrived after it), `Invalid` a payment that failed to confirm. A payment seen short
 * of the amount is never `Processing`, so a shop never ships on it.
 *
 * A completed session's invoice is the one that paid it; a reorganisation can take it from `paid`
 * (or `overpaid`, `expired_paid_late`) to `reverted`, then to `partial` when less is mined again,
 * `expired` past its deadline and `expired_paid_late` when more settles after it
 * (plugins/invoices transition table). Short there, it is BTCPay's payment that failed to
 * confirm: `Invalid` (`PaidPartial`), never `Settled`. Combinations the sessions never produce
 * still have a row, so the function is total. docs/btcpay-compatibility.md "### Statuses" shows
 * this table.
 */
export const STATUS_TABLE: Readonly<Record<SessionStatus, Readonly<Record<CurrentInvoice, StatusCell>>>> = {
  open: {
    none: row('New', 'None', 'The payer has not picked a coin yet.'),
    pending: row('New', 'None', 'The picked coin’s invoice waits for a payment.'),
    detected: byCover(AWAITING, row('New', 'PaidPartial', 'A payment short of the amount was seen; the invoice takes the rest.')),
    partial: byCover(AWAITING, row('New', 'PaidPartial', 'Payments settled short of the amount; the invoice takes the rest until it expires.')),
    reverted: byCover(AWAITING, row('New', 'PaidPartial', 'A short payment that had settled left the chain (reorganisation); it waits to be mined again.')),
    ambiguous: row('New', 'None', 'A payment at a shared address matched several invoices; the invoice waits until it expires.'),
    cancelled: row('New', 'None', 'The invoice was cancelled; the payer may pick a coin again.'),
    expired: row('New', 'None', 'The picked coin’s invoice expired unpaid; the payer may pick a coin again until the session’s deadline.'),
    expired_paid_late: row('Expired', 'PaidPartial', 'A payment after the invoice’s deadline settled short of the price; the session takes no other pick.'),
    paid: row('Settled', 'None', 'Paid in full and confirmed.'),
    overpaid: row('Settled', 'PaidOver', 'Paid above the amount and confirmed.'),
  },
  completed: {
    none: NEVER_AFTER_PAID,
    pending: NEVER_AFTER_PAID,
    detected: NEVER_AFTER_PAID,
    partial: byCover(
      AWAITING,
      row(
        'Invalid',
        'PaidPartial',
        'The payment that completed the session left the chain and less settled instead (reorganisation): a payment that failed to confirm. The invoice takes the rest until it expires.',
      ),
    ),
    reverted: row(
      'Processing',
      'None',
      'The payment that completed the session left the chain (reorganisation); it waits to be mined again, as BTCPay’s Processing waits for a payment to confirm.',
    ),
    ambiguous: NEVER_AFTER_PAID,
    cancelled: NEVER_AFTER_PAID,
    expired: byCover(
      AWAITING,
      row(
        'Invalid',
        'PaidPartial',
        'The payment that completed the session left the chain, less settled instead and the deadline passed: it failed to confirm.',
      ),
    ),
    expired_paid_late: byCover(
      row('Expired', 'PaidLate', 'The price was paid in full after the deadline (BTCPay never settles a late payment: the merchant may mark it Settled).'),
      row(
        'Invalid',
        'PaidPartial',
        'The payment that completed the session left the chain and what settled after the deadline is short: it failed to confirm.',
      ),
    ),
    paid: row('Settled', 'None', 'Paid in full and confirmed.'),
    overpaid: row('Settled', 'PaidOver', 'Paid above the amount and confirmed.'),
  },
  expired: {
    none: row('Expired', 'None', 'The deadline passed before the payer picked a coin.'),
    pending: row('Expired', 'None', 'The deadline passed with nothing paid.'),
    detected: byCover(AWAITING, row('Expired', 'PaidPartial', 'The deadline passed with a short payment seen.')),
    partial: row('Expired', 'PaidPartial', 'The deadline passed with a short payment.'),
    reverted: row('Expired', 'PaidPartial', 'A payment after the deadline settled and then left the chain.'),
    ambiguous: row('Expired', 'None', 'The deadline passed with nothing attributed.'),
    cancelled: row('Expired', 'None', 'The session ended (the deadline, or the merchant) and its unpaid invoice was cancelled.'),
    expired: row('Expired', 'None', 'The deadline passed with nothing paid, or with a payment that never confirmed.'),
    expired_paid_late: row('Expired', 'PaidPartial', 'A payment after the deadline settled short of the price.'),
    paid: row('Expired', 'PaidLate', 'A late payment was credited to the ended session.'),
    overpaid: row('Expired', 'PaidLate', 'A late payment was credited to the ended session.'),
  },
};

/** The row of a cell for an invoice whose live payments do (or do not) cover the amount. */
export function rowOf(cell: StatusCell, covered: boolean): StatusRow {
  if ('why' in cell) return cell;
  return covered ? cell.covered : cell.short;
}

/**
 * The BTCPay status and additional status of an invoice. A merchant's mark wins over everything
 * (`Settled`/`Invalid` with `Marked`, as BTCPay's mark sets them and nothing changes them but
 * another mark); otherwise the row of {@link STATUS_TABLE}. Pure, and the one rule: the invoices
 * area answers invoices (get, list, the statuses a merchant may mark) with it, and the webhooks
 * area decides from two of its answers which events a change sends.
 */
export function btcpayState(input: BtcpayStateInput): BtcpayState {
  if (input.marked !== null) return { status: input.marked, additionalStatus: 'Marked' };
  const found = rowOf(STATUS_TABLE[input.sessionStatus][input.invoiceStatus ?? 'none'], input.covered);
  return { status: found.status, additionalStatus: found.additionalStatus };
}

/**
 * The statuses BTCPay lets a merchant mark an invoice in `state` with (its
 * `availableStatusesForManualMarking`): `Settled` unless settled (a marked invoice can be marked
 * the other way), `Invalid` when new, processing or expired, or marked settled.
 */
export function markableStatuses(state: BtcpayState): readonly MarkableStatus[] {
  const marked = state.additionalStatus === 'Marked';
  const markable: MarkableStatus[] = [];
  if (['New', 'Processing', 'Expired', 'Invalid'].includes(state.status) || (marked && state.status !== 'Settled')) markable.push('Settled');
  if (['New', 'Processing', 'Expired'].includes(state.status) || (marked && state.status !== 'Invalid')) markable.push('Invalid');
  return markable;
}
