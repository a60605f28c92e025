import type { Locale } from './i18n.js';

/**
 * The Intl locale each page language formats numbers and dates with (`pt` is Brazilian, `zh`
 * mainland Simplified Chinese): grouping, decimal separator, month names.
 */
export const INTL_LOCALES: Readonly<Record<Locale, string>> = {
  en: 'en-US',
  de: 'de-DE',
  es: 'es-ES',
  fr: 'fr-FR',
  pt: 'pt-BR',
  it: 'it-IT',
  tr: 'tr-TR',
  zh: 'zh-CN',
};

const DECIMAL = /^-?\d+(\.\d+)?$/;
/** Formatters by language and fraction digits (at most 8 × 101: building one costs more than formatting). */
const formatters = new Map<string, (value: string) => string>();

/**
 * A decimal amount string formatted for people in `locale`: that language's grouping and decimal
 * separator (`1.234,5` in German, `1 234,5` in French, `1234,5` in Spanish, which groups from five
 * digits), every digit kept. Intl formats the string itself as an exact decimal (never a JS
 * number), so no precision is lost; the copyable amount stays the machine string. A string that
 * is no decimal number comes back unchanged.
 */
export function formatDecimal(locale: Locale, value: string): string {
  if (!DECIMAL.test(value)) return value;
  const digits = value.split('.')[1]?.length ?? 0;
  // Intl shows at most 100 fraction digits; more are kept as written rather than rounded.
  if (digits > 100) return value;
  const key = `${locale}:${digits}`;
  let format = formatters.get(key);
  if (!format) {
    // Intl.NumberFormat reads a string argument as an exact decimal (ECMA-402 "Intl mathematical value").
    const formatter = new Intl.NumberFormat(INTL_LOCALES[locale], { minimumFractionDigits: digits, maximumFractionDigits: digits });
    format = formatter.format.bind(formatter) as (value: string) => string;
    formatters.set(key, format);
  }
  return format(value);
}

/**
 * The decimals a fiat currency shows (ISO 4217 minor units, from the runtime's Intl data: JPY 0,
 * EUR 2, BHD 3); 2 for a code Intl does not know.
 */
export function currencyDecimals(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/**
 * A price in a fiat currency for people in `locale`: the amount with at least the currency's
 * decimals (`12.5` EUR shows `12,50 EUR` in German; digits beyond them are kept, never rounded),
 * then the ISO code, joined by a no-break space. The code, not a symbol: `$` would not say which
 * dollar.
 */
export function formatPrice(locale: Locale, amount: string, currency: string): string {
  if (!DECIMAL.test(amount)) return `${amount}\u00a0${currency}`;
  const [whole, fraction = ''] = amount.split('.');
  const padded = fraction.padEnd(currencyDecimals(currency), '0');
  return `${formatDecimal(locale, padded ? `${whole}.${padded}` : whole!)}\u00a0${currency}`;
}

/**
 * The decimal string of a USD amount the invoice view carries as a JS number (spec 2.1
 * `amount_usd`): the shortest string that reads back as that number, which for the cents the
 * gateway stores is exactly the stored value.
 */
export function usdAmountString(usd: number): string {
  const text = String(usd);
  return /e/i.test(text) ? usd.toFixed(2) : text;
}

/** A point in time for people in `locale`, in UTC (the server cannot know the payer's zone; the script shows local time). */
export function formatTime(locale: Locale, date: Date): string {
  return new Intl.DateTimeFormat(INTL_LOCALES[locale], {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  }).format(date);
}
