import { type Actor, type AuditLog, type ChainRegistry, fromBaseUnits, type JobQueue, toBaseUnits } from '@gw/kernel';
import { type InvoiceObserver, type InvoiceStatusChange, PAID_STATUSES, toleratedShortfall } from '@gw/plugin-invoices/contract';
import type { Knex } from 'knex';
import { NOTICE_EMAIL_JOB, RECEIPT_EMAIL_JOB, type SessionMailData } from '../job-names.js';
import { Session } from '../models/session.js';
import { SessionInvoice } from '../models/session-invoice.js';
import { parseLateExternalId, SESSION_EXTERNAL_ID_PREFIX } from './external-ids.js';
import { newPageToken, sessionAudit, type SessionStore } from './session-store.js';

/** The actor of what the observer writes (audit channel `system`). */
const OBSERVER_ACTOR: Actor = { actor: 'checkout-sessions', channel: 'system' };

/**
 * What the sessions follow of their invoices (`INVOICE_OBSERVERS`), in the transaction of each
 * status change:
 * - every change of a session's invoice is noted on its `sessions_invoices` row;
 * - an invoice of a session reaching a paid status (`paid`, `overpaid`, `expired_paid_late`)
 *   completes the session unless it is completed already, when the payment covers the price
 *   ({@link covers}): `completed`, its receipt token, event `checkout_session.completed` and, with a
 *   known e-mail address, the receipt mail job. An invoice that was not the open session's current
 *   one (the payer had switched away, or the session had expired or completed) is marked `late`; it
 *   becomes the session's invoice if it completes it. A late payment short of the price is marked
 *   `late` and audited as partial (`checkout_session.late_payment`), and the session stays as it is;
 * - `invoice.partial` of an open session's current invoice enqueues the notice mail job;
 * - an attributed orphan payment under `cs_<session>_late_<n>` (the late-payments job) becomes one
 *   of the session's invoices here, where it is created.
 * Nothing here calls the invoice lifecycle back: what must cancel an invoice runs in the jobs.
 */
export function sessionInvoiceObserver(
  deps: () => { readonly chains: ChainRegistry; readonly jobs: JobQueue; readonly audit: AuditLog; readonly sessionsStore: SessionStore },
): InvoiceObserver {
  return {
    async onStatus(trx, change) {
      if (!change.externalId.startsWith(SESSION_EXTERNAL_ID_PREFIX)) return;
      const row = await noted(trx, change, deps().chains);
      if (!row) return;
      const enteredPaid = PAID_STATUSES.includes(change.status) && (change.previousStatus === null || !PAID_STATUSES.includes(change.previousStatus));
      if (enteredPaid) await credit(trx, row, change, deps());
      else if (change.eventType === 'invoice.partial') await notice(trx, row, deps().jobs);
    },
  };
}

/** The session invoice row of the change, its status brought up to date; undefined for an invoice of no session. */
async function noted(trx: Knex.Transaction, change: InvoiceStatusChange, chains: ChainRegistry): Promise<SessionInvoice | undefined> {
  const row = await SessionInvoice.query(trx).findById(change.invoiceId);
  if (row) {
    if (row.status === change.status) return row;
    return SessionInvoice.query(trx).patchAndFetchById(row.invoice_id, { status: change.status });
  }
  const late = parseLateExternalId(change.externalId);
  if (!late) return undefined;
  const session = await Session.query(trx).findById(late.sessionId);
  if (!session || session.project_id !== change.projectId) return undefined;
  return SessionInvoice.query(trx).insertAndFetch({
    invoice_id: change.invoiceId,
    session_id: session.id,
    project_id: session.project_id,
    kind: 'late',
    seq: late.seq,
    coin: change.coin,
    address: change.address,
    status: change.status,
    amount_crypto: fromBaseUnits(change.amountUnits, chains.storedCoin(change.coin).decimals),
    late: true,
    created_at: new Date(),
  });
}

/**
 * Whether a paid invoice of a session pays its price. `paid` and `overpaid` of a picked invoice do
 * (the lifecycle compared the amount). `expired_paid_late` is reached by any late amount: it pays
 * when what arrived is at least the amount less the invoice's tolerated shortfall. An attributed
 * late payment (`kind: 'late'`) is created paid for exactly what arrived: what the late payments to
 * that address add up to is compared with the abandoned invoice of that coin and address.
 */
async function covers(
  trx: Knex.Transaction,
  row: SessionInvoice,
  change: InvoiceStatusChange,
  chains: ChainRegistry,
): Promise<{ covered: boolean; receivedUnits: bigint; dueUnits: bigint }> {
  if (row.kind === 'pick') {
    const dueUnits = change.amountUnits - toleratedShortfall(change.amountUnits, change.underpaymentTolerance);
    return { covered: change.status !== 'expired_paid_late' || change.receivedUnits >= dueUnits, receivedUnits: change.receivedUnits, dueUnits };
  }
  const decimals = chains.storedCoin(row.coin).decimals;
  const at = { session_id: row.session_id, coin: row.coin, address: row.address };
  const abandoned = await SessionInvoice.query(trx).where(at).where('kind', 'pick').orderBy('created_at', 'desc').first();
  const pieces = await SessionInvoice.query(trx).where(at).where('kind', 'late').whereIn('status', PAID_STATUSES);
  const receivedUnits = pieces.reduce((sum, piece) => sum + toBaseUnits(piece.amount_crypto, decimals), 0n);
  if (!abandoned) return { covered: false, receivedUnits, dueUnits: 0n };
  const price = toBaseUnits(abandoned.amount_crypto, decimals);
  const dueUnits = price - toleratedShortfall(price, change.underpaymentTolerance);
  return { covered: receivedUnits >= dueUnits, receivedUnits, dueUnits };
}

/**
 * A session invoice was paid: the session completes (once) if the payment covers the price; the
 * invoice is late unless it was the open session's current one.
 */
async function credit(
  trx: Knex.Transaction,
  row: SessionInvoice,
  change: InvoiceStatusChange,
  deps: { readonly chains: ChainRegistry; readonly jobs: JobQueue; readonly audit: AuditLog; readonly sessionsStore: SessionStore },
): Promise<void> {
  const session = await deps.sessionsStore.find(trx, undefined, row.session_id, true);
  const current = session.status === 'open' && session.invoice_id === row.invoice_id;
  const paid = await covers(trx, row, change, deps.chains);
  // A short late payment is kept on the session for the merchant (late: true), never completing it.
  if ((!current || !paid.covered) && !row.late) await SessionInvoice.query(trx).patch({ late: true }).where('invoice_id', row.invoice_id);
  if (session.status === 'completed') return;
  if (!paid.covered) {
    await deps.audit.record(
      sessionAudit(OBSERVER_ACTOR, 'checkout_session', 'late_payment', session, {
        invoice_id: row.invoice_id,
        partial: true,
        received_units: paid.receivedUnits.toString(),
        due_units: paid.dueUnits.toString(),
      }),
      trx,
    );
    return;
  }
  const now = new Date();
  const completed = await Session.query(trx).patchAndFetchById(session.id, {
    status: 'completed',
    completed_at: now,
    receipt_token: newPageToken(),
    invoice_id: row.invoice_id,
    updated_at: now,
  });
  await deps.sessionsStore.emit(trx, completed, session.status, row.invoice_id);
  await deps.audit.record(
    sessionAudit(OBSERVER_ACTOR, 'checkout_session', 'complete', completed, { invoice_id: row.invoice_id, late: !current, previous_status: session.status }),
    trx,
  );
  if (completed.customer_email !== null) {
    await deps.jobs.sendInTransaction(trx, RECEIPT_EMAIL_JOB, { sessionId: completed.id, invoiceId: row.invoice_id } satisfies SessionMailData);
  }
}

/** A partial payment of an open session's current invoice: the payer hears what is still due. */
async function notice(trx: Knex.Transaction, row: SessionInvoice, jobs: JobQueue): Promise<void> {
  const session = await Session.query(trx).findById(row.session_id);
  if (!session || session.status !== 'open' || session.invoice_id !== row.invoice_id || session.customer_email === null) return;
  await jobs.sendInTransaction(trx, NOTICE_EMAIL_JOB, { sessionId: session.id, invoiceId: row.invoice_id } satisfies SessionMailData);
}
