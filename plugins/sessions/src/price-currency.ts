import { type ChainRegistry, type CoinId, coreErrors, fixedFromBaseUnits, fromBaseUnits, toBaseUnits, UnitsError } from '@gw/kernel';
import { fiatDecimals, isFiatCurrency } from '@gw/plugin-rates/contract';

/** What a price is in: a fiat currency (ISO 4217) or one coin of the build. */
export type PriceCurrency =
  { readonly kind: 'fiat'; readonly code: string; readonly decimals: number } | { readonly kind: 'coin'; readonly code: CoinId; readonly decimals: number };

/** What a price may be in: the fiat currencies the running gateway prices (`RateService.fiatCurrencies`) and the enabled coins. */
export interface PriceCurrencies {
  readonly chains: ChainRegistry;
  readonly fiatCurrencies: readonly string[];
}

/**
 * The currency of `code`: a fiat currency the rates plugin prices (`EUR`), or the id of an enabled
 * coin (`btc`), whose price is then paid in that coin only. Anything else is 400 `validation_error`
 * naming `field` and the currencies priced.
 */
export function priceCurrencyOf(known: PriceCurrencies, code: string, field = 'price_currency'): PriceCurrency {
  const { chains, fiatCurrencies } = known;
  if (isFiatCurrency(code, fiatCurrencies)) return { kind: 'fiat', code, decimals: fiatDecimals(code) };
  if (chains.coinIds().includes(code as CoinId)) return { kind: 'coin', code: code as CoinId, decimals: chains.coin(code).coin.decimals };
  throw coreErrors.validation_error({
    message: `${field}: "${code.slice(0, 40)}" is neither a currency the gateway prices (${fiatCurrencies.join(', ')}) nor an enabled coin (${chains.coinIds().join(', ')}).`,
    details: { field, currencies: [...fiatCurrencies], coins: [...chains.coinIds()] },
  });
}

/**
 * An amount of `currency` as base units (cents, satoshis): a decimal string with at most the
 * currency's decimals; 400 `validation_error` naming `field` otherwise, or when it is not above 0
 * (unless `zero` allows it).
 */
export function unitsOf(currency: PriceCurrency, amount: string, field: string, zero = false): bigint {
  let units: bigint;
  try {
    if (!/^\d{1,30}(\.\d{1,30})?$/.test(amount)) throw new UnitsError(`"${amount}" is not a decimal number`);
    units = toBaseUnits(amount, currency.decimals);
  } catch (error) {
    if (!(error instanceof UnitsError)) throw error;
    throw coreErrors.validation_error({
      message: `${field}: ${error.message} (${currency.code} has ${currency.decimals} decimals).`,
      details: { field },
    });
  }
  if (units <= 0n && !zero) throw coreErrors.validation_error({ message: `${field} must be above 0.`, details: { field } });
  return units;
}

/**
 * The canonical decimal string of `units` of `currency`: a fiat amount in its fixed form with the
 * currency's decimals, as an invoice's `price_amount` (`10.50` EUR, `1500` JPY); a coin amount in
 * its shortest form, as an invoice's `amount_crypto` (`0.001`).
 */
export function amountOf(currency: PriceCurrency, units: bigint): string {
  return currency.kind === 'fiat' ? fixedFromBaseUnits(units, currency.decimals) : fromBaseUnits(units, currency.decimals);
}
