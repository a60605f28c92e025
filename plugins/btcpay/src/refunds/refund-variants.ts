import { fixedFromBaseUnits, scaledDecimal, toBaseUnits, UnitsError } from '@gw/kernel';
import { type RateRule, usdDownOf } from '@gw/plugin-payouts/contract';

/** BTCPay's `RefundVariant`: how `POST .../invoices/{invoiceId}/refund` finds the amount. */
export const REFUND_VARIANTS = ['RateThen', 'CurrentRate', 'OverpaidAmount', 'Fiat', 'Custom'] as const;
export type RefundVariant = (typeof REFUND_VARIANTS)[number];

/** What a refund's amount is found from: the paid invoice of a BTCPay invoice (a checkout session). */
export interface PaidInvoice {
  /** The coin's BTCPay currency code (`BTC`, `USDT`): a pull payment in it is an amount of the coin. */
  readonly coinCode: string;
  readonly decimals: number;
  /**
   * The session's price in base units of the coin: the amount of the pick it was quoted in (for a
   * late payment's invoice, made for whatever arrived, the pick at the same coin and address).
   */
  readonly invoicedUnits: bigint;
  /** Base units its confirmed payments brought. */
  readonly receivedUnits: bigint;
  /** USD per coin when the price was quoted (that pick's rate snapshot); null without one. */
  readonly rateThen: string | null;
  /** The BTCPay invoice's currency: the session's price currency (`EUR`, or a coin code such as `BTC`). */
  readonly currency: string;
  /** Its fractional digits (ISO 4217's minor unit; a coin's decimals). */
  readonly currencyDecimals: number;
  /** The session's price in `currency` (what `invoicedUnits` was priced from). */
  readonly price: string;
  /** BTCPay's additional status `PaidOver`: more than the price arrived. */
  readonly overpaid: boolean;
}

/** A variant's request fields, checked for their form (`refund-request.ts`). */
export interface VariantRequest {
  readonly variant: RefundVariant;
  /** A plain decimal in `customCurrency` (Custom only). */
  readonly customAmount: string | null;
  /** Upper case (Custom only). */
  readonly customCurrency: string | null;
  /** A plain decimal of at most 2 places, 0 ≤ p < 100; null or "0" for none. */
  readonly subtractPercentage: string | null;
}

/** What to ask the payouts plugin for, and what the pull payment answers. */
export interface RefundPlan {
  /** `createRefund`'s amount: coin (`coin_amount`) or USD (`fiat_now`). */
  readonly amount: string;
  readonly rateRule: RateRule;
  readonly spreadPercent?: string;
  /** The pull payment's currency. */
  readonly currency: string;
  /**
   * The pull payment's amount in `currency` (after the subtraction); null when it is the refund's
   * own coin amount, known once the refund is created (a coin-denominated pull payment).
   */
  readonly currencyAmount: string | null;
}

/** A request the invoice cannot be refunded by: BTCPay's validation error on one field. */
export class VariantError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'VariantError';
  }
}

/**
 * How much of `invoice` a refund of `request` pays back, in BTCPay's terms mapped onto the payouts
 * plugin's rate rules (docs/btcpay-compatibility.md, "Refunds (pull payments)"):
 * - `RateThen`: the coin the invoice received (its price at the rate it was paid at), `coin_amount`;
 * - `CurrentRate`: the USD value at payment of what it received, converted at today's rate, `fiat_now`;
 * - `Fiat`: the fiat paid, at the payment's rate: the coin received; the pull payment is in the invoice's currency;
 * - `OverpaidAmount`: what arrived above the price (PaidOver invoices only), `coin_amount`;
 * - `Custom`: `customAmount` of the paid coin (`coin_amount`), or of the invoice's currency or USD
 *   converted at the payment's rate (`coin_amount` of the coin that was worth it then).
 * `subtractPercentage` is the refund's spread (taken off the coin amount by the payouts plugin, and
 * off a fiat amount here). A refund above what is left to refund is the payouts plugin's refusal.
 */
export function planRefund(invoice: PaidInvoice, request: VariantRequest): RefundPlan {
  const spread = request.subtractPercentage === null || scaledDecimal(request.subtractPercentage).digits === 0n ? undefined : request.subtractPercentage;
  const withSpread = { ...(spread === undefined ? {} : { spreadPercent: spread }) };
  const coin = (units: bigint, path: string): RefundPlan => {
    if (units <= 0n) throw new VariantError(path, 'The refund amount is zero.');
    return { amount: fixedFromBaseUnits(units, invoice.decimals), rateRule: 'coin_amount', ...withSpread, currency: invoice.coinCode, currencyAmount: null };
  };
  switch (request.variant) {
    case 'RateThen':
      return coin(invoice.receivedUnits, 'refundVariant');
    case 'CurrentRate': {
      // The USD amount is given: the payouts plugin's natural `fiat_now` refund of an overpaid invoice is only its excess, BTCPay's CurrentRate all that came.
      const usd = usdDownOf(invoice.receivedUnits, invoice.decimals, rateThenOf(invoice));
      if (scaledDecimal(usd).digits === 0n) throw new VariantError('refundVariant', 'What the invoice received is worth less than a cent.');
      return { amount: usd, rateRule: 'fiat_now', ...withSpread, currency: invoice.coinCode, currencyAmount: null };
    }
    case 'Fiat': {
      const paid = fiatOfUnits(invoice.receivedUnits, invoice);
      return { ...coin(invoice.receivedUnits, 'refundVariant'), currency: invoice.currency, currencyAmount: less(paid, spread, invoice.currencyDecimals) };
    }
    case 'OverpaidAmount':
      if (!invoice.overpaid) throw new VariantError('refundVariant', 'Invoice is not overpaid');
      return coin(invoice.receivedUnits - invoice.invoicedUnits, 'refundVariant');
    case 'Custom': {
      if (request.customAmount === null || scaledDecimal(request.customAmount).digits === 0n) {
        throw new VariantError('customAmount', 'Amount must be greater than 0');
      }
      if (request.customCurrency === null) throw new VariantError('customCurrency', 'Invalid currency');
      const units = unitsOf(request.customAmount, request.customCurrency, invoice, 'customAmount', 'customCurrency');
      const plan = coin(units, 'customAmount');
      if (request.customCurrency === invoice.coinCode) return plan;
      const places = request.customCurrency === invoice.currency ? invoice.currencyDecimals : 2;
      return { ...plan, currency: request.customCurrency, currencyAmount: less(request.customAmount, spread, places) };
    }
  }
}

/**
 * Base units of the paid coin worth `amount` of `currency` at the payment's rate: the coin itself;
 * the invoice's currency at its price (`invoicedUnits` for `price`); USD at the rate snapshot.
 * Rounded down: a refund never pays more than asked. Refuses any other currency and an amount
 * with more places than the currency has.
 */
export function unitsOf(amount: string, currency: string, invoice: PaidInvoice, amountPath: string, currencyPath: string): bigint {
  const tooPrecise = (places: number) => new VariantError(amountPath, `An amount in ${currency} has at most ${places} decimal places.`);
  if (currency === invoice.coinCode) {
    try {
      return toBaseUnits(amount, invoice.decimals);
    } catch (cause) {
      if (cause instanceof UnitsError) throw tooPrecise(invoice.decimals);
      throw cause;
    }
  }
  const given = scaledDecimal(amount);
  if (currency === invoice.currency) {
    if (given.scale > invoice.currencyDecimals && !zeroTail(amount, invoice.currencyDecimals)) throw tooPrecise(invoice.currencyDecimals);
    const price = scaledDecimal(invoice.price);
    return (given.digits * invoice.invoicedUnits * 10n ** BigInt(price.scale)) / (price.digits * 10n ** BigInt(given.scale));
  }
  if (currency === 'USD') {
    if (given.scale > 2 && !zeroTail(amount, 2)) throw tooPrecise(2);
    const rate = scaledDecimal(rateThenOf(invoice));
    return (given.digits * 10n ** BigInt(invoice.decimals + rate.scale)) / (rate.digits * 10n ** BigInt(given.scale));
  }
  throw new VariantError(
    currencyPath,
    `Invalid currency: a refund of this invoice is paid in ${invoice.coinCode}, as an amount of ${invoice.coinCode}, ${invoice.currency === 'USD' ? 'USD' : `${invoice.currency} or USD`}.`,
  );
}

/** The invoice's currency worth `units` of its coin at its price, rounded down to the currency's places. */
export function fiatOfUnits(units: bigint, invoice: PaidInvoice): string {
  const price = scaledDecimal(invoice.price);
  const minor = (units * price.digits * 10n ** BigInt(invoice.currencyDecimals)) / (invoice.invoicedUnits * 10n ** BigInt(price.scale));
  return fixedFromBaseUnits(minor, invoice.currencyDecimals);
}

/** `amount` less `percent` percent (none when undefined), rounded down to `places`. */
function less(amount: string, percent: string | undefined, places: number): string {
  const a = scaledDecimal(amount);
  const minor = places >= a.scale ? a.digits * 10n ** BigInt(places - a.scale) : a.digits / 10n ** BigInt(a.scale - places);
  if (percent === undefined) return fixedFromBaseUnits(minor, places);
  const p = scaledDecimal(percent);
  const whole = 100n * 10n ** BigInt(p.scale);
  return fixedFromBaseUnits((minor * (whole - p.digits)) / whole, places);
}

function rateThenOf(invoice: PaidInvoice): string {
  if (invoice.rateThen === null) throw new VariantError('refundVariant', 'The invoice has no rate at payment: refund an amount of its coin.');
  return invoice.rateThen;
}

/** Whether the digits of `amount` past `places` are all zeros ("10.500" for 2 places). */
function zeroTail(amount: string, places: number): boolean {
  const fraction = amount.split('.')[1] ?? '';
  return /^0*$/.test(fraction.slice(places));
}
