import {
  type Actor,
  type AuditLog,
  type ChainRegistry,
  type CoinId,
  coreErrors,
  isoTime,
  isoTimeOrNull,
  type KeysetPage,
  keysetPage,
  newId,
  type ProjectKind,
} from '@gw/kernel';
import type { RateService } from '@gw/plugin-rates/contract';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import type { CreateLinkInput, LinkListFilter, PayerSession, PaymentLinkView, PaymentLinks } from '../contract.js';
import type { SessionsConfig } from '../config.js';
import { sessionsErrors } from '../errors.js';
import { PaymentLink } from '../models/payment-link.js';
import { Session } from '../models/session.js';
import { amountOf, type PriceCurrencies, priceCurrencyOf, unitsOf } from '../price-currency.js';
import { createOnce } from './create-once.js';
import type { InvoiceableCoins } from './invoiceable-coins.js';
import { checkDescription, checkEmail, checkLineItems, checkPartnerFields } from './order.js';
import type { SessionOpener } from './session-opener.js';
import { createAudit, newPageToken, sessionAudit, type SessionStore } from './session-store.js';

const PAGE_TOKEN = /^[0-9a-f]{32}$/;

/**
 * Payment links (issue 38): a reusable page whose every visit opens a checkout session of its own,
 * at the link's price or an amount the payer enters within its limits. A link without
 * `allowed_coins` offers the coins the project can be paid in when each session opens.
 */
export class PaymentLinksService implements PaymentLinks {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      chains: ChainRegistry;
      tenancyProjects: ProjectService;
      sessionsStore: SessionStore;
      sessionsCoins: InvoiceableCoins;
      sessionsConfig: SessionsConfig;
      ratesService: RateService;
      sessionsOpener: SessionOpener;
    },
  ) {}

  /** What a price may be in on this gateway. */
  private currencies(): PriceCurrencies {
    return { chains: this.deps.chains, fiatCurrencies: this.deps.ratesService.fiatCurrencies };
  }

  async create(
    project: { id: string; kind: ProjectKind },
    input: CreateLinkInput,
    actor: Actor,
    idempotencyKey?: string,
  ): Promise<{ link: PaymentLinkView; created: boolean }> {
    const row = await this.checkLink(project, input);
    const { value: link, created } = await createOnce(this.deps.db, idempotencyKey, input, {
      constraint: 'sessions_links_idempotency',
      replayed: (key, digest) => this.replayed(project.id, key, digest),
      create: async (trx, digest) => {
        const now = new Date();
        const inserted = await PaymentLink.query(trx).insertAndFetch({
          id: newId(),
          project_id: project.id,
          project_kind: project.kind,
          token: newPageToken(),
          active: true,
          ...row,
          idempotency_key: idempotencyKey ?? null,
          request_digest: digest,
          created_by: actor.actor,
          created_at: now,
          updated_at: now,
          deactivated_at: null,
        });
        await this.deps.audit.record(createAudit(actor, 'payment_link', inserted, { max_uses: inserted.max_uses }), trx);
        return (await this.views(trx, [inserted]))[0]!;
      },
    });
    return { link, created };
  }

  /** A create request checked against the project: the link row's fields. */
  private async checkLink(project: { id: string; kind: ProjectKind }, input: CreateLinkInput) {
    const currency = priceCurrencyOf(this.currencies(), input.price_currency);
    const fixed = input.price_amount !== undefined;
    if (fixed === (input.min_amount !== undefined || input.max_amount !== undefined)) {
      throw coreErrors.validation_error({
        message: fixed ? 'Give either price_amount or min_amount and max_amount, not both.' : 'Give price_amount, or min_amount and max_amount.',
        details: { field: fixed ? 'min_amount' : 'price_amount' },
      });
    }
    let priceUnits: bigint | undefined;
    let limits: { min: bigint; max: bigint } | undefined;
    if (fixed) priceUnits = unitsOf(currency, input.price_amount!, 'price_amount');
    else {
      if (input.min_amount === undefined || input.max_amount === undefined) {
        throw coreErrors.validation_error({
          message: 'An amount the payer enters needs both min_amount and max_amount.',
          details: { field: input.min_amount === undefined ? 'min_amount' : 'max_amount' },
        });
      }
      limits = { min: unitsOf(currency, input.min_amount, 'min_amount'), max: unitsOf(currency, input.max_amount, 'max_amount') };
      if (limits.min > limits.max) throw coreErrors.validation_error({ message: 'min_amount is above max_amount.', details: { field: 'min_amount' } });
      if (input.line_items !== undefined && input.line_items.length > 0) {
        throw coreErrors.validation_error({ message: 'Line items need a fixed price_amount to add up to.', details: { field: 'line_items' } });
      }
    }
    if (input.max_uses !== undefined && (!Number.isInteger(input.max_uses) || input.max_uses < 1)) {
      throw coreErrors.validation_error({ message: 'max_uses must be a whole number from 1.', details: { field: 'max_uses' } });
    }
    // Checked now, kept as given: a link without coins offers what the project can be paid in at each visit.
    const allowed =
      input.allowed_coins === undefined && currency.kind === 'fiat'
        ? null
        : await this.deps.sessionsOpener.allowedCoins(project, currency, input.allowed_coins);
    if (allowed === null) await this.deps.sessionsCoins.check(project, undefined);
    const partner = checkPartnerFields(input, project.kind);
    return {
      price_currency: currency.code,
      price_amount: priceUnits === undefined ? null : amountOf(currency, priceUnits),
      min_amount: limits ? amountOf(currency, limits.min) : null,
      max_amount: limits ? amountOf(currency, limits.max) : null,
      allowed_coins: allowed,
      description: checkDescription(input.description),
      line_items: checkLineItems(currency, input.line_items, this.deps.sessionsConfig.maxLineItems, priceUnits),
      max_uses: input.max_uses ?? null,
      ask_email: input.ask_email ?? true,
      return_url: partner.return_url,
      metadata: partner.metadata,
    };
  }

  async get(projectId: string, linkId: string): Promise<PaymentLinkView> {
    return (await this.views(this.deps.db, [await this.find(this.deps.db, projectId, linkId)]))[0]!;
  }

  async list(filter: LinkListFilter): Promise<KeysetPage<PaymentLinkView>> {
    const query = PaymentLink.query(this.deps.db)
      .where('project_id', filter.projectId)
      .orderBy('id', 'desc')
      .limit(filter.limit + 1);
    if (filter.active !== undefined) query.where('active', filter.active);
    if (filter.cursor) query.where('id', '<', filter.cursor);
    return keysetPage(await query, filter.limit, (rows) => this.views(this.deps.db, rows));
  }

  async deactivate(projectId: string, linkId: string, actor: Actor): Promise<PaymentLinkView> {
    return this.deps.db.transaction(async (trx) => {
      const link = await this.find(trx, projectId, linkId, true);
      if (!link.active) return (await this.views(trx, [link]))[0]!;
      const now = new Date();
      const deactivated = await PaymentLink.query(trx).patchAndFetchById(link.id, { active: false, deactivated_at: now, updated_at: now });
      await this.deps.audit.record(sessionAudit(actor, 'payment_link', 'deactivate', deactivated), trx);
      return (await this.views(trx, [deactivated]))[0]!;
    });
  }

  async byToken(token: string): Promise<{ link: PaymentLinkView; projectName: string } | undefined> {
    if (!PAGE_TOKEN.test(token)) return undefined;
    const link = await PaymentLink.query(this.deps.db).findOne({ token });
    if (!link) return undefined;
    const project = await this.deps.tenancyProjects.get(link.project_id);
    return { link: { ...(await this.views(this.deps.db, [link]))[0]!, metadata: null }, projectName: project.name };
  }

  async open(token: string, input: { amount?: string; email?: string }, actor: Actor): Promise<PayerSession> {
    const link = PAGE_TOKEN.test(token) ? await PaymentLink.query(this.deps.db).findOne({ token }) : undefined;
    if (!link) throw sessionsErrors.payment_link_not_found();
    if (!link.active) throw sessionsErrors.payment_link_inactive();
    await this.checkUses(this.deps.db, link);
    const currency = priceCurrencyOf(this.currencies(), link.price_currency);
    const amount = input.amount?.trim() === '' ? undefined : input.amount?.trim();
    let price: string;
    if (link.price_amount !== null) {
      if (amount !== undefined && unitsOf(currency, amount, 'amount') !== unitsOf(currency, link.price_amount, 'price_amount')) {
        throw coreErrors.validation_error({ message: 'This payment link has a fixed price: no amount is entered.', details: { field: 'amount' } });
      }
      price = link.price_amount;
    } else {
      if (amount === undefined) throw coreErrors.validation_error({ message: 'Enter the amount to pay.', details: { field: 'amount' } });
      const units = unitsOf(currency, amount, 'amount');
      const min = unitsOf(currency, link.min_amount!, 'min_amount');
      const max = unitsOf(currency, link.max_amount!, 'max_amount');
      if (units < min || units > max) {
        throw sessionsErrors.amount_out_of_range({
          message: `The amount must be from ${link.min_amount} to ${link.max_amount} ${link.price_currency}.`,
          details: { field: 'amount', min_amount: link.min_amount, max_amount: link.max_amount, currency: link.price_currency },
        });
      }
      price = amountOf(currency, units);
    }
    const project = { id: link.project_id, kind: link.project_kind };
    const email = input.email === undefined || input.email.trim() === '' ? undefined : checkEmail(input.email, 'email');
    const opener = this.deps.sessionsOpener;
    const order = await opener.checkOrder(
      project,
      {
        price_currency: link.price_currency,
        price_amount: price,
        ...(link.allowed_coins === null ? {} : { allowed_coins: link.allowed_coins }),
        ...(link.description === null ? {} : { description: link.description }),
        line_items: link.line_items,
        ...(email === undefined ? {} : { customer_email: email }),
        ...(link.return_url === null ? {} : { return_url: link.return_url }),
        ...(link.metadata === null ? {} : { metadata: link.metadata }),
      },
      link.id,
    );
    const session = await this.deps.db.transaction(async (trx) => {
      // The link's row lock serialises the opens of one link: the count below and the insert are one step.
      const locked = await this.find(trx, link.project_id, link.id, true);
      if (!locked.active) throw sessionsErrors.payment_link_inactive();
      await this.checkUses(trx, locked);
      return opener.insert(trx, project, order, actor, { idempotencyKey: null, digest: null });
    });
    return opener.payerSession(session);
  }

  /**
   * 409 `payment_link_used_up` when a link with `max_uses` has as many sessions completed or still
   * open: an open session reserves a use (its payer may be paying), an expired one gives it back.
   */
  private async checkUses(db: Knex | Knex.Transaction, link: PaymentLink): Promise<void> {
    if (link.max_uses === null) return;
    const row = (await Session.query(db).where('payment_link_id', link.id).whereIn('status', ['open', 'completed']).count('* as n').first()) as unknown as
      { n: string | number } | undefined;
    const taken = Number(row?.n ?? 0);
    if (taken >= link.max_uses) {
      const uses = (await this.usesOf(db, [link.id])).get(link.id) ?? 0;
      throw sessionsErrors.payment_link_used_up({
        ...(taken > uses ? { message: 'The payment link has no use left: its open checkout sessions hold the rest until they complete or expire.' } : {}),
        details: { max_uses: link.max_uses, uses, open_sessions: taken - uses },
      });
    }
  }

  /** The link of the project, locked when `forUpdate`; 404 `payment_link_not_found` otherwise. */
  private async find(db: Knex | Knex.Transaction, projectId: string, id: string, forUpdate = false): Promise<PaymentLink> {
    const query = PaymentLink.query(db).findById(id);
    if (forUpdate) query.forUpdate();
    const link = await query;
    if (!link || link.project_id !== projectId) throw sessionsErrors.payment_link_not_found();
    return link;
  }

  /** The completed sessions of each link. */
  private async usesOf(db: Knex | Knex.Transaction, linkIds: readonly string[]): Promise<Map<string, number>> {
    if (linkIds.length === 0) return new Map();
    const rows = (await Session.query(db)
      .whereIn('payment_link_id', [...linkIds])
      .where('status', 'completed')
      .groupBy('payment_link_id')
      .select('payment_link_id')
      .count('* as uses')) as unknown as { payment_link_id: string; uses: string | number }[];
    return new Map(rows.map((r) => [r.payment_link_id, Number(r.uses)]));
  }

  private async views(db: Knex | Knex.Transaction, links: readonly PaymentLink[]): Promise<PaymentLinkView[]> {
    const uses = await this.usesOf(
      db,
      links.map((l) => l.id),
    );
    const defaults = new Map<string, CoinId[]>();
    const views: PaymentLinkView[] = [];
    for (const link of links) {
      let coins = link.allowed_coins;
      if (coins === null) {
        if (!defaults.has(link.project_id)) defaults.set(link.project_id, await this.deps.sessionsCoins.of({ id: link.project_id, kind: link.project_kind }));
        coins = defaults.get(link.project_id)!;
      }
      const url = this.deps.sessionsStore.linkUrl(link.token);
      views.push({
        id: link.id,
        object: 'payment_link',
        project_id: link.project_id,
        mode: link.project_kind,
        active: link.active,
        price_currency: link.price_currency,
        price_amount: link.price_amount,
        min_amount: link.min_amount,
        max_amount: link.max_amount,
        allowed_coins: coins,
        description: link.description,
        line_items: link.line_items,
        max_uses: link.max_uses,
        uses: uses.get(link.id) ?? 0,
        ask_email: link.ask_email,
        return_url: link.return_url,
        metadata: link.metadata,
        url,
        qr_url: `${url}/qr.svg`,
        created_at_iso: isoTime(link.created_at),
        deactivated_at_iso: isoTimeOrNull(link.deactivated_at),
      });
    }
    return views;
  }

  private async replayed(projectId: string, key: string, digest: string): Promise<PaymentLinkView | undefined> {
    const link = await PaymentLink.query(this.deps.db).findOne({ project_id: projectId, idempotency_key: key });
    if (!link) return undefined;
    if (link.request_digest !== digest) throw sessionsErrors.idempotency_key_reused();
    return (await this.views(this.deps.db, [link]))[0]!;
  }
}
