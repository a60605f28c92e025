import { fromBaseUnits, networkFor, toBaseUnits, type ChainRegistry, type CoinId, type ProjectKind } from '@gw/kernel';
import { formatDecimal, formatPrice as formatFiat, type Locale } from '@gw/plugin-checkout/contract';
import type { InvoiceView } from '@gw/plugin-invoices/contract';
import type { LineItem } from '../contract.js';

/** Whether a session's `price_currency` is a fiat currency (ISO 4217, upper case) rather than a coin id (lower case). */
export function isFiatPrice(currency: string): boolean {
  return /^[A-Z]{3}$/.test(currency);
}

/** The symbol people know a coin by (`USDT`); the id in capitals for a coin no chain of the build has. */
export function coinSymbol(chains: ChainRegistry, coin: string): string {
  return chains.knownCoin(coin)?.symbol ?? coin.toUpperCase();
}

/**
 * A price for people in `locale`: a fiat amount as the checkout shows one (the language's grouping
 * and decimal separator, at least the currency's decimals, the ISO code: `1.234,50 EUR`), a coin
 * amount digit for digit with its symbol (`0.0125 BTC`).
 */
export function formatPrice(locale: Locale, chains: ChainRegistry, currency: string, amount: string): string {
  return isFiatPrice(currency) ? formatFiat(locale, amount, currency) : `${formatDecimal(locale, amount)} ${coinSymbol(chains, currency)}`;
}

/** A line's amount: its quantity times its unit amount, exactly (decimal strings, bigint arithmetic). */
export function lineTotal(item: LineItem): string {
  const decimals = item.unit_amount.split('.')[1]?.length ?? 0;
  return fromBaseUnits(toBaseUnits(item.unit_amount, decimals) * BigInt(item.quantity), decimals);
}

/** One coin the payer may pick, as the page names it. */
export interface CoinChoice {
  readonly coin: CoinId;
  /** `USDT` */
  readonly symbol: string;
  /** The network a payment of it goes over (`TRON Nile` for a sandbox or testnet project). */
  readonly network: string;
}

/**
 * The coins of a session as the payer chooses among them, in the session's order: symbol and the
 * network of the project's kind. A coin whose chain was disabled since is left out (nothing could
 * watch a payment of it).
 */
export function coinChoices(chains: ChainRegistry, coins: readonly CoinId[], kind: ProjectKind): CoinChoice[] {
  const enabled = new Set<string>(chains.coinIds());
  return coins
    .filter((coin) => enabled.has(coin))
    .map((coin) => {
      const { adapter, coin: definition } = chains.coin(coin);
      return { coin, symbol: definition.symbol, network: networkFor(adapter.definition, kind).name };
    });
}

/**
 * An e-mail address as a page reachable by its token shows it: enough for its owner to recognise
 * it (`j•••@example.com`), not enough to harvest it from a forwarded link.
 */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '•••';
  return `${email.slice(0, 1)}•••${email.slice(at)}`;
}

/** What arrived at an invoice: its payments that still count (neither reverted nor dropped), in base units. */
export function receivedUnits(invoice: InvoiceView): bigint {
  return invoice.transactions.filter((tx) => tx.status === 'pending' || tx.status === 'confirmed').reduce((sum, tx) => sum + BigInt(tx.amount_units), 0n);
}

/** The coin of a stored invoice as the payer knows it: symbol and network (no network for a chain disabled since). */
export function invoiceCoin(chains: ChainRegistry, coin: string, kind: ProjectKind): { symbol: string; network: string } {
  const choice = coinChoices(chains, [coin as CoinId], kind)[0];
  return { symbol: choice?.symbol ?? chains.storedCoin(coin).symbol, network: choice?.network ?? '' };
}

/** `url` (an absolute URL or a path) with the payer's language, so the page it leads to speaks it. */
export function withLang(url: string, locale: Locale): string {
  return `${url}${url.includes('?') ? '&' : '?'}lang=${locale}`;
}

/** The path of one of the plugin's public URLs (`{base_url}/pay/<token>` → `/pay/<token>`): links between payer pages stay on the gateway that served them. */
export function pathOf(url: string): string {
  return new URL(url, 'http://gateway.invalid').pathname;
}
