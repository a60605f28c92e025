import { BTCPAY_STATUSES, type BtcpayStatus } from './status-table.js';
import type { ValidationIssue } from './validation-issues.js';

/** The invoices a list answers at most (BTCPay answers every invoice without `take`). */
export const MAX_TAKE = 1000;

/** The invoices a list answers without `take`. */
export const DEFAULT_TAKE = 100;

/** BTCPay's filters of `GET /api/v1/stores/{storeId}/invoices`, read. */
export interface InvoiceListQuery {
  /** Invoices whose `metadata.orderId` is one of these; empty: any. */
  readonly orderIds: readonly string[];
  /** Invoices in one of these BTCPay statuses; empty: any. Names BTCPay does not have match nothing, as there. */
  readonly statuses: readonly BtcpayStatus[];
  /** Whether `status` named only statuses BTCPay does not have (then nothing matches). */
  readonly unknownStatusesOnly: boolean;
  /** A term found in the invoice's id, order id, metadata or additional search terms (case-insensitive). */
  readonly textSearch: string | null;
  /** Created at or after this instant. */
  readonly startDate: Date | null;
  /** Created at or before this instant. */
  readonly endDate: Date | null;
  readonly skip: number;
  readonly take: number;
  readonly includeArchived: boolean;
}

type Raw = Readonly<Record<string, string | readonly string[] | undefined>>;

const all = (value: string | readonly string[] | undefined): readonly string[] => (value === undefined ? [] : typeof value === 'string' ? [value] : value);
const last = (value: string | readonly string[] | undefined): string | undefined => all(value).at(-1);

/**
 * Reads the list's query string as BTCPay's model binding does: `orderId` and `status` may repeat,
 * dates are unix seconds, `skip` and `take` whole numbers (`take` at most {@link MAX_TAKE}, default
 * {@link DEFAULT_TAKE}). A start after the end is refused on both, as BTCPay does.
 */
export function parseListQuery(raw: Raw): { readonly query: InvoiceListQuery } | { readonly issues: readonly ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const whole = (name: string, fallback: number, max: number): number => {
    const text = last(raw[name]);
    if (text === undefined || text === '') return fallback;
    if (!/^\d{1,9}$/.test(text)) {
      issues.push({ path: name, message: `The value '${text.slice(0, 40)}' is not valid for ${name}.` });
      return fallback;
    }
    return Math.min(Number(text), max);
  };
  const date = (name: string): Date | null => {
    const text = last(raw[name]);
    if (text === undefined || text === '') return null;
    if (!/^\d{1,12}$/.test(text)) {
      issues.push({ path: name, message: `The value '${text.slice(0, 40)}' is not valid for ${name}: a unix time in seconds.` });
      return null;
    }
    return new Date(Number(text) * 1000);
  };
  const startDate = date('startDate');
  const endDate = date('endDate');
  if (startDate !== null && endDate !== null && startDate > endDate) {
    issues.push({ path: 'startDate', message: 'startDate should not be above endDate' });
    issues.push({ path: 'endDate', message: 'endDate should not be below startDate' });
  }
  const skip = whole('skip', 0, Number.MAX_SAFE_INTEGER);
  const take = whole('take', DEFAULT_TAKE, MAX_TAKE);
  const archived = last(raw['includeArchived'])?.toLowerCase();
  if (archived !== undefined && archived !== 'true' && archived !== 'false') {
    issues.push({ path: 'includeArchived', message: `The value '${archived.slice(0, 40)}' is not valid for includeArchived.` });
  }
  if (issues.length > 0) return { issues };
  const named = all(raw['status']).filter((status) => status !== '');
  const statuses = BTCPAY_STATUSES.filter((status) => named.some((name) => name.toLowerCase() === status.toLowerCase()));
  const textSearch = last(raw['textSearch'])?.trim() ?? '';
  return {
    query: {
      orderIds: all(raw['orderId']).filter((id) => id !== ''),
      statuses,
      unknownStatusesOnly: named.length > 0 && statuses.length === 0,
      textSearch: textSearch === '' ? null : textSearch,
      startDate,
      endDate,
      skip,
      take,
      includeArchived: archived === 'true',
    },
  };
}
