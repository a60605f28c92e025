import { type ChainRegistry, type CoinId, divideDecimals, fromBaseUnits, scaledDecimal } from '@gw/kernel';
import type { InvoiceView } from '@gw/plugin-invoices/contract';
import type { SessionView } from '@gw/plugin-sessions/contract';
import { greenfieldPayment, type InvoiceTransaction, isLive, paymentIdOf } from './greenfield-payment.js';
import type { CoinCodes } from './invoice-data.js';
import { parseLateExternalId } from '@gw/plugin-sessions/contract';

export type { InvoiceTransaction } from './greenfield-payment.js';

/** An invoice of the session with every one of its transactions (not only the latest the view carries). */
export interface SessionInvoice {
  readonly invoice: InvoiceView;
  readonly transactions: readonly InvoiceTransaction[];
}

/** Significant digits of a rate: a price per coin in the invoice's currency. */
const RATE_DIGITS = 12;

/**
 * Whether the invoice is one the sessions create for a late payment to an abandoned address (its
 * external id `cs_<session>_late_<n>`), made for what arrived rather than picked by the payer.
 */
const isLatePaymentInvoice = (invoice: InvoiceView): boolean => parseLateExternalId(invoice.external_id) !== undefined;

/** A signed amount of base units as a decimal string (`due` is negative when overpaid). */
const signed = (units: bigint, decimals: number): string => (units < 0n ? `-${fromBaseUnits(-units, decimals)}` : fromBaseUnits(units, decimals));

/**
 * The price of one coin in the session's currency when its invoice was created: 1 for a session
 * priced in the coin, else the invoice's USD rate of the coin over its USD rate of the currency.
 */
function rateOf(session: SessionView, invoice: InvoiceView): string {
  if (invoice.rate_snapshot === null || session.price_currency === invoice.coin) return '1';
  return divideDecimals(invoice.rate_snapshot.rate, invoice.price_rate ?? '1', RATE_DIGITS);
}

/** `units` of a coin (`fromDecimals`, priced `fromRate`) in base units of another (`toDecimals`, priced `toRate`), rounded half up. */
function convert(units: bigint, fromDecimals: number, fromRate: string, toDecimals: number, toRate: string): bigint {
  const from = scaledDecimal(fromRate);
  const to = scaledDecimal(toRate);
  const numerator = units * from.digits * 10n ** BigInt(to.scale + toDecimals);
  const denominator = 10n ** BigInt(fromDecimals + from.scale) * to.digits;
  return (2n * numerator + denominator) / (2n * denominator);
}

/** What one coin of the session shows: its picked invoice, its rate, and every payment in it. */
interface CoinPrompt {
  readonly coin: CoinId;
  readonly decimals: number;
  readonly invoice: InvoiceView;
  readonly rate: string;
  readonly payments: readonly InvoiceTransaction[];
  readonly paidUnits: bigint;
}

/**
 * The session's payment methods as BTCPay's `InvoicePaymentMethodDataModel` list, one per coin the
 * payer may pick, in the session's order. A coin the payer picked is activated: its destination is
 * the address of its latest invoice, its amount, rate and payment link that invoice's, its payments
 * those of every invoice of the session in that coin (late ones included), `totalPaid` what every
 * coin paid in this coin at their rates, `due` the amount less it (negative when overpaid). A coin
 * not picked yet is not activated (BTCPay's lazy payment methods): no destination, zero amounts.
 * With `onlyAccounted` (BTCPay's default) payments reorganised away or dropped are left out; they
 * never count.
 */
export function paymentMethods(
  session: SessionView,
  invoices: ReadonlyMap<string, SessionInvoice>,
  chains: ChainRegistry,
  codes: CoinCodes,
  onlyAccounted: boolean,
): Record<string, unknown>[] {
  const prompts = new Map<CoinId, CoinPrompt>();
  const current = session.invoice_id === null ? undefined : invoices.get(session.invoice_id);
  for (const coin of session.allowed_coins) {
    const ofCoin = session.invoices.filter((entry) => entry.coin === coin).map((entry) => invoices.get(entry.invoice_id));
    const present = ofCoin.filter((entry): entry is SessionInvoice => entry !== undefined);
    // The payer's pick of the coin: the session's current invoice when it is one, else the latest pick of the coin
    // (a late payment's own invoice, created for what arrived, only when no pick is known).
    const picks = present.filter((entry) => !isLatePaymentInvoice(entry.invoice));
    const latest = current && current.invoice.coin === coin && !isLatePaymentInvoice(current.invoice) ? current : (picks.at(-1) ?? present.at(-1));
    if (!latest) continue;
    const seen = new Set<string>();
    const payments = present
      .flatMap((entry) => entry.transactions)
      .filter((tx) => {
        const key = paymentIdOf(tx);
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    const decimals = chains.storedCoin(coin).decimals;
    const paidUnits = payments.filter(isLive).reduce((sum, tx) => sum + BigInt(tx.amount_units), 0n);
    prompts.set(coin, { coin, decimals, invoice: latest.invoice, rate: rateOf(session, latest.invoice), payments, paidUnits });
  }
  return session.allowed_coins.map((coin) => {
    const prompt = prompts.get(coin);
    const base = { paymentMethodId: codes.paymentMethodIdOf(coin), currency: codes.currencyOf(coin) };
    if (!prompt) {
      return {
        ...base,
        destination: '',
        paymentLink: '',
        rate: '0',
        paymentMethodPaid: '0',
        totalPaid: '0',
        due: '0',
        amount: '0',
        paymentMethodFee: '0',
        payments: [],
        activated: false,
        additionalData: {},
      };
    }
    let totalUnits = prompt.paidUnits;
    for (const other of prompts.values()) {
      if (other.coin !== coin && other.paidUnits > 0n) totalUnits += convert(other.paidUnits, other.decimals, other.rate, prompt.decimals, prompt.rate);
    }
    const amountUnits = BigInt(prompt.invoice.amount_crypto_units);
    return {
      ...base,
      destination: prompt.invoice.address,
      paymentLink: prompt.invoice.payment_uri,
      rate: prompt.rate,
      paymentMethodPaid: fromBaseUnits(prompt.paidUnits, prompt.decimals),
      totalPaid: fromBaseUnits(totalUnits, prompt.decimals),
      due: signed(amountUnits - totalUnits, prompt.decimals),
      amount: prompt.invoice.amount_crypto,
      paymentMethodFee: '0',
      payments: prompt.payments.filter((tx) => !onlyAccounted || isLive(tx)).map(greenfieldPayment),
      activated: true,
      additionalData: {},
    };
  });
}
