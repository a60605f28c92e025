import type { CoinId, ChainRegistry } from '@gw/kernel';
import type { SessionView } from '@gw/plugin-sessions/contract';
import type { CurrentInvoiceFacts } from './current-invoice.js';
import type { InvoiceRow } from './invoice-rows.js';
import { btcpayState, markableStatuses, type BtcpayState } from './status-table.js';

/** How coins are called in BTCPay's words. */
export interface CoinCodes {
  /** The coin's BTCPay payment method id (`BTC-CHAIN`). */
  paymentMethodIdOf(coin: CoinId): string;
  /** The coin's currency code (`BTC`): an invoice's currency when priced in it, a payment method's `currency`. */
  currencyOf(coin: CoinId): string;
}

/** BTCPay's default monitoring of an invoice after its expiry (a store setting there, one day out of the box). */
export const DEFAULT_MONITORING_MINUTES = 1440;

/** BTCPay's default speed policy of a store. */
const DEFAULT_SPEED_POLICY = 'MediumSpeed';

const seconds = (iso: string): number => Math.floor(Date.parse(iso) / 1000);

/**
 * The BTCPay state of a session that is a BTCPay invoice: its status, its current invoice's (the
 * session's `invoice_id`), whether that invoice's live payments cover its amount
 * (`currentInvoiceOf`), the merchant's mark.
 */
export function stateOf(session: SessionView, row: Pick<InvoiceRow, 'marked_status'>, current: CurrentInvoiceFacts | undefined): BtcpayState {
  return btcpayState({
    sessionStatus: session.status,
    invoiceStatus: current?.view.status ?? null,
    covered: current?.covered ?? false,
    marked: row.marked_status,
  });
}

/**
 * The invoice as BTCPay's `InvoiceData`: the session's price, page, deadline and state, with what the
 * create request gave (metadata, checkout and receipt options) as BTCPay answers them back:
 * `checkout.paymentMethods` the coins the payer may pick, `checkout.expirationMinutes` the
 * session's lifetime, the other options as given or BTCPay's store defaults. `checkoutLink` is the
 * session's hosted page, where the payer picks the coin.
 */
export function invoiceData(
  session: SessionView,
  row: InvoiceRow,
  current: CurrentInvoiceFacts | undefined,
  chains: ChainRegistry,
  codes: CoinCodes,
): Record<string, unknown> {
  const state = stateOf(session, row, current);
  const options = row.checkout;
  const createdTime = seconds(session.created_at_iso);
  const expirationTime = seconds(session.expires_at_iso);
  const monitoringMinutes = options.monitoringMinutes ?? DEFAULT_MONITORING_MINUTES;
  const coinPriced = chains.knownCoin(session.price_currency) !== undefined;
  return {
    id: session.id,
    storeId: session.project_id,
    amount: session.price_amount,
    currency: coinPriced ? codes.currencyOf(session.price_currency as CoinId) : session.price_currency,
    type: 'Standard',
    checkoutLink: session.url,
    createdTime,
    expirationTime,
    monitoringExpiration: expirationTime + Math.round(monitoringMinutes * 60),
    status: state.status,
    additionalStatus: state.additionalStatus,
    availableStatusesForManualMarking: markableStatuses(state),
    archived: row.archived_at !== null,
    metadata: row.metadata,
    checkout: {
      speedPolicy: options.speedPolicy ?? DEFAULT_SPEED_POLICY,
      paymentMethods: session.allowed_coins.map((coin) => codes.paymentMethodIdOf(coin)),
      ...(options.defaultPaymentMethod === undefined ? {} : { defaultPaymentMethod: options.defaultPaymentMethod }),
      // The payer's pick activates a coin: every payment method is lazy here.
      lazyPaymentMethods: true,
      expirationMinutes: (expirationTime - createdTime) / 60,
      monitoringMinutes,
      paymentTolerance: options.paymentTolerance ?? 0,
      redirectURL: options.redirectURL ?? null,
      redirectAutomatically: options.redirectAutomatically ?? false,
      defaultLanguage: options.defaultLanguage ?? null,
    },
    receipt: {
      enabled: options.receipt?.enabled ?? true,
      showQR: options.receipt?.showQR ?? true,
      showPayments: options.receipt?.showPayments ?? true,
    },
  };
}
