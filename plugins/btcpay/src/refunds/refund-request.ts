import { decimalOfNumber, scaledDecimal, toPlainDecimal, UnitsError } from '@gw/kernel';
import { REFUND_VARIANTS, type RefundVariant, type VariantRequest } from './refund-variants.js';

/** One of BTCPay's validation errors: the JSON path of the field and what is wrong with it. */
export interface FieldProblem {
  readonly path: string;
  readonly message: string;
}

/** A body BTCPay would refuse with its 422 list (`[{ path, message }]`), every problem at once. */
export class RequestProblems extends Error {
  constructor(readonly problems: readonly FieldProblem[]) {
    super(problems.map((p) => `${p.path}: ${p.message}`).join('; '));
    this.name = 'RequestProblems';
  }
}

/** Most characters of a pull payment's name (BTCPay's limit) and of its description (ours: BTCPay sets none). */
export const MAX_NAME = 50;
export const MAX_DESCRIPTION = 2000;

/** `POST /api/v1/stores/{storeId}/invoices/{invoiceId}/refund`, checked for its form. */
export interface RefundInvoiceRequest extends VariantRequest {
  readonly name: string | null;
  readonly description: string | null;
  /** The payout methods asked for (`payoutMethods`, else the deprecated `payoutMethodId`); null: the invoice's own. */
  readonly payoutMethods: readonly string[] | null;
}

/** `POST /api/v1/stores/{storeId}/pull-payments`, checked for its form. */
export interface CreatePullPaymentRequest {
  readonly name: string | null;
  readonly description: string | null;
  /** A positive plain decimal. */
  readonly amount: string;
  /** Upper case, trimmed. */
  readonly currency: string;
  readonly autoApproveClaims: boolean;
  /** `payoutMethods`, else the older `paymentMethods`; null: every method of the store. */
  readonly payoutMethods: readonly string[] | null;
}

/** Reads the fields of one JSON object body, collecting BTCPay's problems. */
class FieldReader {
  readonly problems: FieldProblem[] = [];
  constructor(private readonly body: Record<string, unknown>) {}

  problem(path: string, message: string): void {
    this.problems.push({ path, message });
  }

  /** A string or null (absent: null); at most `max` characters. */
  text(name: string, max: number): string | null {
    const value = this.body[name];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') {
      this.problem(name, `${name} must be a string.`);
      return null;
    }
    if (value.length > max) this.problem(name, `The ${name} should be maximum ${max} characters.`);
    return value;
  }

  /** A decimal given as a JSON number or a string (BTCPay's `NumericStringJsonConverter`), as a plain decimal; null when absent or not one. */
  decimal(name: string, message: string): string | null {
    const value = this.body[name];
    if (value === undefined || value === null) return null;
    try {
      if (typeof value === 'number') return decimalOfNumber(value);
      if (typeof value === 'string' && value.trim() !== '') return toPlainDecimal(value);
    } catch (cause) {
      if (!(cause instanceof UnitsError)) throw cause;
    }
    this.problem(name, message);
    return null;
  }

  /** An array of strings or null. */
  strings(name: string): string[] | null {
    const value = this.body[name];
    if (value === undefined || value === null) return null;
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
      this.problem(name, `${name} must be an array of strings.`);
      return null;
    }
    return value as string[];
  }

  boolean(name: string): boolean {
    const value = this.body[name];
    if (value === undefined || value === null) return false;
    if (typeof value !== 'boolean') this.problem(name, `${name} must be true or false.`);
    return value === true;
  }

  raw(name: string): unknown {
    return this.body[name];
  }

  done(): void {
    if (this.problems.length > 0) throw new RequestProblems(this.problems);
  }
}

function readerOf(body: unknown): FieldReader {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new RequestProblems([{ path: '', message: 'Missing body' }]);
  return new FieldReader(body as Record<string, unknown>);
}

/**
 * Checks a refund request as BTCPay's `RefundInvoice` does before it looks at the invoice:
 * `refundVariant` one of BTCPay's, `customAmount`/`customCurrency` only with `Custom`,
 * `subtractPercentage` between 0 and 100 (here: below 100, at most 2 decimal places, the payouts
 * plugin's spread). The deprecated `paymentMethod` of BTCPay's PHP client is ignored, as BTCPay's
 * current server ignores it (the refund is paid in the coin the invoice was paid in).
 */
export function parseRefundInvoiceRequest(body: unknown): RefundInvoiceRequest {
  const fields = readerOf(body);
  const name = fields.text('name', MAX_NAME);
  const description = fields.text('description', MAX_DESCRIPTION);
  const payoutMethods = fields.strings('payoutMethods');
  const legacyMethod = fields.text('payoutMethodId', 100);
  const rawVariant = fields.raw('refundVariant');
  let variant: RefundVariant | null = null;
  if (rawVariant === undefined || rawVariant === null) fields.problem('refundVariant', '`refundVariant` is mandatory');
  else if (typeof rawVariant !== 'string' || !(REFUND_VARIANTS as readonly string[]).includes(rawVariant)) {
    fields.problem('refundVariant', 'Please select a valid refund option');
  } else variant = rawVariant as RefundVariant;
  const subtract = fields.decimal('subtractPercentage', 'Percentage must be a numeric value between 0 and 100');
  const customAmount = fields.decimal('customAmount', 'Amount must be greater than 0');
  const rawCurrency = fields.text('customCurrency', 20);
  const customCurrency = rawCurrency === null ? null : rawCurrency.trim().toUpperCase();
  if (variant !== null && variant !== 'Custom') {
    if (customAmount !== null) fields.problem('customAmount', 'CustomAmount should only be set if the refundVariant is Custom');
    if (rawCurrency !== null) fields.problem('customCurrency', 'CustomCurrency should only be set if the refundVariant is Custom');
  }
  const subtractPercentage = subtract === null ? null : checkedPercentage(subtract, fields);
  fields.done();
  return {
    name,
    description,
    payoutMethods: payoutMethods ?? (legacyMethod === null ? null : [legacyMethod]),
    variant: variant!,
    customAmount,
    customCurrency,
    subtractPercentage,
  };
}

/** A percentage BTCPay accepts (0 to 100) that the payouts plugin's spread can take (below 100, 2 places). */
function checkedPercentage(percent: string, fields: FieldReader): string | null {
  const p = scaledDecimal(percent);
  const hundred = 100n * 10n ** BigInt(p.scale);
  if (p.digits > hundred) {
    fields.problem('subtractPercentage', 'Percentage must be a numeric value between 0 and 100');
    return null;
  }
  if (p.digits === hundred) {
    fields.problem('subtractPercentage', 'Subtracting 100 percent leaves nothing to refund.');
    return null;
  }
  if (p.scale > 2 && !/^0*$/.test(percent.split('.')[1]!.slice(2))) {
    fields.problem('subtractPercentage', 'Percentage has at most 2 decimal places here.');
    return null;
  }
  return p.digits === 0n ? null : percent;
}

/**
 * Checks a pull payment request as BTCPay's `CreatePullPayment` does: a positive `amount`, a
 * `currency`, a name of at most 50 characters, positive `period` and `BOLT11Expiration` when given,
 * `expiresAt` after `startsAt`. This gateway has no pull payment but a refund, so `period`,
 * `startsAt` and `expiresAt` (a recurring or scheduled pull payment) are refused as unsupported.
 */
export function parseCreatePullPaymentRequest(body: unknown): CreatePullPaymentRequest {
  const fields = readerOf(body);
  const name = fields.text('name', MAX_NAME);
  const description = fields.text('description', MAX_DESCRIPTION);
  const amount = fields.decimal('amount', 'The amount should more than 0.');
  if (amount !== null && scaledDecimal(amount).digits === 0n) fields.problem('amount', 'The amount should more than 0.');
  if (fields.raw('amount') === undefined || fields.raw('amount') === null) fields.problem('amount', 'The amount should more than 0.');
  const rawCurrency = fields.text('currency', 20);
  if (rawCurrency === null) fields.problem('currency', 'This field is required');
  for (const unsupported of ['period', 'startsAt', 'expiresAt'] as const) {
    const value = fields.raw(unsupported);
    if (value !== undefined && value !== null) fields.problem(unsupported, `${unsupported} is not supported: a pull payment here is one refund of an invoice.`);
  }
  const autoApproveClaims = fields.boolean('autoApproveClaims');
  const payoutMethods = fields.strings('payoutMethods') ?? fields.strings('paymentMethods');
  fields.done();
  return { name, description, amount: amount!, currency: rawCurrency!.trim().toUpperCase(), autoApproveClaims, payoutMethods };
}
