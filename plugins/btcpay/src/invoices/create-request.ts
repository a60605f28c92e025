import { type CoinId, decimalOfNumber, UnitsError } from '@gw/kernel';
import type { CreateSessionInput } from '@gw/plugin-sessions/contract';
import { normaliseEmail } from '@gw/plugin-tenancy/contract';
import type { StoredOptions } from './invoice-rows.js';
import type { ValidationIssue } from './validation-issues.js';

/** BTCPay's `SpeedPolicy` values. */
export const SPEED_POLICIES = ['HighSpeed', 'MediumSpeed', 'LowMediumSpeed', 'LowSpeed'] as const;

/**
 * The lifetimes a checkout session may have, in seconds (the sessions plugin's bounds, five minutes
 * to seven days): `checkout.expirationMinutes` is clamped into them.
 */
export const SESSION_SECONDS = { min: 300, max: 604_800 } as const;

/** BTCPay refuses an expiration under 30 seconds. */
const MIN_EXPIRATION_SECONDS = 30;

/** The currency of an invoice without one: BTCPay's store default, USD out of the box. */
export const DEFAULT_CURRENCY = 'USD';

/** The most a session's description (from `metadata.itemDesc`) and external id (from `metadata.orderId`) take (the sessions plugin's limits). */
const DESCRIPTION_MAX = 1000;
const EXTERNAL_ID_MAX = 200;

/** The largest `metadata` kept, as JSON in UTF-8 (a shop's cart in `posData` included). */
export const METADATA_MAX_BYTES = 64 * 1024;

/** How the request names coins, in BTCPay's words. */
export interface CoinNames {
  /** The coin a BTCPay payment method id names (`BTC-CHAIN`); undefined for one this gateway does not have. */
  coinOfPaymentMethod(id: string): CoinId | undefined;
  /** The coin an invoice currency names (`BTC`); undefined for any other code (a fiat currency). */
  coinOfCurrency(code: string): CoinId | undefined;
}

/** A create request, read: the session to open and what the BTCPay invoice keeps beside it. */
export interface CreateRequest {
  readonly session: CreateSessionInput;
  readonly orderId: string | null;
  readonly metadata: Record<string, unknown>;
  readonly options: StoredOptions;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads BTCPay's `CreateInvoiceRequest` as BTCPay's model binding does: every field optional and
 * nullable, unknown fields ignored, names of enums case-insensitive; every problem is collected
 * under its JSON path (`amount`, `checkout.paymentMethods[1]`) for the 422 list. What the gateway
 * does not do answers there too: an invoice without an amount (BTCPay's top-up invoice), a
 * redirect URL with the `{InvoiceId}` placeholder.
 */
export function parseCreateRequest(body: unknown, names: CoinNames): { readonly request: CreateRequest } | { readonly issues: readonly ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const refuse = (path: string, message: string) => {
    issues.push({ path, message });
    return undefined;
  };
  if (!isObject(body)) return { issues: [{ path: '', message: 'The request body must be a JSON object.' }] };

  const amount = readAmount(body['amount'], refuse);
  const currency = readCurrency(body['currency'], names, refuse);
  const metadata = readObject(body['metadata'], 'metadata', refuse) ?? {};
  if (Buffer.byteLength(JSON.stringify(metadata), 'utf8') > METADATA_MAX_BYTES)
    refuse('metadata', `metadata takes at most ${METADATA_MAX_BYTES} bytes as JSON.`);
  const orderId = readOrderId(metadata['orderId'], refuse);
  const checkout = readObject(body['checkout'], 'checkout', refuse) ?? {};
  const receipt = readObject(body['receipt'], 'receipt', refuse);

  const speedPolicy = readSpeedPolicy(checkout['speedPolicy'], refuse);
  const coins = readPaymentMethods(checkout['paymentMethods'], names, refuse);
  const expiration = readNumber(checkout['expirationMinutes'], 'checkout.expirationMinutes', refuse);
  const expiresIn = expiration === undefined ? undefined : expiresInOf(expiration, refuse);
  const monitoringMinutes = readNumber(checkout['monitoringMinutes'], 'checkout.monitoringMinutes', refuse);
  if (monitoringMinutes !== undefined && monitoringMinutes < 0) refuse('checkout.monitoringMinutes', 'The monitoring time should be 0 or more.');
  const paymentTolerance = readNumber(checkout['paymentTolerance'], 'checkout.paymentTolerance', refuse);
  if (paymentTolerance !== undefined && (paymentTolerance < 0 || paymentTolerance > 100)) {
    refuse('checkout.paymentTolerance', 'PaymentTolerance can only be between 0 and 100 percent');
  }
  const redirectURL = readString(checkout['redirectURL'], 'checkout.redirectURL', refuse);
  const returnUrl = redirectURL === undefined ? undefined : returnUrlOf(redirectURL, orderId, refuse);
  const options: StoredOptions = {
    ...defined('speedPolicy', speedPolicy),
    ...defined('paymentMethods', coins === undefined ? undefined : (checkout['paymentMethods'] as string[])),
    ...defined('defaultPaymentMethod', readString(checkout['defaultPaymentMethod'], 'checkout.defaultPaymentMethod', refuse)),
    ...defined('lazyPaymentMethods', readBoolean(checkout['lazyPaymentMethods'], 'checkout.lazyPaymentMethods', refuse)),
    ...defined('expirationMinutes', expiration),
    ...defined('monitoringMinutes', monitoringMinutes),
    ...defined('paymentTolerance', paymentTolerance),
    ...defined('redirectURL', redirectURL),
    ...defined('redirectAutomatically', readBoolean(checkout['redirectAutomatically'], 'checkout.redirectAutomatically', refuse)),
    ...defined('defaultLanguage', readString(checkout['defaultLanguage'], 'checkout.defaultLanguage', refuse)),
    ...defined('receipt', receipt === undefined ? undefined : readReceipt(receipt, refuse)),
    ...defined('additionalSearchTerms', readSearchTerms(body['additionalSearchTerms'], refuse)),
  };
  if (issues.length > 0 || amount === undefined || currency === undefined) return { issues };

  const email = normaliseEmail(metadata['buyerEmail']);
  const itemDesc = typeof metadata['itemDesc'] === 'string' ? metadata['itemDesc'].trim().slice(0, DESCRIPTION_MAX) : '';
  const session: CreateSessionInput = {
    price_currency: currency,
    price_amount: amount,
    ...defined('allowed_coins', coins),
    ...defined('external_id', orderId !== null && orderId.length <= EXTERNAL_ID_MAX ? orderId : undefined),
    ...defined('customer_email', email),
    ...defined('description', itemDesc === '' ? undefined : itemDesc),
    ...defined('return_url', returnUrl),
    ...defined('expires_in', expiresIn),
  };
  return { request: { session, orderId, metadata, options } };
}

/** BTCPay's `UpdateInvoiceRequest`: the new metadata (null: none) and the order id it names. */
export function parseMetadataUpdate(
  body: unknown,
): { readonly metadata: Record<string, unknown>; readonly orderId: string | null } | { readonly issues: readonly ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const refuse = (path: string, message: string) => {
    issues.push({ path, message });
    return undefined;
  };
  if (!isObject(body)) return { issues: [{ path: '', message: 'The request body must be a JSON object.' }] };
  const metadata = readObject(body['metadata'], 'metadata', refuse) ?? {};
  if (Buffer.byteLength(JSON.stringify(metadata), 'utf8') > METADATA_MAX_BYTES)
    refuse('metadata', `metadata takes at most ${METADATA_MAX_BYTES} bytes as JSON.`);
  const orderId = readOrderId(metadata['orderId'], refuse);
  return issues.length > 0 ? { issues } : { metadata, orderId };
}

type Refuse = (path: string, message: string) => undefined;

/** `{ [key]: value }` when the value is given, else nothing (optional fields stay absent). */
function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** The price as a plain decimal string; a JSON number is read as the decimal its writer wrote. */
function readAmount(value: unknown, refuse: Refuse): string | undefined {
  if (value === undefined || value === null) {
    return refuse('amount', 'The amount is required: this gateway does not create top-up invoices (invoices without an amount).');
  }
  let text: string;
  if (typeof value === 'number') {
    if (value < 0) return refuse('amount', 'The amount should be 0 or more.');
    try {
      text = decimalOfNumber(value);
    } catch (error) {
      if (error instanceof UnitsError) return refuse('amount', 'The amount is not a decimal number.');
      throw error;
    }
  } else if (typeof value === 'string') {
    text = value.trim();
    if (text.startsWith('-')) return refuse('amount', 'The amount should be 0 or more.');
    if (!/^\d{1,30}(\.\d{1,30})?$/.test(text)) return refuse('amount', 'The amount is not a decimal number.');
  } else {
    return refuse('amount', 'The amount is not a decimal number.');
  }
  if (!/[1-9]/.test(text)) return refuse('amount', 'The amount should be above 0: this gateway does not create invoices of nothing to pay.');
  return text;
}

/** The session's price currency: a coin's id for a coin's code (`BTC` → `btc`), else the code in capitals (a fiat currency, checked by the sessions). */
function readCurrency(value: unknown, names: CoinNames, refuse: Refuse): string | undefined {
  if (value === undefined || value === null || value === '') return DEFAULT_CURRENCY;
  if (typeof value !== 'string') return refuse('currency', 'The currency must be a currency code.');
  const code = value.trim().toUpperCase();
  return names.coinOfCurrency(code) ?? code;
}

function readObject(value: unknown, path: string, refuse: Refuse): Json | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) return refuse(path, `${path} must be a JSON object.`);
  return { ...value };
}

function readString(value: unknown, path: string, refuse: Refuse): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return refuse(path, `${path} must be a string.`);
  return value;
}

function readBoolean(value: unknown, path: string, refuse: Refuse): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') return refuse(path, `${path} must be true or false.`);
  return value;
}

function readNumber(value: unknown, path: string, refuse: Refuse): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) return refuse(path, `${path} must be a number.`);
  return value;
}

/** `metadata.orderId` as text (a number is an order number too); null without one. */
function readOrderId(value: unknown, refuse: Refuse): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return refuse('metadata.orderId', 'metadata.orderId must be a string.') ?? null;
  const orderId = value.trim();
  return orderId === '' ? null : orderId;
}

function readSpeedPolicy(value: unknown, refuse: Refuse): string | undefined {
  if (value === undefined || value === null) return undefined;
  const found = typeof value === 'string' ? SPEED_POLICIES.find((policy) => policy.toLowerCase() === value.toLowerCase()) : undefined;
  return found ?? refuse('checkout.speedPolicy', `The speed policy must be one of ${SPEED_POLICIES.join(', ')}.`);
}

/** The coins of `checkout.paymentMethods`, each once in the order given; absent (every coin of the store) when null or empty. */
function readPaymentMethods(value: unknown, names: CoinNames, refuse: Refuse): CoinId[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) return refuse('checkout.paymentMethods', 'checkout.paymentMethods must be an array of payment method ids.');
  if (value.length === 0) return undefined;
  const coins: CoinId[] = [];
  value.forEach((id: unknown, index) => {
    const coin = typeof id === 'string' ? names.coinOfPaymentMethod(id) : undefined;
    if (coin === undefined) refuse(`checkout.paymentMethods[${index}]`, 'Invalid PaymentMethodId');
    else if (!coins.includes(coin)) coins.push(coin);
  });
  return coins;
}

/** The session's lifetime in seconds for `minutes`, clamped into the sessions' bounds. */
function expiresInOf(minutes: number, refuse: Refuse): number | undefined {
  const seconds = Math.round(minutes * 60);
  if (seconds < MIN_EXPIRATION_SECONDS) return refuse('checkout.expirationMinutes', 'Expiration time must be at least 30 seconds');
  return Math.min(SESSION_SECONDS.max, Math.max(SESSION_SECONDS.min, seconds));
}

/** The session's return URL: `redirectURL` with BTCPay's `{OrderId}` placeholder filled in. */
function returnUrlOf(redirectURL: string, orderId: string | null, refuse: Refuse): string | undefined {
  if (redirectURL.trim() === '') return undefined;
  if (redirectURL.includes('{InvoiceId}')) {
    return refuse('checkout.redirectURL', 'The {InvoiceId} placeholder is not supported by this gateway; use {OrderId} or a URL of its own.');
  }
  return redirectURL.replaceAll('{OrderId}', encodeURIComponent(orderId ?? ''));
}

function readReceipt(receipt: Json, refuse: Refuse): StoredOptions['receipt'] {
  return {
    ...defined('enabled', readBoolean(receipt['enabled'], 'receipt.enabled', refuse)),
    ...defined('showQR', readBoolean(receipt['showQR'], 'receipt.showQR', refuse)),
    ...defined('showPayments', readBoolean(receipt['showPayments'], 'receipt.showPayments', refuse)),
  };
}

function readSearchTerms(value: unknown, refuse: Refuse): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((term) => typeof term !== 'string')) {
    return refuse('additionalSearchTerms', 'additionalSearchTerms must be an array of strings.');
  }
  return value as string[];
}
