import {
  type Actor,
  type AuditEntry,
  type Extensions,
  type KernelConfig,
  type OutboundEvents,
  publicBaseUrl,
  randomHex,
  type SessionEventType,
  isoTime,
  isoTimeOrNull,
} from '@gw/kernel';
import type { Knex } from 'knex';
import { SESSION_OBSERVERS, type SessionInvoiceView, type SessionStatus, type SessionStatusChange, type SessionView } from '../contract.js';
import { sessionsErrors } from '../errors.js';
import { Session } from '../models/session.js';
import { SessionInvoice } from '../models/session-invoice.js';

/** The paths of the payer's pages below `{base_url}` (the pages themselves are the plugin's payer pages). */
export const SESSION_PAGE_PATH = '/pay';
export const LINK_PAGE_PATH = '/l';
export const RECEIPT_PAGE_PATH = '/receipts';

/** A fresh page or receipt token: 32 hex characters (128 bits). */
export function newPageToken(): string {
  return randomHex(16);
}

/** The audit entry of a write on a session or link (`checkout_session.<action>`, `payment_link.<action>`). */
export function sessionAudit(
  actor: Actor,
  object: 'checkout_session' | 'payment_link',
  action: string,
  row: { readonly id: string; readonly project_id: string },
  details: Record<string, unknown> = {},
): AuditEntry {
  return {
    actor: actor.actor,
    channel: actor.channel,
    requestId: actor.requestId ?? null,
    action: `${object}.${action}`,
    projectId: row.project_id,
    target: `${object}:${row.id}`,
    details,
  };
}

/** The audit entry of a new session or link: its price, and `details` besides. */
export function createAudit(
  actor: Actor,
  object: 'checkout_session' | 'payment_link',
  row: { readonly id: string; readonly project_id: string; readonly price_currency: string; readonly price_amount: string | null },
  details: Record<string, unknown> = {},
): AuditEntry {
  return sessionAudit(actor, object, 'create', row, { price_currency: row.price_currency, price_amount: row.price_amount, ...details });
}

/**
 * The sessions' rows, views and events: what every writer of a session shares (the partner's
 * service, the payer's actions, the invoice observer, the jobs). Events are written in the caller's
 * transaction, so one exists exactly when the change it announces does.
 */
export class SessionStore {
  readonly baseUrl: string;

  constructor(private readonly deps: { invoiceEvents: OutboundEvents; kernelConfig: KernelConfig; extensions: Extensions }) {
    this.baseUrl = publicBaseUrl(deps.kernelConfig);
  }

  sessionUrl(token: string): string {
    return `${this.baseUrl}${SESSION_PAGE_PATH}/${token}`;
  }

  linkUrl(token: string): string {
    return `${this.baseUrl}${LINK_PAGE_PATH}/${token}`;
  }

  receiptUrl(token: string): string {
    return `${this.baseUrl}${RECEIPT_PAGE_PATH}/${token}`;
  }

  /** The session of the project (any project without one), locked when `forUpdate`; 404 `checkout_session_not_found` otherwise. */
  async find(db: Knex | Knex.Transaction, projectId: string | undefined, id: string, forUpdate = false): Promise<Session> {
    const query = Session.query(db).findById(id);
    if (forUpdate) query.forUpdate();
    const session = await query;
    if (!session || (projectId !== undefined && session.project_id !== projectId)) throw sessionsErrors.checkout_session_not_found();
    return session;
  }

  async views(db: Knex | Knex.Transaction, sessions: readonly Session[]): Promise<SessionView[]> {
    if (sessions.length === 0) return [];
    const invoices = await SessionInvoice.query(db)
      .whereIn(
        'session_id',
        sessions.map((s) => s.id),
      )
      .orderBy(['created_at', 'invoice_id']);
    return sessions.map((session) =>
      this.view(
        session,
        invoices.filter((i) => i.session_id === session.id),
      ),
    );
  }

  async viewOf(db: Knex | Knex.Transaction, session: Session): Promise<SessionView> {
    return (await this.views(db, [session]))[0]!;
  }

  view(session: Session, invoices: readonly SessionInvoice[]): SessionView {
    const current = invoices.find((i) => i.invoice_id === session.invoice_id);
    return {
      id: session.id,
      object: 'checkout_session',
      project_id: session.project_id,
      mode: session.project_kind,
      status: session.status,
      price_currency: session.price_currency,
      price_amount: session.price_amount,
      allowed_coins: session.allowed_coins,
      description: session.description,
      line_items: session.line_items,
      external_id: session.external_id,
      customer_email: session.customer_email,
      return_url: session.return_url,
      cancel_url: session.cancel_url,
      metadata: session.metadata,
      url: this.sessionUrl(session.token),
      coin: current?.coin ?? null,
      invoice_id: session.invoice_id,
      invoices: invoices.map((i): SessionInvoiceView => ({
        invoice_id: i.invoice_id,
        coin: i.coin,
        status: i.status,
        amount_crypto: i.amount_crypto,
        late: i.late,
        created_at_iso: isoTime(i.created_at),
      })),
      payment_link_id: session.payment_link_id,
      receipt_url: session.receipt_token === null ? null : this.receiptUrl(session.receipt_token),
      expires_at_iso: isoTime(session.expires_at),
      completed_at_iso: isoTimeOrNull(session.completed_at),
      created_at_iso: isoTime(session.created_at),
    };
  }

  /**
   * Emits `checkout_session.<status>` for the session as it now is, in `trx`. It goes to the
   * project's default webhook URL (a session has no callback URL of its own) and, with `invoiceId`
   * (the paying invoice), is listed with that invoice's events.
   */
  async emit(trx: Knex.Transaction, session: Session, previous: SessionStatus, invoiceId: string | null): Promise<void> {
    const view = await this.viewOf(trx, session);
    await this.deps.invoiceEvents.emit(trx, [
      {
        projectId: session.project_id,
        projectKind: session.project_kind,
        invoiceId,
        eventType: `checkout_session.${session.status}` as SessionEventType,
        data: { checkout_session_id: session.id, invoice_id: invoiceId, status: session.status, previous_status: previous, checkout_session: { ...view } },
        callbackUrl: null,
      },
    ]);
    const change: SessionStatusChange = {
      sessionId: session.id,
      projectId: session.project_id,
      projectKind: session.project_kind,
      previousStatus: previous,
      status: session.status,
      invoiceId,
    };
    for (const { item: observer } of this.deps.extensions.of(SESSION_OBSERVERS)) await observer.onSession(trx, change);
  }
}
