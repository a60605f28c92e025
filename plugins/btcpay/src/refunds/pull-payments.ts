import {
  type Actor,
  AppError,
  type ChainRegistry,
  type CoinId,
  fromBaseUnits,
  type KernelConfig,
  publicBaseUrl,
  randomBase62,
  type SecretBox,
} from '@gw/kernel';
import type { InvoiceService, InvoiceView } from '@gw/plugin-invoices/contract';
import { CLAIM_PATH, type ItemView, PARTNER_CANCELLABLE_STATUSES, type PayoutItems } from '@gw/plugin-payouts/contract';
import { fiatDecimals } from '@gw/plugin-rates/contract';
import { type CheckoutSessions, parseLateExternalId, type SessionInvoiceView, type SessionView } from '@gw/plugin-sessions/contract';
import type { Knex } from 'knex';
import { btcpayErrors } from '../errors.js';
import type { CoinNames } from '../invoices/create-request.js';
import { currentInvoiceOf } from '../invoices/current-invoice.js';
import { type CoinCodes, stateOf } from '../invoices/invoice-data.js';
import { INVOICES_TABLE, type InvoiceRow } from '../invoices/invoice-rows.js';
import { confirmedUnitsOf } from '../invoices/invoice-transactions.js';
import type { BtcpayState } from '../invoices/status-table.js';
import { validationFailed, type ValidationIssue } from '../invoices/validation-issues.js';
import { payoutData, pullPaymentData, type PayoutData, type PullPaymentData, type PullPaymentRow } from './pull-payment-view.js';
import type { CreatePullPaymentRequest, RefundInvoiceRequest } from './refund-request.js';
import { type PaidInvoice, planRefund, type RefundPlan, type RefundVariant, unitsOf, VariantError } from './refund-variants.js';

/** The table of the Greenfield pull payments (migration 0003). */
export const PULL_PAYMENTS_TABLE = 'btcpay_pull_payments';

/** Characters of a pull payment id: base62, about 160 bits, as unguessable as BTCPay's 20 random bytes. */
const PULL_PAYMENT_ID_LENGTH = 27;

/** One row of `btcpay_pull_payments`. */
interface StoredPullPayment extends PullPaymentRow {
  readonly project_id: string;
  readonly refund_id: string;
  readonly session_id: string;
  readonly variant: RefundVariant | null;
  readonly sealed_claim_token: string | null;
}

export interface PullPaymentsDeps {
  db: Knex;
  secretBox: SecretBox;
  kernelConfig: KernelConfig;
  chains: ChainRegistry;
  sessionsCheckout: CheckoutSessions;
  invoicesService: InvoiceService;
  payoutsItems: PayoutItems;
  /** How coins are called in BTCPay's words (payment method ids, currency codes). */
  btcpayCoins: CoinCodes & CoinNames;
}

/** A BTCPay invoice with what a refund of it needs: its session, its row, its BTCPay state. */
interface RefundableInvoice {
  readonly session: SessionView;
  readonly row: Pick<InvoiceRow, 'session_id' | 'marked_status'>;
  readonly state: BtcpayState;
}

/** What a pull payment is created from: the refund to ask for, and what the pull payment states. */
interface PullPaymentSpec {
  readonly plan: RefundPlan;
  readonly variant: RefundVariant | null;
  readonly name: string;
  readonly description: string;
  /** The request field an amount above what is left to refund is blamed on. */
  readonly amountPath: string;
}

/**
 * Greenfield pull payments (issue 39): each one refund of the payouts plugin, of the paid invoice
 * of a BTCPay invoice (a checkout session). Created by BTCPay's invoice refund
 * (`POST .../invoices/{invoiceId}/refund`) or by a store pull payment that names its invoice (what
 * BTCPay's WooCommerce plugin sends on a refund); read back by id, publicly, as BTCPay does.
 */
export class PullPayments {
  private readonly baseUrl: string;

  constructor(private readonly deps: PullPaymentsDeps) {
    this.baseUrl = publicBaseUrl(deps.kernelConfig);
  }

  /**
   * BTCPay's `RefundInvoice`: 404 `invoice-not-found` for an invoice not of the store, 400
   * `non-refundable` unless BTCPay would refund it (settled, invalid, or expired after money came)
   * and something was received, 422 for a request its invoice cannot take (a payout method it was
   * not paid with, an amount above what is left to refund).
   */
  async refundInvoice(projectId: string, sessionId: string, request: RefundInvoiceRequest, actor: Actor): Promise<PullPaymentData> {
    const invoice = await this.btcpayInvoice(projectId, sessionId);
    if (!canRefund(invoice.state)) throw nonRefundable();
    const paid = await this.paidInvoice(invoice, request.payoutMethods, 'payoutMethods');
    let plan: RefundPlan;
    try {
      plan = planRefund(paid.facts, request);
    } catch (error) {
      throw asValidation(error);
    }
    return this.create(
      projectId,
      invoice.session,
      paid,
      {
        plan,
        variant: request.variant,
        name: request.name ?? `Refund ${sessionId}`,
        description: request.description ?? '',
        amountPath: request.variant === 'Custom' ? 'customAmount' : 'refundVariant',
      },
      actor,
    );
  }

  /**
   * BTCPay's `CreatePullPayment` of a store, which this gateway can only pay as the refund of one
   * invoice: the one whose id the name or description holds, else the one of the order the name
   * names as BTCPay's WooCommerce plugin writes it (`<words> <order number>; <reason>`). 422 on
   * `name` when it names none; 400 `non-refundable` when it names only invoices that cannot be refunded.
   */
  async createForInvoiceOf(projectId: string, request: CreatePullPaymentRequest, actor: Actor): Promise<PullPaymentData> {
    const invoice = await this.namedInvoice(projectId, request);
    const paid = await this.paidInvoice(invoice, request.payoutMethods, 'payoutMethods');
    let units: bigint;
    try {
      units = unitsOf(request.amount, request.currency, paid.facts, 'amount', 'currency');
    } catch (error) {
      throw asValidation(error);
    }
    if (units <= 0n) throw validationFailed([{ path: 'amount', message: `The amount is worth less than the smallest unit of ${paid.facts.coinCode}.` }]);
    const plan: RefundPlan = {
      amount: fromBaseUnits(units, paid.facts.decimals),
      rateRule: 'coin_amount',
      currency: request.currency,
      currencyAmount: request.currency === paid.facts.coinCode ? null : request.amount,
    };
    return this.create(
      projectId,
      invoice.session,
      paid,
      {
        plan,
        variant: null,
        name: request.name ?? '',
        description: request.description ?? '',
        amountPath: 'amount',
      },
      actor,
    );
  }

  /** A pull payment by its id, whoever asks (BTCPay's public read); 404 `pullpayment-not-found`. */
  async get(pullPaymentId: string): Promise<PullPaymentData> {
    const row = await this.find(pullPaymentId);
    return this.view(row, await this.refundOf(row));
  }

  /** A store's pull payments, newest first; archived (cancelled) ones with `includeArchived` only. */
  async ofStore(projectId: string, includeArchived: boolean): Promise<PullPaymentData[]> {
    const rows = (await this.deps
      .db(PULL_PAYMENTS_TABLE)
      .where({ project_id: projectId })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])) as StoredPullPayment[];
    const views = await Promise.all(rows.map(async (row) => this.view(row, await this.refundOf(row))));
    return includeArchived ? views : views.filter((view) => !view.archived);
  }

  /** A store's pull payment by id; 404 `pullpayment-not-found` for another store's. */
  async ofStoreById(projectId: string, pullPaymentId: string): Promise<PullPaymentData> {
    const row = await this.find(pullPaymentId);
    if (row.project_id !== projectId) throw btcpayErrors.btcpay_pull_payment_not_found();
    return this.view(row, await this.refundOf(row));
  }

  /** The store (project) of a pull payment, for the store-less paths; 404 `pullpayment-not-found`. */
  async storeOf(pullPaymentId: string): Promise<string> {
    return (await this.find(pullPaymentId)).project_id;
  }

  /**
   * BTCPay's archive: the pull payment pays nothing more. Here its refund is cancelled, which the
   * key may do until an administrator approves it (422 `invalid-state` after: an administrator can
   * still cancel it before it is paid); archiving an archived pull payment changes nothing.
   */
  async archive(projectId: string, pullPaymentId: string, actor: Actor): Promise<void> {
    const row = await this.find(pullPaymentId);
    if (row.project_id !== projectId) throw btcpayErrors.btcpay_pull_payment_not_found();
    const refund = await this.refundOf(row);
    if (refund.status === 'cancelled') return;
    if (!PARTNER_CANCELLABLE_STATUSES.includes(refund.status)) {
      throw btcpayErrors.btcpay_invalid_state({
        message: `The refund of this pull payment is ${refund.status}: it can no longer be archived through the API (an administrator can cancel it until it is paid).`,
      });
    }
    await this.deps.payoutsItems.cancel(projectId, 'refund', row.refund_id, actor);
  }

  /** The payouts of a pull payment: its refund once claimed (cancelled ones with `includeCancelled` only). */
  async payouts(pullPaymentId: string, includeCancelled: boolean): Promise<PayoutData[]> {
    const row = await this.find(pullPaymentId);
    const payout = this.payoutOf(row, await this.refundOf(row));
    return payout === undefined || (payout.state === 'Cancelled' && !includeCancelled) ? [] : [payout];
  }

  /** One payout of a pull payment; 404 `payout-not-found` when it has none of that id. */
  async payout(pullPaymentId: string, payoutId: string): Promise<PayoutData> {
    const row = await this.find(pullPaymentId);
    const payout = row.refund_id === payoutId ? this.payoutOf(row, await this.refundOf(row)) : undefined;
    if (payout === undefined) throw btcpayErrors.btcpay_payout_not_found({ details: { greenfieldCode: 'payout-not-found' } });
    return payout;
  }

  private async create(
    projectId: string,
    session: SessionView,
    paid: { invoiceId: string; facts: PaidInvoice },
    spec: PullPaymentSpec,
    actor: Actor,
  ): Promise<PullPaymentData> {
    const id = randomBase62(PULL_PAYMENT_ID_LENGTH);
    let stored: StoredPullPayment | undefined;
    try {
      const { item } = await this.deps.payoutsItems.createRefund(
        {
          projectId,
          invoiceId: paid.invoiceId,
          amount: spec.plan.amount,
          rateRule: spec.plan.rateRule,
          ...(spec.plan.spreadPercent === undefined ? {} : { spreadPercent: spec.plan.spreadPercent }),
          reason: [spec.name, spec.description].filter((text) => text !== '').join(' — ') || `Refund ${session.id}`,
        },
        actor,
        {
          inTransaction: async (trx, refund) => {
            const token = this.claimTokenOf(refund);
            const [row] = await trx(PULL_PAYMENTS_TABLE)
              .insert({
                id,
                project_id: projectId,
                refund_id: refund.id,
                session_id: session.id,
                variant: spec.variant,
                name: spec.name,
                description: spec.description,
                currency: spec.plan.currency,
                amount: spec.plan.currencyAmount ?? refund.amount,
                sealed_claim_token: token === undefined ? null : this.deps.secretBox.seal(token, `${PULL_PAYMENTS_TABLE}:${id}`),
              })
              .returning('*');
            stored = row as StoredPullPayment;
          },
        },
      );
      return this.view(stored!, item);
    } catch (error) {
      throw refundRefusal(error, spec.amountPath, (units) => `${fromBaseUnits(units, paid.facts.decimals)} ${paid.facts.coinCode}`);
    }
  }

  /** The session when it is a BTCPay invoice of the project, with its state; 404 `invoice-not-found` otherwise. */
  private async btcpayInvoice(projectId: string, sessionId: string): Promise<RefundableInvoice> {
    const row = (await this.deps.db(INVOICES_TABLE).where({ project_id: projectId, session_id: sessionId }).first('session_id', 'marked_status')) as
      Pick<InvoiceRow, 'session_id' | 'marked_status'> | undefined;
    if (!row) throw btcpayErrors.btcpay_invoice_not_found();
    const session = await this.deps.sessionsCheckout.get(projectId, sessionId);
    return { session, row, state: stateOf(session, row, await currentInvoiceOf(this.deps.invoicesService, session)) };
  }

  /** The refundable BTCPay invoice a store pull payment names (see {@link createForInvoiceOf}). */
  private async namedInvoice(projectId: string, request: CreatePullPaymentRequest): Promise<RefundableInvoice> {
    const words = [request.name ?? '', request.description ?? '']
      .join(' ')
      .split(/[\s;,:#]+/)
      .filter((word) => word !== '');
    const byId = (await this.deps
      .db(INVOICES_TABLE)
      .where({ project_id: projectId })
      .whereIn('session_id', words.slice(0, 50))
      .orderBy('created_at', 'desc')
      .select('session_id', 'marked_status')) as Pick<InvoiceRow, 'session_id' | 'marked_status'>[];
    const orderNumber = orderNumberOf(request.name ?? '');
    const byOrder =
      byId.length > 0 || orderNumber === undefined
        ? []
        : ((await this.deps
            .db(INVOICES_TABLE)
            .where({ project_id: projectId, order_id: orderNumber })
            .orderBy('created_at', 'desc')
            .select('session_id', 'marked_status')) as Pick<InvoiceRow, 'session_id' | 'marked_status'>[]);
    const candidates = byId.length > 0 ? byId : byOrder;
    if (candidates.length === 0) {
      throw validationFailed([
        {
          path: 'name',
          message:
            'A pull payment here is the refund of one invoice: name the invoice id in the name or description, or the order as BTCPay\u2019s WooCommerce plugin does ("Refund of order <order number>; <reason>").',
        },
      ]);
    }
    for (const row of candidates) {
      const session = await this.deps.sessionsCheckout.get(projectId, row.session_id);
      const state = stateOf(session, row, await currentInvoiceOf(this.deps.invoicesService, session));
      if (canRefund(state)) return { session, row, state };
    }
    throw nonRefundable();
  }

  /**
   * The invoice of the session that took the payment (the coin picked last) and the facts its
   * refund is found from. `payoutMethods`, when given, must include that coin's payment method
   * (BTCPay refunds in a method the invoice was paid with).
   */
  private async paidInvoice(
    invoice: RefundableInvoice,
    payoutMethods: readonly string[] | null,
    path: string,
  ): Promise<{ invoiceId: string; facts: PaidInvoice }> {
    const { session } = invoice;
    const codes = this.deps.btcpayCoins;
    // BTCPay's legacy forms are read too: the WooCommerce plugin sends the store's ids with `-` made `_` (`BTC_CHAIN`).
    const asked = payoutMethods?.map((method) => codes.coinOfPaymentMethod(method));
    if (payoutMethods && asked) {
      const issues: ValidationIssue[] = payoutMethods.flatMap((method, index) =>
        asked[index] === undefined ? [{ path: `${path}[${index}]`, message: `Invalid or unsupported payout method: ${method}` }] : [],
      );
      if (issues.length > 0) throw validationFailed(issues);
    }
    const chosen = refundedInvoiceOf(session, asked);
    if (chosen === undefined) {
      if (asked && session.invoices.length > 0) {
        const paidIn = session.coin === null ? '' : `: a refund is paid in the coin the invoice was paid in (${codes.paymentMethodIdOf(session.coin)})`;
        throw validationFailed([{ path, message: `Please select one of the payment methods which were available for the original invoice${paidIn}` }]);
      }
      throw nonRefundable();
    }
    const coin = chosen.coin;
    const paid = await this.deps.invoicesService.get(session.project_id, chosen.invoice_id);
    const priced = await this.pickOf(session, paid);
    const decimals = this.deps.chains.storedCoin(coin).decimals;
    const coinPriced = this.deps.chains.knownCoin(session.price_currency) !== undefined;
    const currency = coinPriced ? codes.currencyOf(session.price_currency as CoinId) : session.price_currency;
    return {
      invoiceId: paid.id,
      facts: {
        coinCode: codes.currencyOf(coin),
        decimals,
        invoicedUnits: BigInt(priced.amount_crypto_units),
        receivedUnits: await confirmedUnitsOf(this.deps.invoicesService, paid),
        rateThen: priced.rate_snapshot?.rate ?? null,
        currency,
        currencyDecimals: coinPriced ? this.deps.chains.storedCoin(session.price_currency as CoinId).decimals : fiatDecimals(currency),
        price: session.price_amount,
        overpaid: invoice.state.additionalStatus === 'PaidOver',
      },
    };
  }

  /**
   * The invoice the session's price was quoted in for the coin and address of `paid`: `paid` itself
   * when the payer picked it; for a late payment's invoice (`cs_<session>_late_<n>`, made for
   * whatever arrived at an abandoned address), the newest pick of that coin at that address, as the
   * sessions compare a late payment with it. A refund's price in the coin, and the rate it was
   * quoted at, are that pick's: never what happened to arrive.
   */
  private async pickOf(session: SessionView, paid: InvoiceView): Promise<InvoiceView> {
    if (parseLateExternalId(paid.external_id) === undefined) return paid;
    const others = session.invoices.filter((invoice) => invoice.coin === paid.coin && invoice.invoice_id !== paid.id);
    const views = await this.deps.invoicesService.getMany(others.map((invoice) => invoice.invoice_id));
    const picks = others
      .map((invoice) => views.get(invoice.invoice_id))
      .filter(
        (view): view is InvoiceView =>
          view !== undefined && view.project_id === session.project_id && view.address === paid.address && parseLateExternalId(view.external_id) === undefined,
      );
    // The sessions credit a late payment only at an abandoned pick's address: without one it was never the session's price.
    const pick = picks.at(-1);
    if (pick === undefined) throw nonRefundable();
    return pick;
  }

  private async find(pullPaymentId: string): Promise<StoredPullPayment> {
    const row = (await this.deps.db(PULL_PAYMENTS_TABLE).where({ id: pullPaymentId }).first()) as StoredPullPayment | undefined;
    if (!row) throw btcpayErrors.btcpay_pull_payment_not_found();
    return row;
  }

  private refundOf(row: StoredPullPayment): Promise<ItemView> {
    return this.deps.payoutsItems.get(row.project_id, 'refund', row.refund_id);
  }

  private view(row: StoredPullPayment, refund: ItemView): PullPaymentData {
    return pullPaymentData(row, refund, this.viewLink(row, refund));
  }

  private payoutOf(row: StoredPullPayment, refund: ItemView): PayoutData | undefined {
    const codes = this.deps.btcpayCoins;
    return payoutData(row, refund, codes.currencyOf(refund.coin as CoinId), codes.paymentMethodIdOf(refund.coin as CoinId));
  }

  /**
   * BTCPay's `viewLink`, the page where the payer claims: the refund's claim page, which keeps
   * showing the refund's progress after the claim (the refund's own view drops the link then, so
   * the token is kept sealed beside the pull payment).
   */
  private viewLink(row: StoredPullPayment, refund: ItemView): string {
    if (refund.claim_url !== null) return refund.claim_url;
    if (row.sealed_claim_token === null) return `${this.baseUrl}${CLAIM_PATH}`;
    return `${this.baseUrl}${CLAIM_PATH}/${this.deps.secretBox.open(row.sealed_claim_token, `${PULL_PAYMENTS_TABLE}:${row.id}`)}`;
  }

  /** The claim token of a refund's claim link (the last segment of `claim_url`). */
  private claimTokenOf(refund: ItemView): string | undefined {
    if (refund.claim_url === null) return undefined;
    return refund.claim_url.slice(refund.claim_url.lastIndexOf('/') + 1);
  }
}

/** Invoice statuses of a session's invoice that money came to and stayed (what a refund pays back). */
const PAID: readonly string[] = ['paid', 'overpaid', 'expired_paid_late'];

/**
 * The session's invoice a refund pays back: the current one (the coin picked last) when money came
 * to it, else the newest invoice that was paid (a late payment credited to the session), else the
 * current one (the payouts plugin then finds what it received). With `coins` (the payout methods
 * asked for), only an invoice of one of them; undefined when none is, or before any pick.
 */
function refundedInvoiceOf(session: SessionView, coins: readonly (string | undefined)[] | undefined): SessionInvoiceView | undefined {
  const candidates = session.invoices.filter((invoice) => coins === undefined || coins.includes(invoice.coin));
  const current = candidates.find((invoice) => invoice.invoice_id === session.invoice_id);
  if (current && PAID.includes(current.status)) return current;
  return [...candidates].reverse().find((invoice) => PAID.includes(invoice.status)) ?? current;
}

/** BTCPay's answer to a refund of an invoice it would not refund: 400 `non-refundable`. */
function nonRefundable() {
  return btcpayErrors.btcpay_non_refundable({ message: 'Cannot refund this invoice', details: { greenfieldCode: 'non-refundable' } });
}

/** BTCPay's `CanRefund`: settled or invalid, or expired with money that came (late, partial or over). */
export function canRefund(state: BtcpayState): boolean {
  if (state.status === 'Settled' || state.status === 'Invalid') return true;
  return state.status === 'Expired' && ['PaidLate', 'PaidOver', 'PaidPartial'].includes(state.additionalStatus);
}

/**
 * The order number in a pull payment name as BTCPay's WooCommerce plugin writes it (a translated
 * "Refund of order", the number, `; ` and the reason, cut at 50 characters): the last word before
 * the first `;` (of the whole name without one).
 */
export function orderNumberOf(name: string): string | undefined {
  const head = name.split(';')[0]!.trim();
  const words = head.split(/\s+/);
  const last = words[words.length - 1]!.replace(/^#/, '');
  return words.length > 1 && last !== '' ? last : undefined;
}

/** A variant's refusal as BTCPay's 422 list. */
function asValidation(error: unknown): unknown {
  return error instanceof VariantError ? validationFailed([{ path: error.path, message: error.message }]) : error;
}

/**
 * The payouts plugin's refusals in BTCPay's words: nothing to refund is `non-refundable`; an
 * amount above what is left, or one the rate rules cannot take, a 422 on the field that asked for it.
 */
function refundRefusal(error: unknown, amountPath: string, coins: (units: bigint) => string): unknown {
  if (!(error instanceof AppError)) return error;
  if (error.code === 'refund_not_refundable') return nonRefundable();
  if (error.code === 'refund_exceeds_received') {
    const details = (error.details ?? {}) as { received_units?: string; refunded_units?: string };
    const left =
      details.received_units !== undefined && details.refunded_units !== undefined
        ? BigInt(details.received_units) - BigInt(details.refunded_units)
        : undefined;
    return validationFailed([
      {
        path: amountPath,
        message: `The refund exceeds what the invoice received less its earlier refunds${left === undefined ? '' : ` (${coins(left)} left to refund)`}.`,
      },
    ]);
  }
  if (error.code === 'validation_error') return validationFailed([{ path: amountPath, message: error.message }]);
  return error;
}
