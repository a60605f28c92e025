import {
  type Actor,
  type AuditLog,
  type ChainRegistry,
  type CoinId,
  isAppError,
  type KeysetPage,
  keysetPage,
  type ProjectKind,
  type RateLimiter,
} from '@gw/kernel';
import { type CreateInvoiceInput, type InvoiceService, type InvoiceView, WAITING_STATUSES } from '@gw/plugin-invoices/contract';
import { isRateUnavailable, RATE_UNAVAILABLE_RETRY_AFTER } from '@gw/plugin-rates/contract';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import type { CheckoutSessions, CreateSessionInput, PayerSession, SessionListFilter, SessionView } from '../contract.js';
import { sessionsErrors } from '../errors.js';
import { Session } from '../models/session.js';
import { SessionInvoice } from '../models/session-invoice.js';
import { pickExternalId } from './external-ids.js';
import { createOnce } from './create-once.js';
import { checkEmail } from './order.js';
import { invoiceState, type SessionCloser } from './session-closer.js';
import type { SessionOpener } from './session-opener.js';
import { sessionAudit, type SessionStore } from './session-store.js';

/** A page or receipt token as the store hands them out. */
const PAGE_TOKEN = /^[0-9a-f]{32}$/;

/** How often a pick starts again after a concurrent one on the same session changed it first. */
const ATTEMPTS = 5;

/**
 * New invoices a session's picks may create per window: each takes a pool address into its
 * cooldown, and the page is public (whoever holds its link can pick), so a page cannot drain the
 * pool. Answering the current invoice again costs nothing and is not counted.
 */
export const PICK_LIMIT = { limit: 10, windowSeconds: 600 } as const;

/**
 * Checkout sessions (issue 38): the partner's writes and reads, and the payer's actions. A pick
 * creates the invoice of the coin through `invoicesService.create` outside any session lock (the
 * invoice's own transaction allocates the address: a pick holding the session's lock and its
 * pooled connection while it waited for another would let concurrent picks exhaust the pool),
 * then records it on the session under
 * `SELECT … FOR UPDATE` of the session row, checking that no concurrent pick or expiry changed the
 * session meanwhile. The invoice's external id `cs_<session>_<n>` makes concurrent picks of one
 * session meet at the invoices' unique key: one creates, the other replays it (same coin) or tries
 * the next `n` (another coin), and whichever records second starts again from the session as the
 * first left it.
 */
export class CheckoutSessionsService implements CheckoutSessions {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      chains: ChainRegistry;
      tenancyProjects: ProjectService;
      invoicesService: InvoiceService;
      sessionsStore: SessionStore;
      sessionsOpener: SessionOpener;
      sessionsCloser: SessionCloser;
      rateLimiter: RateLimiter;
    },
  ) {}

  async create(
    project: { id: string; kind: ProjectKind },
    input: CreateSessionInput,
    actor: Actor,
    idempotencyKey?: string,
    options?: { readonly inTransaction?: (trx: Knex.Transaction, session: SessionView) => Promise<void> },
  ): Promise<{ session: SessionView; created: boolean }> {
    const opener = this.deps.sessionsOpener;
    const order = await opener.checkOrder(project, input);
    const { value: session, created } = await createOnce(this.deps.db, idempotencyKey, input, {
      constraint: 'sessions_sessions_idempotency',
      replayed: (key, digest) => this.replayed(project.id, key, digest),
      create: async (trx, digest) => {
        const row = await opener.insert(trx, project, order, actor, { idempotencyKey: idempotencyKey ?? null, digest });
        const view = await this.deps.sessionsStore.viewOf(trx, row);
        await options?.inTransaction?.(trx, view);
        return view;
      },
    });
    return { session, created };
  }

  async get(projectId: string, sessionId: string, options: { readonly trx?: Knex.Transaction; readonly lock?: boolean } = {}): Promise<SessionView> {
    const store = this.deps.sessionsStore;
    const db = options.trx ?? this.deps.db;
    return store.viewOf(db, await store.find(db, projectId, sessionId, options.trx !== undefined && options.lock === true));
  }

  async list(filter: SessionListFilter): Promise<KeysetPage<SessionView>> {
    const query = Session.query(this.deps.db)
      .where('project_id', filter.projectId)
      .orderBy('id', 'desc')
      .limit(filter.limit + 1);
    if (filter.status) query.where('status', filter.status);
    if (filter.paymentLinkId) query.where('payment_link_id', filter.paymentLinkId);
    if (filter.externalId) query.where('external_id', filter.externalId);
    if (filter.cursor) query.where('id', '<', filter.cursor);
    return keysetPage(await query, filter.limit, (rows) => this.deps.sessionsStore.views(this.deps.db, rows));
  }

  async expire(projectId: string, sessionId: string, actor: Actor): Promise<SessionView> {
    const session = await this.deps.sessionsStore.find(this.deps.db, projectId, sessionId);
    const ended = await this.deps.sessionsCloser.end(session, actor, true);
    return this.deps.sessionsStore.viewOf(this.deps.db, ended!);
  }

  async byToken(token: string): Promise<PayerSession | undefined> {
    if (!PAGE_TOKEN.test(token)) return undefined;
    const session = await Session.query(this.deps.db).findOne({ token });
    return session && this.deps.sessionsOpener.payerSession(session);
  }

  async byReceiptToken(token: string): Promise<PayerSession | undefined> {
    if (!PAGE_TOKEN.test(token)) return undefined;
    const session = await Session.query(this.deps.db).findOne({ receipt_token: token, status: 'completed' });
    return session && this.deps.sessionsOpener.payerSession(session);
  }

  async ofInvoice(invoiceId: string): Promise<SessionView | undefined> {
    const row = await SessionInvoice.query(this.deps.db).findById(invoiceId);
    if (!row) return undefined;
    const store = this.deps.sessionsStore;
    return store.viewOf(this.deps.db, await store.find(this.deps.db, undefined, row.session_id));
  }

  async setEmail(token: string, email: string, actor: Actor): Promise<PayerSession> {
    const address = checkEmail(email, 'email');
    const session = await this.sessionOfToken(token);
    const updated = await this.deps.db.transaction(async (trx) => {
      const locked = await this.deps.sessionsStore.find(trx, undefined, session.id, true);
      if (locked.status !== 'open') throw sessionsErrors.checkout_session_closed({ details: { status: locked.status } });
      const patched = await Session.query(trx).patchAndFetchById(locked.id, { customer_email: address, updated_at: new Date() });
      await this.deps.audit.record(sessionAudit(actor, 'checkout_session', 'set_email', patched), trx);
      return patched;
    });
    return this.deps.sessionsOpener.payerSession(updated);
  }

  async pick(token: string, coin: CoinId, actor: Actor): Promise<PayerSession> {
    const store = this.deps.sessionsStore;
    let session = await this.sessionOfToken(token);
    // How many numbers past the session's last pick this one tries: a number whose invoice is
    // another coin's (a concurrent pick not yet recorded) is passed over.
    let skip = 0;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      this.assertPickable(session, coin);
      const current = session.invoice_id === null ? undefined : await this.deps.invoicesService.get(session.project_id, session.invoice_id);
      if (current && current.coin === coin && WAITING_STATUSES.includes(current.status)) return this.deps.sessionsOpener.payerSession(session);
      const state = current ? invoiceState(current) : 'none';
      if (state === 'paid') throw sessionsErrors.checkout_session_closed({ details: { status: session.status, invoice_id: current!.id } });
      if (state === 'paying') {
        throw sessionsErrors.checkout_session_payment_in_progress({ details: { invoice_id: current!.id, invoice_status: current!.status } });
      }
      if (attempt === 0) await this.deps.rateLimiter.consume({ key: `sessions.pick:${session.id}`, ...PICK_LIMIT });
      const seq = (await this.lastSeq(session.id)) + 1 + skip;
      const created = await this.createInvoice(session, coin, seq, actor);
      if (created === undefined || created.status !== 'pending') {
        skip += 1;
        continue;
      }
      if (await SessionInvoice.query(this.deps.db).findById(created.id)) {
        // A concurrent pick of the same coin created and recorded it: the session as it left it.
        session = await store.find(this.deps.db, undefined, session.id);
        continue;
      }
      if (current && state === 'cancel' && !(await this.deps.sessionsCloser.cancelInvoice(session.project_id, current.id, actor))) {
        // A payment reached the previous invoice first: it stays, the new one goes.
        await this.record(session.id, created, seq, coin);
        await this.deps.sessionsCloser.cancelInvoice(session.project_id, created.id, actor);
        throw sessionsErrors.checkout_session_payment_in_progress({ details: { invoice_id: current.id } });
      }
      const outcome = await this.record(session.id, created, seq, coin, { expected: session.invoice_id, actor });
      if (outcome.current) return this.deps.sessionsOpener.payerSession(outcome.session);
      // The session closed, or another pick was recorded first: this invoice goes, and the pick starts again from the session as it is.
      await this.deps.sessionsCloser.cancelInvoice(session.project_id, created.id, actor);
      if (outcome.session.status !== 'open') throw sessionsErrors.checkout_session_closed({ details: { status: outcome.session.status } });
      session = outcome.session;
      skip = 0;
    }
    throw sessionsErrors.checkout_session_payment_in_progress({ message: 'The checkout session is being changed by another request; try again.' });
  }

  /** 404 for an unknown page token. */
  private async sessionOfToken(token: string): Promise<Session> {
    const session = PAGE_TOKEN.test(token) ? await Session.query(this.deps.db).findOne({ token }) : undefined;
    if (!session) throw sessionsErrors.checkout_session_not_found();
    return session;
  }

  /** 409 `checkout_session_closed` for a session no longer open (or past its deadline), 422 `coin_not_allowed` for a coin it does not offer. */
  private assertPickable(session: Session, coin: CoinId): void {
    if (session.status !== 'open' || new Date(session.expires_at).getTime() <= Date.now()) {
      throw sessionsErrors.checkout_session_closed({ details: { status: session.status, expires_at_iso: new Date(session.expires_at).toISOString() } });
    }
    if (!session.allowed_coins.includes(coin)) {
      throw sessionsErrors.coin_not_allowed({
        message: `The payer may pick one of ${session.allowed_coins.join(', ')}.`,
        details: { coin, allowed_coins: session.allowed_coins },
      });
    }
  }

  /** The highest `n` of the session's picks so far (0 before the first). */
  private async lastSeq(sessionId: string): Promise<number> {
    const row = (await SessionInvoice.query(this.deps.db).where({ session_id: sessionId, kind: 'pick' }).max('seq as seq').first()) as unknown as
      { seq: number | null } | undefined;
    return row?.seq ?? 0;
  }

  /** The invoice of a pick (`cs_<session>_<seq>`): created, or replayed; undefined when the key holds another coin's. */
  private async createInvoice(session: Session, coin: CoinId, seq: number, actor: Actor): Promise<InvoiceView | undefined> {
    const principal = await this.deps.tenancyProjects.principal(session.project_id);
    if (!principal) throw sessionsErrors.checkout_session_not_found();
    const input: CreateInvoiceInput = {
      external_id: pickExternalId(session.id, seq),
      coin,
      // A price in a coin is in its id (`btc`); a fiat one in an ISO 4217 code.
      ...(this.deps.chains.knownCoin(session.price_currency) !== undefined
        ? { amount_crypto: session.price_amount }
        : { price_currency: session.price_currency, price_amount: session.price_amount }),
      callback_url: null,
      return_url: session.return_url,
      cancel_url: session.cancel_url,
      metadata: { checkout_session_id: session.id },
    };
    try {
      return (await this.deps.invoicesService.create(principal, input, actor)).invoice;
    } catch (error) {
      if (isAppError(error) && error.code === 'external_id_conflict') return undefined;
      if (isRateUnavailable(error)) {
        throw sessionsErrors.rate_quote_unavailable({ message: (error as Error).message, retryAfter: RATE_UNAVAILABLE_RETRY_AFTER, details: { coin } });
      }
      throw error;
    }
  }

  /**
   * Records `invoice` as one of the session's, and with `current` makes it the session's current
   * invoice, under the session row's lock: only while the session is open and its current invoice
   * is still `current.expected` (nothing changed it since it was read).
   */
  private async record(
    sessionId: string,
    invoice: InvoiceView,
    seq: number,
    coin: CoinId,
    current?: { readonly expected: string | null; readonly actor: Actor },
  ): Promise<{ current: boolean; session: Session }> {
    return this.deps.db.transaction(async (trx) => {
      const locked = await this.deps.sessionsStore.find(trx, undefined, sessionId, true);
      // A concurrent pick of the same coin (the invoice replayed to both) made it current already.
      if (locked.invoice_id === invoice.id) return { current: true, session: locked };
      await trx(SessionInvoice.tableName)
        .insert({
          invoice_id: invoice.id,
          session_id: locked.id,
          project_id: locked.project_id,
          kind: 'pick',
          seq,
          coin,
          address: invoice.address,
          status: invoice.status,
          amount_crypto: invoice.amount_crypto,
          late: false,
          created_at: new Date(),
        })
        .onConflict('invoice_id')
        .ignore();
      if (!current || locked.status !== 'open' || locked.invoice_id !== current.expected) return { current: false, session: locked };
      const picked = await Session.query(trx).patchAndFetchById(locked.id, { invoice_id: invoice.id, updated_at: new Date() });
      await this.deps.audit.record(
        sessionAudit(current.actor, 'checkout_session', 'pick', picked, { coin, invoice_id: invoice.id, previous_invoice_id: current.expected }),
        trx,
      );
      return { current: true, session: picked };
    });
  }

  private async replayed(projectId: string, key: string, digest: string): Promise<SessionView | undefined> {
    const session = await Session.query(this.deps.db).findOne({ project_id: projectId, idempotency_key: key });
    if (!session) return undefined;
    if (session.request_digest !== digest) throw sessionsErrors.idempotency_key_reused();
    return this.deps.sessionsStore.viewOf(this.deps.db, session);
  }
}
