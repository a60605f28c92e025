import { divideDecimals, trimTrailing, UnitsError } from '@gw/kernel';
import type { PriceAsset } from '@gw/kernel';
import type { Asset } from '../assets.js';

/** One provider's USD price of one asset. */
export interface ProviderRate {
  /** USD per 1 whole unit of the asset, a positive plain decimal string. */
  readonly rate: string;
  /** When the provider produced the price (its own timestamp when it gives one, else fetch time). */
  readonly at: Date;
}

/**
 * A source of USD prices. `fetch` asks for several assets in one round trip and returns the ones
 * the provider priced, by symbol; assets it does not list are simply absent. Each asset carries
 * its id at the provider (`PriceAsset.providers[provider id]`, from the coin definitions); an
 * asset without one is not asked for. `fetchFiat` does the same for fiat currencies (USD per 1
 * unit, by ISO 4217 code; never asked for USD), in a request of its own. Both throw a
 * {@link ProviderError} when the provider cannot be used at all (unreachable, timeout, HTTP error,
 * malformed answer); a provider with nothing to ask for answers an empty map without a request.
 */
export interface RateProvider {
  /** Stable id, stored as the quote's `source`: `coingecko`, `kraken`, `fixed`. */
  readonly id: string;
  fetch(assets: readonly PriceAsset[]): Promise<Map<Asset, ProviderRate>>;
  fetchFiat(currencies: readonly string[]): Promise<Map<string, ProviderRate>>;
}

/**
 * Significant digits of a rate the provider does not quote itself but that is computed from its
 * numbers (a ratio of two, or an inverse): more than any provider sends, so nothing is lost.
 */
export const DERIVED_RATE_DIGITS = 12;

/**
 * `numerator / denominator` as a rate ({@link DERIVED_RATE_DIGITS} significant digits), or
 * undefined when the quotient is no usable rate (zero, or beyond the decimal module's bounds).
 */
export function derivedRate(numerator: string, denominator: string): string | undefined {
  try {
    const rate = divideDecimals(numerator, denominator, DERIVED_RATE_DIGITS);
    return /[1-9]/.test(rate) ? rate : undefined;
  } catch (error) {
    if (error instanceof UnitsError) return undefined;
    throw error;
  }
}

/** A provider failed as a whole; the message says why (logged, never shown to API clients). */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${provider}: ${message}`, options);
    this.name = 'ProviderError';
  }
}

/**
 * A JSON number kept as the literal text the provider sent, so a price is never rounded through a
 * double. Produced by {@link getJson} with `exactNumbers`.
 */
export class JsonNumber {
  constructor(readonly text: string) {}
}

type ReviverContext = { readonly source?: string };

/** Parses JSON keeping each number's source text (Node 22+ passes it to the reviver). */
export function parseJsonExact(text: string): unknown {
  return JSON.parse(text, function (this: unknown, _key: string, value: unknown, context?: ReviverContext) {
    if (typeof value !== 'number') return value;
    return new JsonNumber(context?.source ?? String(value));
  } as (this: unknown, key: string, value: unknown) => unknown);
}

export interface GetJsonOptions {
  readonly timeoutMs: number;
  readonly headers?: Record<string, string>;
  /** Numbers become {@link JsonNumber} instead of JavaScript numbers. */
  readonly exactNumbers?: boolean;
}

/**
 * GET a JSON document. One timeout covers connecting, the status line and the body. Any failure is
 * a ProviderError naming the provider, with the HTTP status or the reason.
 */
export async function getJson(provider: string, url: URL, options: GetJsonOptions): Promise<unknown> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let text: string;
  try {
    const response = await fetch(url, { headers: { accept: 'application/json', ...options.headers }, signal, redirect: 'error' });
    text = await response.text();
    if (!response.ok) throw new ProviderError(provider, `HTTP ${response.status} from ${url.origin}${url.pathname}: ${text.slice(0, 200)}`);
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    if (signal.aborted) throw new ProviderError(provider, `no answer from ${url.origin} within ${options.timeoutMs} ms`, { cause: error });
    throw new ProviderError(provider, `request to ${url.origin} failed: ${describe(error)}`, { cause: error });
  }
  try {
    return options.exactNumbers ? parseJsonExact(text) : JSON.parse(text);
  } catch (error) {
    throw new ProviderError(provider, `malformed JSON from ${url.origin}${url.pathname}: ${text.slice(0, 100)}`, { cause: error });
  }
}

/** `base` (which may carry a path prefix) joined with `path`. */
export function endpoint(base: string, path: string, query: Record<string, string>): URL {
  const url = new URL(`${trimTrailing(base, '/')}${path}`);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  return url;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}
