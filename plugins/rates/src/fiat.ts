/**
 * The fiat currencies the gateway prices (issue 38): the ten it always prices, plus the ISO 4217
 * codes config `plugins.rates.fiat.currencies` adds. A fiat rate is USD per 1 unit of the currency
 * and is cached in `rates_quotes` under the currency code, beside the coins' assets.
 */

/** The currencies every gateway prices, USD first. */
export const FIAT_CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD', 'BRL', 'INR', 'TRY'] as const;

/** One of {@link FIAT_CURRENCIES}. */
export type FiatCurrency = (typeof FIAT_CURRENCIES)[number];

/** The currency every rate is quoted in: its rate is always 1, without a provider. */
export const USD = 'USD';

/** An ISO 4217 alphabetic code: three capital letters. */
export const CURRENCY_CODE_PATTERN = '^[A-Z]{3}$';

/**
 * Whether `code` is a fiat currency the gateway prices: one of {@link FIAT_CURRENCIES}, or one of
 * `extra` (the configured `plugins.rates.fiat.currencies`; `RateService.fiatCurrencies` is the
 * whole list of a running gateway). Codes are case-sensitive (`EUR`, not `eur`).
 */
export function isFiatCurrency(code: string, extra: readonly string[] = []): boolean {
  return (FIAT_CURRENCIES as readonly string[]).includes(code) || extra.includes(code);
}

/**
 * ISO 4217 minor units of the currencies that do not use two: none (`JPY`, `KRW`, …) or three
 * (`KWD`, `BHD`, …). Currencies with a minor unit that is not a power of ten are not listed.
 */
const MINOR_UNITS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
};

/**
 * The fractional digits an amount in `currency` has (its ISO 4217 minor unit): 0 for `JPY`, 2 for
 * `USD`, `EUR` and the other built-in currencies, 3 for `KWD`. A price in the currency has at most
 * this many decimals.
 */
export function fiatDecimals(currency: string): number {
  return MINOR_UNITS[currency] ?? 2;
}
