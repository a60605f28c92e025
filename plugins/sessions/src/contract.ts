/**
 * The contract of the sessions plugin (issue 38: checkout sessions and payment links): the services
 * it registers and what other plugins may import from it (`@gw/plugin-sessions/contract`), nothing
 * else (ADR 0009).
 *
 * A **checkout session** is a price (in a fiat currency, ISO 4217, or in one coin) the payer pays in
 * a coin they pick on the session's page. Only the pick creates an ordinary invoice of that coin
 * (`invoicesService.create`), so the address pool is never spent on sessions nobody pays. Picking
 * another coin cancels the unpaid invoice; a payment that still reaches its address is credited to
 * the session as a late payment. The session completes when one of its invoices is paid (through
 * `INVOICE_OBSERVERS`), and expires at `expires_at` when nothing is being paid.
 *
 * A **payment link** is a reusable URL: each payer who opens it gets a session of their own.
 */
import { extensionPoint, type Actor, type CoinId, type KeysetPage, type ProjectKind, type ServiceName } from '@gw/kernel';
import type { Knex } from 'knex';

/** A session's statuses: `open` until paid (`completed`) or past its deadline unpaid (`expired`). */
export const SESSION_STATUSES = ['open', 'completed', 'expired'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** One line of the order, shown on the page and the receipt. `unit_amount` is in the session's `price_currency`. */
export interface LineItem {
  readonly name: string;
  readonly quantity: number;
  readonly unit_amount: string;
}

/** One invoice of a session: one per coin picked, the older ones cancelled (or credited late). */
export interface SessionInvoiceView {
  readonly invoice_id: string;
  readonly coin: CoinId;
  /** The invoice's status when the session last heard of it. */
  readonly status: string;
  readonly amount_crypto: string;
  /** Whether a payment to it was credited after the payer had switched away from it (or after the session closed). */
  readonly late: boolean;
  readonly created_at_iso: string;
}

/** A checkout session as the API answers it (`GET /api/v1/checkout-sessions/{id}`). */
export interface SessionView {
  readonly id: string;
  readonly object: 'checkout_session';
  readonly project_id: string;
  /** The project's kind (`sandbox` sessions use the sandbox mirror). */
  readonly mode: ProjectKind;
  readonly status: SessionStatus;
  /** ISO 4217 (`EUR`) or a coin id (`btc`) when the price is in one coin. */
  readonly price_currency: string;
  /** Decimal string in `price_currency`. */
  readonly price_amount: string;
  /** The coins the payer may pick from, in display order. */
  readonly allowed_coins: readonly CoinId[];
  readonly description: string | null;
  readonly line_items: readonly LineItem[];
  /** The partner's reference (not unique). */
  readonly external_id: string | null;
  readonly customer_email: string | null;
  readonly return_url: string | null;
  readonly cancel_url: string | null;
  readonly metadata: Readonly<Record<string, unknown>> | null;
  /** The payer's page: `{base_url}/pay/{token}`. */
  readonly url: string;
  /** The coin picked last and its invoice; null before the first pick. */
  readonly coin: CoinId | null;
  readonly invoice_id: string | null;
  /** Every invoice of the session, oldest first. */
  readonly invoices: readonly SessionInvoiceView[];
  /** The link the session was opened from; null for a partner's session. */
  readonly payment_link_id: string | null;
  /** The public receipt page, once completed; null before. */
  readonly receipt_url: string | null;
  readonly expires_at_iso: string;
  readonly completed_at_iso: string | null;
  readonly created_at_iso: string;
}

/** `POST /api/v1/checkout-sessions` (and the sandbox mirror). */
export interface CreateSessionInput {
  readonly price_currency: string;
  readonly price_amount: string;
  /** Default: every enabled coin the project has a verified wallet for (a coin-priced session: that coin only). */
  readonly allowed_coins?: readonly CoinId[];
  readonly description?: string;
  readonly line_items?: readonly LineItem[];
  readonly external_id?: string;
  readonly customer_email?: string;
  readonly return_url?: string;
  readonly cancel_url?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** Seconds until the session expires (default and limits in the plugin's config). */
  readonly expires_in?: number;
}

/** A payment link as the API answers it (`GET /api/v1/payment-links/{id}`). */
export interface PaymentLinkView {
  readonly id: string;
  readonly object: 'payment_link';
  readonly project_id: string;
  readonly mode: ProjectKind;
  readonly active: boolean;
  readonly price_currency: string;
  /** A fixed price; null when the payer enters the amount (between `min_amount` and `max_amount`). */
  readonly price_amount: string | null;
  readonly min_amount: string | null;
  readonly max_amount: string | null;
  readonly allowed_coins: readonly CoinId[];
  readonly description: string | null;
  readonly line_items: readonly LineItem[];
  /** Completed sessions it may have at most; null = unlimited. */
  readonly max_uses: number | null;
  /** Its completed sessions. */
  readonly uses: number;
  readonly ask_email: boolean;
  readonly return_url: string | null;
  readonly metadata: Readonly<Record<string, unknown>> | null;
  /** The reusable URL `{base_url}/l/{token}` and its QR code (`{url}/qr.svg`). */
  readonly url: string;
  readonly qr_url: string;
  readonly created_at_iso: string;
  readonly deactivated_at_iso: string | null;
}

/** `POST /api/v1/payment-links`. Exactly one of `price_amount` or both `min_amount`/`max_amount`. */
export interface CreateLinkInput {
  readonly price_currency: string;
  readonly price_amount?: string;
  readonly min_amount?: string;
  readonly max_amount?: string;
  readonly allowed_coins?: readonly CoinId[];
  readonly description?: string;
  readonly line_items?: readonly LineItem[];
  readonly max_uses?: number;
  /** Whether the link's page asks the payer for an e-mail address for the receipt (default true). */
  readonly ask_email?: boolean;
  readonly return_url?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface SessionListFilter {
  readonly projectId: string;
  readonly status?: SessionStatus;
  readonly paymentLinkId?: string;
  readonly externalId?: string;
  readonly cursor?: string;
  readonly limit: number;
}

export interface LinkListFilter {
  readonly projectId: string;
  readonly active?: boolean;
  readonly cursor?: string;
  readonly limit: number;
}

/** What the payer's pages need of a session, found by its page token (never the partner's metadata). */
export interface PayerSession {
  readonly session: SessionView;
  readonly projectName: string;
  /** The current invoice's checkout page (`/checkout/{token}`), null before a pick. */
  readonly checkoutUrl: string | null;
}

/** Sessions: partner writes and reads (API, sandbox mirror, MCP, CLI, dashboard) and the payer's actions. */
export interface CheckoutSessions {
  /**
   * Opens a session. `options.inTransaction` runs in the transaction that inserts it, after the
   * insert: what it writes commits with the session or not at all (a compatibility API's own row
   * and its "created" event), and its throw refuses the create. An idempotent replay does not run it.
   */
  create(
    project: { id: string; kind: ProjectKind },
    input: CreateSessionInput,
    actor: Actor,
    idempotencyKey?: string,
    options?: { readonly inTransaction?: (trx: Knex.Transaction, session: SessionView) => Promise<void> },
  ): Promise<{ session: SessionView; created: boolean }>;
  /**
   * One session of the project; 404 `checkout_session_not_found` otherwise. `options.trx` reads it
   * in a transaction (an observer's, which sees the change it is told of), and `options.lock` locks
   * its row there until the transaction ends (a compatibility API's write that depends on its status:
   * the session cannot complete or expire meanwhile).
   */
  get(projectId: string, sessionId: string, options?: { readonly trx?: Knex.Transaction; readonly lock?: boolean }): Promise<SessionView>;
  list(filter: SessionListFilter): Promise<KeysetPage<SessionView>>;
  /** Ends an open session now (`expired`, event `checkout_session.expired`); its unpaid invoice is cancelled. 409 `checkout_session_closed` otherwise. */
  expire(projectId: string, sessionId: string, actor: Actor): Promise<SessionView>;
  /** The payer's page: by the token of `url`; undefined when unknown. */
  byToken(token: string): Promise<PayerSession | undefined>;
  /**
   * The payer picks (or switches to) a coin: an open session gets an invoice of that coin, the
   * unpaid invoice of the previous coin is cancelled. The same coin again answers the current
   * invoice. 422 `coin_not_allowed`, 409 `checkout_session_closed`, 409
   * `checkout_session_payment_in_progress` (a payment to the current invoice was seen).
   */
  pick(token: string, coin: CoinId, actor: Actor): Promise<PayerSession>;
  /** The payer gives the e-mail address for the receipt (open sessions only). */
  setEmail(token: string, email: string, actor: Actor): Promise<PayerSession>;
  /** The session whose invoice this is (any of its invoices); undefined for an invoice of no session. */
  ofInvoice(invoiceId: string): Promise<SessionView | undefined>;
  /** The public receipt page's session, by its receipt token; undefined unless completed. */
  byReceiptToken(token: string): Promise<PayerSession | undefined>;
}

/** Payment links: partner writes and reads, and the payer's visit. */
export interface PaymentLinks {
  create(
    project: { id: string; kind: ProjectKind },
    input: CreateLinkInput,
    actor: Actor,
    idempotencyKey?: string,
  ): Promise<{ link: PaymentLinkView; created: boolean }>;
  get(projectId: string, linkId: string): Promise<PaymentLinkView>;
  list(filter: LinkListFilter): Promise<KeysetPage<PaymentLinkView>>;
  /** Deactivated links refuse new sessions (409 `payment_link_inactive`); sessions already open go on. */
  deactivate(projectId: string, linkId: string, actor: Actor): Promise<PaymentLinkView>;
  /** The link's public page: by the token of `url`; undefined when unknown. */
  byToken(token: string): Promise<{ link: PaymentLinkView; projectName: string } | undefined>;
  /**
   * A payer opens the link: a new session (the link's price, or `amount` within the limits: 422
   * `amount_out_of_range`). 409 `payment_link_inactive`, 409 `payment_link_used_up` (its completed
   * sessions reached `max_uses`).
   */
  open(token: string, input: { amount?: string; email?: string }, actor: Actor): Promise<PayerSession>;
}

declare module '@gw/kernel' {
  interface Cradle {
    readonly sessionsCheckout: CheckoutSessions;
    readonly sessionsLinks: PaymentLinks;
    readonly sessionsConfig: import('./config.js').SessionsConfig;
    /** The plugin's own: sessions' rows, views, URLs and events. */
    readonly sessionsStore: import('./services/session-store.js').SessionStore;
    /** The coins a project's sessions offer its payer (verified wallets, token contracts, the invoice policy's coins). */
    readonly sessionsCoins: import('./services/invoiceable-coins.js').InvoiceableCoins;
    /** Checks orders and writes new sessions (the partner's create, a payment link's visit). */
    readonly sessionsOpener: import('./services/session-opener.js').SessionOpener;
    /** Ends sessions (the partner, the expiry job) and cancels the invoices they no longer need. */
    readonly sessionsCloser: import('./services/session-closer.js').SessionCloser;
    readonly sessionsLatePayments: import('./services/late-payments.js').LatePayments;
  }
}

/** The actor of a payer's action on a session's or link's public page (audit channel `payer_page`). */
export const PAYER_ACTOR: Actor = { actor: 'payer', channel: 'payer_page' };

/**
 * The services other plugins may declare (ADR 0009); the plugin's other services are its own and
 * start-up refuses another plugin's declaration of one.
 */
/** The coins a project's sessions offer (`sessionsCoins`). */
export type { InvoiceableCoins } from './services/invoiceable-coins.js';

export const SESSIONS_EXPORTS: readonly ServiceName[] = ['sessionsCheckout', 'sessionsLinks', 'sessionsCoins'];

/** One change of a session's status, as observers hear it (issue 39: a compatibility API's own events). */
export interface SessionStatusChange {
  readonly sessionId: string;
  readonly projectId: string;
  readonly projectKind: ProjectKind;
  readonly previousStatus: SessionStatus;
  readonly status: SessionStatus;
  /** The paying invoice of a completion; null for an expiry. */
  readonly invoiceId: string | null;
}

/**
 * A plugin that follows sessions' statuses. The sessions plugin calls `onSession` inside the
 * transaction that completes or expires a session, after the change and its
 * `checkout_session.<status>` event: what the observer writes commits with the change or not at
 * all, and its throw rolls the change back. It must not call the sessions' services back in that
 * transaction.
 */
export interface SessionObserver {
  onSession(trx: Knex.Transaction, change: SessionStatusChange): Promise<void>;
}

/** Observers of sessions' statuses, contributed by other plugins (`contribute(SESSION_OBSERVERS, …)`, ADR 0011). */
export const SESSION_OBSERVERS = extensionPoint<SessionObserver>('sessions.observers');

/**
 * The session an invoice belongs to, read off its external id (`cs_<session>_<n>` of a pick,
 * `cs_<session>_late_<n>` of a credited late payment); undefined for an invoice of no session.
 * For observers of invoices (`INVOICE_OBSERVERS`), which hear of a change before any read.
 */
export { sessionIdOfExternalId } from './services/external-ids.js';

/**
 * The session and number of a credited late payment's external id (`cs_<session>_late_<n>`);
 * undefined for a pick's or any other. A late payment's invoice is made for what arrived: the
 * session's price in that coin is the amount of the pick at the same coin and address.
 */
export { parseLateExternalId } from './services/external-ids.js';
