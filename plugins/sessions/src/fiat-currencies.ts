/**
 * The fiat currencies prices may be given in, until the rates plugin's contract names them
 * (issue 38: `FIAT_CURRENCIES`, `isFiatCurrency`, `fiatDecimals` of `@gw/plugin-rates/contract`).
 */
export const FIAT_CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD', 'BRL', 'INR', 'TRY'] as const;

export function isFiatCurrency(code: string): boolean {
  return (FIAT_CURRENCIES as readonly string[]).includes(code);
}

/** The decimals a fiat currency is written with (JPY 0, the others 2). */
export function fiatDecimals(code: string): number {
  return code === 'JPY' ? 0 : 2;
}
