import { normaliseEmail } from '@gw/plugin-tenancy/contract';
import { coreErrors, type ProjectKind } from '@gw/kernel';
import { checkMetadataSize, partnerUrl } from '@gw/plugin-invoices/contract';
import type { LineItem } from '../contract.js';
import { amountOf, type PriceCurrency, unitsOf } from '../price-currency.js';

/** Bounds of the free-text fields of a session or link. */
export const TEXT_LIMITS = { description: 1000, lineName: 200, externalId: 200, email: 254, quantity: 1_000_000 } as const;

/**
 * The line items of an order, checked and in canonical form: at most `max` lines, each a name, a
 * whole quantity from 1 and a `unit_amount` in `currency` (0 allowed: a free item). With `priceUnits`
 * the lines must add up to the price exactly (quantity × unit_amount summed in base units): 400
 * `validation_error` on `line_items` otherwise.
 */
export function checkLineItems(currency: PriceCurrency, lines: readonly LineItem[] | undefined, max: number, priceUnits?: bigint): LineItem[] {
  if (lines === undefined) return [];
  const refuse = (message: string, index?: number) =>
    coreErrors.validation_error({
      message: `line_items${index === undefined ? '' : `[${index}]`}: ${message}`,
      details: { field: 'line_items', ...(index === undefined ? {} : { index }) },
    });
  if (lines.length > max) throw refuse(`at most ${max} lines.`);
  let total = 0n;
  const checked = lines.map((line, index): LineItem => {
    const name = typeof line.name === 'string' ? line.name.trim() : '';
    if (name === '' || name.length > TEXT_LIMITS.lineName) throw refuse(`name takes 1 to ${TEXT_LIMITS.lineName} characters.`, index);
    if (!Number.isInteger(line.quantity) || line.quantity < 1 || line.quantity > TEXT_LIMITS.quantity) {
      throw refuse(`quantity must be a whole number from 1 to ${TEXT_LIMITS.quantity}.`, index);
    }
    const units = unitsOf(currency, String(line.unit_amount), `line_items[${index}].unit_amount`, true);
    total += units * BigInt(line.quantity);
    return { name, quantity: line.quantity, unit_amount: amountOf(currency, units) };
  });
  if (priceUnits !== undefined && checked.length > 0 && total !== priceUnits) {
    throw refuse(`the lines add up to ${amountOf(currency, total)} ${currency.code}, not the price ${amountOf(currency, priceUnits)} ${currency.code}.`);
  }
  return checked;
}

/** A description of at most {@link TEXT_LIMITS.description} characters, trimmed; null when absent or blank. */
export function checkDescription(description: string | undefined): string | null {
  if (description === undefined) return null;
  const text = description.trim();
  if (text.length > TEXT_LIMITS.description) {
    throw coreErrors.validation_error({ message: `description takes at most ${TEXT_LIMITS.description} characters.`, details: { field: 'description' } });
  }
  return text === '' ? null : text;
}

/** A payer's e-mail address (`field`), trimmed and in lower case (the tenancy's one address check); 400 `validation_error` when it is not one. */
export function checkEmail(email: string, field = 'customer_email'): string {
  const address = normaliseEmail(email);
  if (address === undefined) throw coreErrors.validation_error({ message: `${field} is not an e-mail address.`, details: { field } });
  return address;
}

/** The partner's URLs and metadata of a session or link, checked as an invoice's are (they become its invoices'). */
export function checkPartnerFields(
  input: { readonly return_url?: string | undefined; readonly cancel_url?: string | undefined; readonly metadata?: object | undefined },
  kind: ProjectKind,
): { return_url: string | null; cancel_url: string | null; metadata: Record<string, unknown> | null } {
  checkMetadataSize(input.metadata);
  if (input.metadata !== undefined && (input.metadata === null || typeof input.metadata !== 'object' || Array.isArray(input.metadata))) {
    throw coreErrors.validation_error({ message: 'metadata must be a JSON object.', details: { field: 'metadata' } });
  }
  return {
    return_url: input.return_url ? partnerUrl(input.return_url, 'return_url', kind) : null,
    cancel_url: input.cancel_url ? partnerUrl(input.cancel_url, 'cancel_url', kind) : null,
    metadata: input.metadata === undefined ? null : { ...(input.metadata as Record<string, unknown>) },
  };
}
