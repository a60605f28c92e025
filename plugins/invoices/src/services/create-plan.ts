import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import {
  type Actor,
  type AuditEntry,
  type ChainAdapter,
  type ChainId,
  type ChainRegistry,
  type CoinId,
  classifyAddress,
  coreErrors,
  fixedFromBaseUnits,
  fromBaseUnits,
  isBlockedAddress,
  networkFor,
  newId,
  type ProjectKind,
  type ProjectPrincipal,
  randomHex,
  type Settled,
  toBaseUnits,
  tokenContractFor,
  UnitsError,
  unitsTimesRate,
  type VerificationStandard,
} from '@gw/kernel';
import type { Allocation, PickedGroup } from '@gw/plugin-address-pool/contract';
import { fiatDecimals, type RateQuote } from '@gw/plugin-rates/contract';
import { validateWebhookUrl } from '@gw/plugin-tenancy/contract';
import type { MatchingMode } from '../config.js';
import { invoicesErrors } from '../errors.js';
import type { Invoice, StoredRateSnapshot } from '../models/invoice.js';
import type { InvoiceStatus } from '../invoice-status.js';
import { AMOUNT_USD_BOUNDS, MAX_AMOUNT_UNITS, usdDecimal, usdToUnits, usdWithinBounds } from './amounts.js';
import { checkMetadataSize, storedRateSnapshot } from './invoice-rules.js';
import { newCheckoutToken } from './checkout-links.js';
import { invoicePaymentUri } from './payment-uri.js';
import type { InvoiceView } from './invoice-view.js';
import type { ResolvedPolicy } from './policy-service.js';

/**
 * Invoice creation, the part that needs no database: normalising and fingerprinting a request,
 * settling what can be settled before any statement (coin, network, token contract, rate, amount),
 * deciding the invoice's parameters from the project's policy, and writing the row and its audit
 * entry. Pure apart from the rate lookup `prepareCreate` is given; unit-tested without PostgreSQL.
 * The statements are in create-statements.ts, the batching in invoice-creator.ts.
 */

/** Create request (the body of POST /invoices, spec 4.2). */
export interface CreateInvoiceInput {
  readonly external_id: string;
  readonly amount_usd?: number | null | undefined;
  readonly amount_crypto?: string | null | undefined;
  /**
   * A price in a fiat currency (issue 38): `price_currency` (ISO 4217, one the rates plugin
   * prices) with `price_amount` (a decimal string), instead of `amount_usd` and `amount_crypto`.
   * The invoice records both and the currency's USD rate; `amount_usd` is their USD value.
   */
  readonly price_currency?: string | null | undefined;
  readonly price_amount?: string | null | undefined;
  readonly coin: CoinId;
  readonly callback_url?: string | null | undefined;
  /** Where the checkout page sends the payer once the invoice is paid (validated like callback_url). */
  readonly return_url?: string | null | undefined;
  /** Where the checkout page sends a payer who gives up. */
  readonly cancel_url?: string | null | undefined;
  readonly metadata?: object | null | undefined;
  readonly matching_mode?: MatchingMode | null | undefined;
}

/** The outcome of a create: the invoice, and whether this call created it (201) or replayed it (200). */
export interface CreateResult {
  readonly invoice: InvoiceView;
  readonly created: boolean;
}

/**
 * What a create can settle without the database: the coin's chain and network, the rates, the
 * amount. A fiat price is converted first (`fiatQuote`: USD per unit of its currency; an unknown
 * currency is its 400): `amount_usd` is price × rate rounded half-up to cents, 422
 * `amount_out_of_range` outside the spec's bounds. Errors of the checks are kept for `decideCreate`.
 */
export async function prepareCreate(
  chains: ChainRegistry,
  item: CreateRequest,
  quote: (coin: CoinId) => Promise<RateQuote>,
  fiatQuote: (currency: string) => Promise<RateQuote>,
): Promise<Prepared> {
  const { project, input, request } = item;
  if (!request.chainEnabled) return { chainEnabled: false };
  const { adapter, coin } = chains.coin(input.coin);
  const network = networkFor(adapter.definition, project.kind);
  const base = { chainEnabled: true as const, adapter, chain: adapter.definition.id, decimals: coin.decimals };
  if (coin.contracts && tokenContractFor(adapter.definition, coin, project.kind) === undefined) {
    return {
      ...base,
      problem: invoicesErrors.coin_not_enabled({
        message: `${coin.symbol} (${coin.id}) has no token contract on ${network.name}, so it cannot be invoiced there.`,
        details: { coin: coin.id, network: network.id },
      }),
    };
  }
  let usd = request.usd;
  let priceRate: string | undefined;
  if (request.price) {
    priceRate = (await fiatQuote(request.price.currency)).rate;
    usd = fromBaseUnits(unitsTimesRate(request.price.units, request.price.decimals, priceRate, 2), 2);
    if (!usdWithinBounds(usd)) {
      return {
        ...base,
        problem: invoicesErrors.amount_out_of_range({
          message: `${request.price.amount} ${request.price.currency} is ${usd} USD at ${priceRate} USD per ${request.price.currency}; amount_usd must be from ${AMOUNT_USD_BOUNDS.min} to ${AMOUNT_USD_BOUNDS.max}.`,
          details: { amount_usd: usd, price_rate: priceRate },
        }),
      };
    }
  }
  if (usd === null) return { ...base, units: request.units };
  const priced = { usd, ...(priceRate === undefined ? {} : { priceRate }) };
  try {
    const rate = await quote(input.coin);
    return { ...base, ...priced, quote: rate, units: usdToUnits(usd, rate.rate, coin.decimals, coin.paymentDecimals) };
  } catch (error) {
    return { ...base, ...priced, quoteError: error };
  }
}

/**
 * The rest of the checks, with the project's policy: coin enabled, token contract, rate (a
 * project without a usable wallet hears about the wallet first, `walletError`), amount range;
 * the invoice's parameters from the policy.
 */
export function decideCreate(item: CreateRequest, prepared: Prepared, policy: ResolvedPolicy, walletError: unknown, now: Date = new Date()): CreatePlan {
  const { input } = item;
  if (!prepared.chainEnabled && prepared.failure !== undefined) throw prepared.failure;
  if (!prepared.chainEnabled || !policy.enabled_coins.includes(input.coin)) {
    throw invoicesErrors.coin_not_enabled({
      message: `Coin ${input.coin} is not enabled for this project.`,
      details: { coin: input.coin, enabled_coins: policy.enabled_coins },
    });
  }
  if (prepared.problem) throw prepared.problem;
  if (prepared.quoteError !== undefined) throw walletError ?? prepared.quoteError;
  const units = prepared.units ?? null;
  if (units === null || units <= 0n)
    throw invoicesErrors.amount_out_of_range({ message: 'The amount is zero in base units.', details: { amount_crypto_units: String(units ?? 0n) } });
  if (units > MAX_AMOUNT_UNITS)
    throw invoicesErrors.amount_out_of_range({
      message: 'The amount exceeds what any chain can transfer (2^256 - 1 base units).',
      details: { amount_crypto_units: units.toString() },
    });
  const { adapter } = prepared;
  const createdAt = new Date(Math.floor(now.getTime() / 1000) * 1000);
  return {
    id: newId(),
    adapter,
    decimals: prepared.decimals,
    units,
    quote: prepared.quote,
    usd: prepared.usd ?? null,
    priceRate: prepared.priceRate ?? null,
    matchingMode: input.matching_mode ?? policy.default_matching_mode,
    confirmations: policy.confirmations[adapter.definition.id] ?? adapter.definition.defaultConfirmations,
    underpaymentTolerance: policy.underpayment_tolerance,
    createdAt,
    expiresAt: new Date(createdAt.getTime() + policy.expiry_seconds * 1000),
  };
}

export function invoiceRow(item: CreateRequest, plan: CreatePlan, allocation: Allocation): InvoiceRow {
  const { project, input, request } = item;
  const paymentToken = randomHex(8);
  const { adapter } = plan;
  // One recipient for every invoice (issue 43): the invoice's own reference tells its payments apart.
  const paymentReference = adapter.newPaymentReference?.() ?? null;
  return {
    id: plan.id,
    project_id: project.id,
    project_kind: project.kind,
    external_id: input.external_id,
    request_fingerprint: request.fingerprint,
    coin: input.coin,
    chain: adapter.definition.id,
    address: allocation.address,
    pool_address_id: allocation.addressId,
    address_shared: allocation.isOverlay,
    address_released_at: null,
    derivation_path: allocation.derivationPath,
    verification_standard: adapter.definition.verificationStandard,
    amount_units: plan.units,
    amount_crypto: fromBaseUnits(plan.units, plan.decimals),
    amount_usd: plan.usd,
    rate_snapshot: plan.quote ? storedRateSnapshot(plan.quote) : null,
    price_currency: request.price?.currency ?? null,
    price_amount: request.price?.amount ?? null,
    price_rate: plan.priceRate,
    payment_token: paymentToken,
    payment_reference: paymentReference,
    payment_uri: invoicePaymentUri(
      adapter,
      { coin: input.coin, address: allocation.address, payment_token: paymentToken, payment_reference: paymentReference },
      project.kind,
      plan.units,
    ),
    callback_url: request.callbackUrl,
    checkout_token: newCheckoutToken(),
    return_url: request.returnUrl,
    cancel_url: request.cancelUrl,
    metadata: (input.metadata as Record<string, unknown> | null | undefined) ?? null,
    matching_mode: plan.matchingMode,
    confirmation_threshold: plan.confirmations,
    underpayment_tolerance: plan.underpaymentTolerance,
    status: 'pending' as const,
    expires_at: plan.expiresAt,
    created_at: plan.createdAt,
    updated_at: plan.createdAt,
  };
}

export function createAudit(
  item: CreateRequest,
  invoice: Pick<Invoice, 'id' | 'external_id' | 'coin' | 'amount_units' | 'address'>,
  allocation: Allocation,
): AuditEntry {
  return {
    ...item.actor,
    action: 'invoice.create',
    projectId: item.project.id,
    target: `invoice:${invoice.id}`,
    details: {
      external_id: invoice.external_id,
      coin: invoice.coin,
      amount_units: invoice.amount_units.toString(),
      address: invoice.address,
      overlay: allocation.isOverlay,
    },
  };
}

/** Checks what a schema cannot express and fingerprints the request for replay detection. */
export function normaliseCreate(chains: ChainRegistry, project: ProjectPrincipal, input: CreateInvoiceInput): NormalisedCreate {
  const hasUsd = input.amount_usd !== undefined && input.amount_usd !== null;
  const hasCrypto = input.amount_crypto !== undefined && input.amount_crypto !== null;
  const price = priceOf(input);
  const given = [hasUsd && 'amount_usd', hasCrypto && 'amount_crypto', price && 'price_currency'].filter((f): f is string => typeof f === 'string');
  if (given.length !== 1) {
    throw coreErrors.validation_error({
      message:
        given.length === 0
          ? 'One of amount_usd, amount_crypto or price_currency with price_amount is required.'
          : `Give one of amount_usd, amount_crypto or price_currency with price_amount, not ${given.join(' and ')}.`,
      details: { field: given.length === 0 ? 'amount_usd' : given[1]! },
    });
  }
  const chainEnabled = isCoinAvailable(chains, input.coin);
  let units: bigint | null = null;
  if (hasCrypto && chainEnabled) {
    try {
      units = toBaseUnits(input.amount_crypto!, chains.coin(input.coin).coin.decimals);
    } catch (error) {
      if (error instanceof UnitsError)
        throw coreErrors.validation_error({ message: `amount_crypto: ${error.message} for ${input.coin}`, details: { field: 'amount_crypto' } });
      throw error;
    }
  }
  const usd = hasUsd ? usdDecimal(input.amount_usd!) : null;
  // The REST schema bounds it already; the other callers (dashboard, CLI) meet the same rule.
  if (usd !== null && !usdWithinBounds(usd))
    throw coreErrors.validation_error({
      message: `amount_usd must be from ${AMOUNT_USD_BOUNDS.min} to ${AMOUNT_USD_BOUNDS.max}`,
      details: { field: 'amount_usd' },
    });
  checkMetadataSize(input.metadata);
  const callbackUrl = input.callback_url ? validateWebhookUrl(input.callback_url, project.kind) : null;
  const returnUrl = input.return_url ? partnerUrl(input.return_url, 'return_url', project.kind) : null;
  const cancelUrl = input.cancel_url ? partnerUrl(input.cancel_url, 'cancel_url', project.kind) : null;
  const fingerprint = createHash('sha256')
    .update(
      canonicalJson({
        coin: input.coin,
        amount_usd: usd,
        amount_crypto: hasCrypto ? (units?.toString() ?? input.amount_crypto) : null,
        ...(price === null ? {} : { price_currency: price.currency, price_amount: price.amount }),
        callback_url: callbackUrl,
        // Fields added later enter only when given, so a request without them hashes as it did
        // before they existed (a retry of an older invoice stays a replay, not a conflict).
        ...(returnUrl === null ? {} : { return_url: returnUrl }),
        ...(cancelUrl === null ? {} : { cancel_url: cancelUrl }),
        metadata: input.metadata ?? null,
        matching_mode: input.matching_mode ?? null,
      }),
    )
    .digest('hex');
  return { usd, units, price, callbackUrl, returnUrl, cancelUrl, fingerprint, chainEnabled };
}

/**
 * The fiat price of a create request, or null: `price_currency` and `price_amount` come together
 * (400 `validation_error` naming the missing one), the amount positive with at most the
 * currency's decimals (ISO 4217 minor unit: JPY none, most two), kept in its fixed form
 * ("19.9" EUR is "19.90"). Whether the currency is priced is the rates' answer (`fiatQuote`).
 */
function priceOf(input: CreateInvoiceInput): FiatPrice | null {
  const currency = input.price_currency ?? null;
  const amount = input.price_amount ?? null;
  if (currency === null && amount === null) return null;
  if (currency === null || amount === null) {
    const missing = currency === null ? 'price_currency' : 'price_amount';
    throw coreErrors.validation_error({
      message: `${missing} is required with ${missing === 'price_currency' ? 'price_amount' : 'price_currency'}.`,
      details: { field: missing },
    });
  }
  const decimals = fiatDecimals(currency);
  let units: bigint;
  try {
    units = toBaseUnits(amount, decimals);
  } catch (error) {
    if (error instanceof UnitsError)
      throw coreErrors.validation_error({
        message: `price_amount: ${error.message} (${currency} has ${decimals} decimals)`,
        details: { field: 'price_amount', decimals },
      });
    throw error;
  }
  if (units <= 0n) throw coreErrors.validation_error({ message: 'price_amount must be above zero.', details: { field: 'price_amount' } });
  return { currency, amount: fixedFromBaseUnits(units, decimals), units, decimals };
}

/**
 * A URL the checkout page sends the payer to (`return_url`, `cancel_url`): absolute, at most 2048
 * characters, no credentials or fragment, HTTPS; plain http only to a loopback host and only for
 * non-production projects (a partner developing locally). A production project's URL may not name
 * a private, loopback or link-local address. The gateway never fetches it, so the host is checked
 * as written, without DNS. Anything else is 400 `validation_error` naming the field.
 */
export function partnerUrl(value: string, field: 'return_url' | 'cancel_url', kind: ProjectKind): string {
  const refuse = (why: string) => coreErrors.validation_error({ message: `${field}: ${why}`, details: { field } });
  if (value.length > 2048) throw refuse('longer than 2048 characters.');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse('not an absolute URL.');
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const loopback = isLoopbackHost(host);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback && kind !== 'production')) {
    throw refuse(kind === 'production' ? 'must be an https URL.' : 'must be an https URL (or http to a loopback host while developing).');
  }
  if (url.username || url.password) throw refuse('must not embed credentials.');
  if (url.hash) throw refuse('must not have a fragment.');
  if (kind === 'production' && (loopback || (isIP(host) !== 0 && isBlockedAddress(host)))) throw refuse('must not point at a private or loopback address.');
  return url.toString();
}

/**
 * Whether a host name as the WHATWG URL parser left it (lowercase, IPv4 in dotted decimal whatever
 * its written form, IPv6 without brackets) names this machine: an IP literal in 127.0.0.0/8 or
 * `::1` (IPv4-mapped forms included), or `localhost` and its subdomains (RFC 6761: they resolve to
 * loopback, and browsers treat them so). A name that merely starts with `127.` (`127.evil.com`) is
 * a domain like any other.
 */
export function isLoopbackHost(host: string): boolean {
  if (isIP(host) !== 0) return classifyAddress(host) === 'loopback';
  return host === 'localhost' || host.endsWith('.localhost');
}

function isCoinAvailable(chains: ChainRegistry, coin: CoinId): boolean {
  try {
    chains.coin(coin);
    return true;
  } catch {
    return false;
  }
}

/** JSON with object keys sorted at every depth, so equal requests hash equally. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A create waiting for its batch. */
export interface CreateRequest {
  readonly project: ProjectPrincipal;
  readonly input: CreateInvoiceInput;
  readonly actor: Actor;
  readonly request: NormalisedCreate;
}

/** A price in a fiat currency as a create gives it: the code, the amount in its fixed form and in minor units. */
export interface FiatPrice {
  readonly currency: string;
  readonly amount: string;
  readonly units: bigint;
  /** The currency's ISO 4217 minor unit. */
  readonly decimals: number;
}

export interface NormalisedCreate {
  /** `amount_usd` as given (a fiat price's USD is settled by `prepareCreate`, at the rate then). */
  readonly usd: string | null;
  readonly units: bigint | null;
  readonly price: FiatPrice | null;
  readonly callbackUrl: string | null;
  readonly returnUrl: string | null;
  readonly cancelUrl: string | null;
  readonly fingerprint: string;
  readonly chainEnabled: boolean;
}

/** What `prepare` settled of a create before any database work (errors kept for `decide`'s order). */
export type Prepared =
  | { readonly chainEnabled: false; readonly chain?: undefined; /** An unexpected error of `prepare`, this request's alone. */ readonly failure?: unknown }
  | {
      readonly chainEnabled: true;
      readonly adapter: ChainAdapter;
      readonly chain: ChainId;
      readonly decimals: number;
      /** The coin has no token contract on the project's network. */
      readonly problem?: unknown;
      readonly quote?: RateQuote;
      readonly quoteError?: unknown;
      readonly units?: bigint | null;
      /** The invoice's `amount_usd`: as given, or a fiat price converted. */
      readonly usd?: string;
      /** USD per unit of a fiat price's currency. */
      readonly priceRate?: string;
    };

/** What the transaction of a batch settled; the rest is answered after its commit. */
export interface BatchResult {
  readonly outcomes: Map<number, Settled<CreateResult>>;
  /** Keys that already hold an invoice. */
  readonly replays: number[];
  /** Creates the pool's fresh rows did not cover. */
  readonly slow: { readonly i: number; readonly plan: CreatePlan }[];
  readonly pools: PickedGroup[];
  /** Fresh rows taken per pool, in the order of `pools`. */
  readonly taken: number[];
}

/** An invoice row as written at creation. */
export interface InvoiceRow {
  readonly id: string;
  readonly project_id: string;
  readonly project_kind: ProjectKind;
  readonly external_id: string;
  readonly request_fingerprint: string;
  readonly coin: CoinId;
  readonly chain: ChainId;
  readonly address: string;
  readonly pool_address_id: string;
  readonly address_shared: boolean;
  readonly address_released_at: Date | null;
  readonly derivation_path: string;
  readonly verification_standard: VerificationStandard;
  readonly amount_units: bigint;
  readonly amount_crypto: string;
  readonly amount_usd: string | null;
  readonly rate_snapshot: StoredRateSnapshot | null;
  readonly price_currency: string | null;
  readonly price_amount: string | null;
  readonly price_rate: string | null;
  readonly payment_token: string;
  /** Chains with payment references: the invoice's fresh reference (`newPaymentReference`); null elsewhere. */
  readonly payment_reference: string | null;
  readonly payment_uri: string;
  readonly callback_url: string | null;
  readonly checkout_token: string;
  readonly return_url: string | null;
  readonly cancel_url: string | null;
  readonly metadata: Record<string, unknown> | null;
  readonly matching_mode: MatchingMode;
  readonly confirmation_threshold: number;
  /** The project's underpayment tolerance at creation (decimal share, "0": none). */
  readonly underpayment_tolerance: string;
  readonly status: InvoiceStatus;
  readonly expires_at: Date;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** What a create decided before its transaction. */
export interface CreatePlan {
  readonly id: string;
  readonly adapter: ChainAdapter;
  readonly decimals: number;
  readonly units: bigint;
  readonly quote: RateQuote | undefined;
  /** The invoice's `amount_usd` (null: priced in the coin). */
  readonly usd: string | null;
  /** USD per unit of its fiat price's currency (null without one). */
  readonly priceRate: string | null;
  readonly matchingMode: MatchingMode;
  readonly confirmations: number;
  /** The project's underpayment tolerance, snapshotted on the invoice. */
  readonly underpaymentTolerance: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export function memo<K, V>(cache: Map<K, V>, key: K, make: () => V): V {
  if (!cache.has(key)) cache.set(key, make());
  return cache.get(key)!;
}

export function attempt<T>(fn: () => T): Settled<T> {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

export async function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}
