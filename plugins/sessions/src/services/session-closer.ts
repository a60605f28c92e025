import { type Actor, type AuditLog, isAppError } from '@gw/kernel';
import { type InvoiceService, type InvoiceView, PAID_STATUSES, WAITING_STATUSES } from '@gw/plugin-invoices/contract';
import type { Knex } from 'knex';
import { sessionsErrors } from '../errors.js';
import { Session } from '../models/session.js';
import { sessionAudit, type SessionStore } from './session-store.js';

/** How often an expiry starts again after a concurrent pick or payment changed the session first. */
const ATTEMPTS = 5;

/** The actor of the expiry job (audit channel `system`). */
export const EXPIRY_ACTOR: Actor = { actor: 'session-expiry', channel: 'system' };

/**
 * What becomes of a session's current invoice when the payer switches coin or the session ends:
 * `cancel` (pending, nothing received), `none` (it takes no payment any more: expired, cancelled,
 * reverted), `paying` (a payment was seen), `paid`.
 */
export type CurrentInvoiceState = 'cancel' | 'none' | 'paying' | 'paid';

export function invoiceState(invoice: InvoiceView): CurrentInvoiceState {
  if (PAID_STATUSES.includes(invoice.status)) return 'paid';
  if (invoice.status === 'pending' && invoice.transactions_total === 0) return 'cancel';
  if (WAITING_STATUSES.includes(invoice.status) || invoice.transactions.some((tx) => tx.status === 'pending')) return 'paying';
  return 'none';
}

/**
 * The end of sessions and of their invoices: a session expired by the partner or by its deadline
 * (its unpaid invoice cancelled first), and the invoices a closed session no longer needs.
 */
export class SessionCloser {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; invoicesService: InvoiceService; sessionsStore: SessionStore }) {}

  /**
   * Ends an open session (`expired`, event `checkout_session.expired`), its current invoice
   * cancelled if nothing was paid to it. A session whose invoice is being paid is not ended:
   * `strict` (the partner's request) answers 409, otherwise (the expiry job) undefined, and the
   * session waits for its invoice to end.
   */
  async end(session: Session, actor: Actor, strict: boolean): Promise<Session | undefined> {
    const { db, sessionsStore: store } = this.deps;
    let seen = session;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (seen.status !== 'open') {
        if (strict) throw sessionsErrors.checkout_session_closed({ details: { status: seen.status } });
        return undefined;
      }
      if (seen.invoice_id !== null) {
        const invoice = await this.deps.invoicesService.get(seen.project_id, seen.invoice_id);
        const state = invoiceState(invoice);
        if (state === 'paying' || state === 'paid') {
          if (strict) throw sessionsErrors.checkout_session_payment_in_progress({ details: { invoice_id: invoice.id, invoice_status: invoice.status } });
          return undefined;
        }
        if (state === 'cancel' && !(await this.cancelInvoice(seen.project_id, invoice.id, actor))) {
          if (strict) throw sessionsErrors.checkout_session_payment_in_progress({ details: { invoice_id: invoice.id } });
          return undefined;
        }
      }
      const before = seen;
      const outcome = await db.transaction(async (trx) => {
        const locked = await store.find(trx, undefined, before.id, true);
        if (locked.status !== 'open' || locked.invoice_id !== before.invoice_id) return { changed: locked };
        const now = new Date();
        const expired = await Session.query(trx).patchAndFetchById(locked.id, { status: 'expired', expired_at: now, updated_at: now });
        await store.emit(trx, expired, 'open', null);
        await this.deps.audit.record(sessionAudit(actor, 'checkout_session', 'expire', expired, { invoice_id: expired.invoice_id }), trx);
        return { expired };
      });
      if ('expired' in outcome) return outcome.expired;
      // A pick, a payment or another expiry changed the session first: look again.
      seen = outcome.changed;
    }
    // Picks and payments kept changing it: the partner may try again (the expiry job's next pass does).
    if (strict)
      throw sessionsErrors.checkout_session_payment_in_progress({ message: 'The checkout session kept changing while it was being ended; try again.' });
    return undefined;
  }

  /**
   * Cancels a session's invoice that was pending with nothing received. True when it is cancelled
   * (by this call or before); false when a payment reached it first (it is no longer cancellable).
   */
  async cancelInvoice(projectId: string, invoiceId: string, actor: Actor): Promise<boolean> {
    try {
      await this.deps.invoicesService.cancel(projectId, invoiceId, actor);
      return true;
    } catch (error) {
      if (!isAppError(error) || error.code !== 'invoice_not_cancellable') throw error;
      return (await this.deps.invoicesService.get(projectId, invoiceId)).status === 'cancelled';
    }
  }

  /**
   * The expiry job's pass: every open session past its deadline (by the database's clock, or `asOf`
   * for tests that move time), oldest deadline first, read in pages of `pageSize` by
   * (expires_at, id) so sessions left waiting (their invoice is being paid) never hold back those
   * behind them; each ended unless its invoice is being paid. Then the invoices closed sessions no
   * longer need are cancelled. Answers how many sessions expired.
   */
  async expireDue(options: { pageSize?: number; asOf?: Date } = {}): Promise<number> {
    const pageSize = options.pageSize ?? 200;
    const asOf = options.asOf ?? (await this.deps.db.raw<{ rows: { now: Date }[] }>('select now() as now')).rows[0]!.now;
    let expired = 0;
    let after: string | undefined;
    for (;;) {
      const query = Session.query(this.deps.db)
        .where('status', 'open')
        .where('expires_at', '<=', asOf)
        .orderBy([{ column: 'expires_at' }, { column: 'id' }])
        .limit(pageSize);
      // Keyed on the stored row (not a JavaScript Date of it) so the database's precision is kept.
      if (after) query.whereRaw('(expires_at, id) > (select s.expires_at, s.id from sessions_sessions s where s.id = ?)', [after]);
      const due = await query;
      for (const session of due) if (await this.end(session, EXPIRY_ACTOR, false)) expired += 1;
      if (due.length < pageSize) break;
      after = due[due.length - 1]!.id;
    }
    await this.cancelSuperseded();
    return expired;
  }

  /**
   * Cancels the pending invoices of closed sessions that did not pay them: a session completed by
   * a late payment to an abandoned address leaves the invoice of the coin picked last waiting.
   */
  async cancelSuperseded(limit = 200): Promise<number> {
    const rows = (await this.deps.db
      .from('sessions_invoices as i')
      .join('sessions_sessions as s', 's.id', 'i.session_id')
      .where('i.status', 'pending')
      .whereNot('s.status', 'open')
      .where((q) => q.whereNull('s.invoice_id').orWhereRaw('s.invoice_id <> i.invoice_id').orWhere('s.status', 'expired'))
      .limit(limit)
      .select('i.invoice_id', 'i.project_id')) as { invoice_id: string; project_id: string }[];
    let cancelled = 0;
    for (const row of rows) if (await this.cancelInvoice(row.project_id, row.invoice_id, EXPIRY_ACTOR)) cancelled += 1;
    return cancelled;
  }
}
