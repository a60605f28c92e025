import { type Actor, type AuditLog, type ChainRegistry, type CoinId, coreErrors, newId, type ProjectKind } from '@gw/kernel';
import type { InvoiceService } from '@gw/plugin-invoices/contract';
import type { RateService } from '@gw/plugin-rates/contract';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import type { CreateSessionInput, LineItem, PayerSession } from '../contract.js';
import { SESSION_LIFETIME, type SessionsConfig } from '../config.js';
import { Session } from '../models/session.js';
import { amountOf, type PriceCurrencies, priceCurrencyOf, type PriceCurrency, unitsOf } from '../price-currency.js';
import type { InvoiceableCoins } from './invoiceable-coins.js';
import { checkDescription, checkEmail, checkLineItems, checkPartnerFields, TEXT_LIMITS } from './order.js';
import { createAudit, newPageToken, type SessionStore } from './session-store.js';

/** A session's order, checked: what a new session row is made of. */
export interface SessionOrder {
  readonly currency: PriceCurrency;
  readonly priceUnits: bigint;
  readonly allowedCoins: readonly CoinId[];
  readonly lineItems: readonly LineItem[];
  readonly description: string | null;
  readonly externalId: string | null;
  readonly customerEmail: string | null;
  readonly returnUrl: string | null;
  readonly cancelUrl: string | null;
  readonly metadata: Record<string, unknown> | null;
  readonly expiresInSeconds: number;
  readonly paymentLinkId: string | null;
}

/**
 * What opening a session takes, whoever opens it (the partner's create, a payer on a payment link):
 * the order checked against the project, the new row with its audit entry, and what the payer's
 * pages show of it.
 */
export class SessionOpener {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      chains: ChainRegistry;
      tenancyProjects: ProjectService;
      invoicesService: InvoiceService;
      sessionsStore: SessionStore;
      sessionsCoins: InvoiceableCoins;
      sessionsConfig: SessionsConfig;
      ratesService: RateService;
    },
  ) {}

  /** What a price may be in on this gateway. */
  private currencies(): PriceCurrencies {
    return { chains: this.deps.chains, fiatCurrencies: this.deps.ratesService.fiatCurrencies };
  }

  /** Checks a create request against the project: currency, amounts, coins, lines, URLs, expiry. */
  async checkOrder(project: { id: string; kind: ProjectKind }, input: CreateSessionInput, paymentLinkId: string | null = null): Promise<SessionOrder> {
    const currency = priceCurrencyOf(this.currencies(), input.price_currency);
    const priceUnits = unitsOf(currency, input.price_amount, 'price_amount');
    const lineItems = checkLineItems(currency, input.line_items, this.deps.sessionsConfig.maxLineItems, priceUnits);
    const allowedCoins = await this.allowedCoins(project, currency, input.allowed_coins);
    const expiresIn = input.expires_in ?? this.deps.sessionsConfig.expiresInSeconds;
    if (!Number.isInteger(expiresIn) || expiresIn < SESSION_LIFETIME.min || expiresIn > SESSION_LIFETIME.max) {
      throw coreErrors.validation_error({
        message: `expires_in must be a whole number of seconds from ${SESSION_LIFETIME.min} to ${SESSION_LIFETIME.max}.`,
        details: { field: 'expires_in' },
      });
    }
    const externalId = input.external_id?.trim();
    if (externalId !== undefined && (externalId === '' || externalId.length > TEXT_LIMITS.externalId)) {
      throw coreErrors.validation_error({ message: `external_id takes 1 to ${TEXT_LIMITS.externalId} characters.`, details: { field: 'external_id' } });
    }
    const partner = checkPartnerFields(input, project.kind);
    return {
      currency,
      priceUnits,
      allowedCoins,
      lineItems,
      description: checkDescription(input.description),
      externalId: externalId ?? null,
      customerEmail: input.customer_email === undefined ? null : checkEmail(input.customer_email),
      returnUrl: partner.return_url,
      cancelUrl: partner.cancel_url,
      metadata: partner.metadata,
      expiresInSeconds: expiresIn,
      paymentLinkId,
    };
  }

  /** The allowed coins of an order: a coin-priced one is paid in that coin only. */
  async allowedCoins(project: { id: string; kind: ProjectKind }, currency: PriceCurrency, requested: readonly string[] | undefined): Promise<CoinId[]> {
    if (currency.kind === 'coin') {
      if (requested !== undefined && (requested.length !== 1 || requested[0] !== currency.code)) {
        throw coreErrors.validation_error({
          message: `A price in ${currency.code} is paid in ${currency.code}: allowed_coins may only name it.`,
          details: { field: 'allowed_coins' },
        });
      }
      return this.deps.sessionsCoins.check(project, [currency.code]);
    }
    return this.deps.sessionsCoins.check(project, requested);
  }

  /** Writes a new open session of `order` in `trx` with its audit entry. */
  async insert(
    trx: Knex.Transaction,
    project: { id: string; kind: ProjectKind },
    order: SessionOrder,
    actor: Actor,
    request: { idempotencyKey: string | null; digest: string | null },
  ): Promise<Session> {
    const now = new Date();
    const session = await Session.query(trx).insertAndFetch({
      id: newId(),
      project_id: project.id,
      project_kind: project.kind,
      status: 'open',
      token: newPageToken(),
      receipt_token: null,
      price_currency: order.currency.code,
      price_amount: amountOf(order.currency, order.priceUnits),
      allowed_coins: [...order.allowedCoins],
      description: order.description,
      line_items: [...order.lineItems],
      external_id: order.externalId,
      customer_email: order.customerEmail,
      return_url: order.returnUrl,
      cancel_url: order.cancelUrl,
      metadata: order.metadata,
      payment_link_id: order.paymentLinkId,
      invoice_id: null,
      expires_at: new Date(now.getTime() + order.expiresInSeconds * 1000),
      completed_at: null,
      expired_at: null,
      idempotency_key: request.idempotencyKey,
      request_digest: request.digest,
      created_by: actor.actor,
      created_at: now,
      updated_at: now,
    });
    const link = session.payment_link_id ? { payment_link_id: session.payment_link_id } : {};
    await this.deps.audit.record(createAudit(actor, 'checkout_session', session, link), trx);
    return session;
  }

  /** What the payer's pages show of a session: never the partner's metadata. */
  async payerSession(session: Session): Promise<PayerSession> {
    const project = await this.deps.tenancyProjects.get(session.project_id);
    const view = await this.deps.sessionsStore.viewOf(this.deps.db, session);
    const checkoutUrl = session.invoice_id === null ? null : (await this.deps.invoicesService.get(session.project_id, session.invoice_id)).checkout_url;
    return { session: { ...view, metadata: null }, projectName: project.name, checkoutUrl };
  }
}
