import { type CoinId, coreErrors, decimalOfNumber, newId, toPlainDecimal } from '@gw/kernel';
import type { CreateInvoiceInput } from './create-plan.js';

/** The "currency" of a one-off invoice's amount that means the coin itself (an `amount_crypto`). */
export const AMOUNT_IN_COIN = 'coin';

/** Longest description of a one-off invoice (kept in its metadata). */
export const DESCRIPTION_MAX = 500;

/** A one-off invoice as an operator writes it (dashboard "Create invoice", `gateway invoice create`). */
export interface OneOffInvoice {
  readonly coin: CoinId;
  /** A plain decimal. */
  readonly amount: string;
  /** `USD`, another fiat currency the rates price, or {@link AMOUNT_IN_COIN}. */
  readonly currency: string;
  /** Defaults to a generated one ({@link oneOffExternalId}). */
  readonly externalId?: string | undefined;
  /** Kept as `metadata.description`. */
  readonly description?: string | undefined;
}

/** A fresh external id for an invoice an operator creates by hand: `op_` and a ULID. */
export function oneOffExternalId(): string {
  return `op_${newId()}`;
}

/**
 * The create request of a one-off invoice, as the partner's API would receive it: an amount in
 * the coin is `amount_crypto`; in USD `amount_usd`; in another fiat currency `price_currency` with
 * `price_amount`. What the request itself cannot say is checked where every create is (the
 * invoices service), so the dashboard, the CLI and the API refuse alike.
 */
export function oneOffInvoiceInput(invoice: OneOffInvoice): CreateInvoiceInput {
  const amount = invoice.amount.trim();
  if (!/^\d+(\.\d+)?$/.test(amount))
    throw coreErrors.validation_error({ message: `amount: "${amount.slice(0, 40)}" is not a plain decimal number, e.g. 12.50`, details: { field: 'amount' } });
  if (invoice.description !== undefined && invoice.description.length > DESCRIPTION_MAX)
    throw coreErrors.validation_error({ message: `description is longer than ${DESCRIPTION_MAX} characters`, details: { field: 'description' } });
  const currency = invoice.currency.trim();
  const priced: Pick<CreateInvoiceInput, 'amount_crypto' | 'amount_usd' | 'price_currency' | 'price_amount'> =
    currency === AMOUNT_IN_COIN
      ? { amount_crypto: amount }
      : currency.toUpperCase() === 'USD'
        ? { amount_usd: usdNumber(amount) }
        : { price_currency: currency.toUpperCase(), price_amount: amount };
  return {
    external_id: invoice.externalId?.trim() || oneOffExternalId(),
    coin: invoice.coin,
    ...priced,
    ...(invoice.description ? { metadata: { description: invoice.description } } : {}),
  };
}

/** A USD decimal as the JSON number `amount_usd` is, refused when the number would not be exactly that decimal. */
function usdNumber(amount: string): number {
  const value = Number(amount);
  if (decimalOfNumber(value) !== toPlainDecimal(amount))
    throw coreErrors.validation_error({ message: `amount: ${amount} has more digits than a USD amount can carry`, details: { field: 'amount' } });
  return value;
}
