/**
 * Refunds and payouts (issue 37): the types of their REST resources and the calls of the
 * `refunds`, `payouts` and sandbox resources of {@link GatewayClient}. The shapes are the generated
 * ones of the gateway's OpenAPI document.
 */
import type { OperationBody, OperationQuery, OperationResult } from './operation-types.js';

/** An item's status, in lifecycle order (`failed` and `cancelled` end it early). */
export const MONEY_OUT_STATUSES = [
  'awaiting_claim',
  'claimed',
  'pending_approval',
  'approved',
  'batched',
  'sent',
  'completed',
  'failed',
  'cancelled',
] as const satisfies readonly MoneyOutItem['status'][];
export type MoneyOutStatus = (typeof MONEY_OUT_STATUSES)[number];

/** How a refund's amount is found: the coin amount paid, its fiat value at payment, or its fiat value now. */
export const REFUND_RATE_RULES = ['coin_amount', 'fiat_at_payment', 'fiat_now'] as const satisfies readonly NonNullable<MoneyOutItem['rate_rule']>[];
export type RefundRateRule = (typeof REFUND_RATE_RULES)[number];

/** A refund or a payout as the API answers it (the OpenAPI document's item). Amounts are decimal strings, base units as integer strings. */
export type MoneyOutItem = OperationResult<'getRefundsById'>;

export interface Refund extends MoneyOutItem {
  readonly object: 'refund';
  readonly invoice_id: string;
}

export interface Payout extends MoneyOutItem {
  readonly object: 'payout';
  readonly invoice_id: null;
}

/** The body of `POST /invoices/{id}/refunds`; every field optional (no amount: the natural amount, e.g. an overpayment's excess). */
export type CreateRefundInput = OperationBody<'postInvoicesByInvoiceIdRefunds'>;

/** One recipient of `POST /payouts`. */
export type PayoutRecipientInput = OperationBody<'postPayouts'>['recipients'][number];

/** The filters of the project-wide lists. */
export type MoneyOutListQuery = OperationQuery<'getRefunds'>;

export interface MoneyOutPage<T> {
  readonly items: readonly T[];
  readonly next_cursor?: string;
}

/** Options of a create. */
export interface IdempotencyOptions {
  /**
   * Sent as `Idempotency-Key` (at most 255 characters): a repeat with the same key answers the
   * first result (200) instead of creating again, so a create with a key is retried safely.
   */
  readonly idempotencyKey?: string;
}

/** The simulations of a sandbox refund; each writes the status change and event a real one would. */
export const REFUND_SIMULATIONS = ['claim', 'approve', 'send', 'confirm', 'fail'] as const;
export type RefundSimulation = (typeof REFUND_SIMULATIONS)[number];
/** The simulations of a sandbox payout (a payout has no claim). */
export const PAYOUT_SIMULATIONS = ['approve', 'send', 'confirm', 'fail'] as const;
export type PayoutSimulation = (typeof PAYOUT_SIMULATIONS)[number];

/** What the money-out resources send through: a signed call of the client. */
export interface MoneyOutSend {
  <T>(request: {
    readonly method: 'GET' | 'POST';
    readonly path: string;
    readonly query?: object;
    readonly body?: unknown;
    readonly headers?: Readonly<Record<string, string>>;
    readonly idempotent: boolean;
  }): Promise<{ status: number; result: T }>;
}

const segment = (value: string, name: string): string => {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${name} is required`);
  return encodeURIComponent(value);
};

/** The `Idempotency-Key` header of a create, and whether it makes the call safe to retry (only with a key). */
export function idempotencyHeaders(options: IdempotencyOptions): { headers?: Record<string, string>; idempotent: boolean } {
  const key = options.idempotencyKey;
  if (key === undefined) return { idempotent: false };
  if (typeof key !== 'string' || key === '' || key.length > 255) throw new TypeError('idempotencyKey must be 1 to 255 characters');
  return { headers: { 'Idempotency-Key': key }, idempotent: true };
}

/** A GET through `send`, safe to retry, answering the result. */
const getThrough =
  (send: MoneyOutSend) =>
  <T>(path: string, query?: MoneyOutListQuery): Promise<T> =>
    send<T>({ method: 'GET', path, ...(query ? { query } : {}), idempotent: true }).then((r) => r.result);

/** A POST through `send` (with `body` when given), not retried, answering the result. */
const postThrough =
  (send: MoneyOutSend) =>
  <T>(path: string, body?: unknown): Promise<T> =>
    send<T>({ method: 'POST', path, ...(body === undefined ? {} : { body }), idempotent: false }).then((r) => r.result);

/** The refund calls under `prefix` (`/api/v1` or `/api/v1/sandbox`). */
export function refundsResource(send: MoneyOutSend, prefix: string) {
  const get = getThrough(send);
  const post = postThrough(send);
  const resource = {
    /**
     * Proposes a refund of the invoice (it then waits for the payer's claim and an administrator's
     * approval). Answers the refund and whether it was created now (201) or is the answer to an
     * earlier call with the same idempotency key (200).
     */
    createWithStatus: async (invoiceId: string, body: CreateRefundInput = {}, options: IdempotencyOptions = {}) => {
      const { status, result } = await send<Refund>({
        method: 'POST',
        path: `${prefix}/invoices/${segment(invoiceId, 'invoiceId')}/refunds`,
        body,
        ...idempotencyHeaders(options),
      });
      return { refund: result, created: status === 201 };
    },
    /** {@link createWithStatus}, the refund only. */
    create: async (invoiceId: string, body: CreateRefundInput = {}, options: IdempotencyOptions = {}): Promise<Refund> =>
      (await resource.createWithStatus(invoiceId, body, options)).refund,
    /** Every refund of the invoice. */
    listForInvoice: (invoiceId: string) => get<{ items: Refund[] }>(`${prefix}/invoices/${segment(invoiceId, 'invoiceId')}/refunds`),
    /** One page of the project's refunds, newest first; pass `next_cursor` back as `cursor`. */
    list: (query: MoneyOutListQuery = {}) => get<MoneyOutPage<Refund>>(`${prefix}/refunds`, query),
    /** Every refund of the project matching `query`, across pages. */
    iterate: (query: MoneyOutListQuery = {}) => iteratePages((cursor) => resource.list({ ...query, ...(cursor ? { cursor } : {}) })),
    retrieve: (id: string) => get<Refund>(`${prefix}/refunds/${segment(id, 'id')}`),
    /** Before approval only (409 `item_not_cancellable` after). */
    cancel: (id: string) => post<Refund>(`${prefix}/refunds/${segment(id, 'id')}/cancel`),
  };
  return resource;
}

/** The payout calls under `prefix`. */
export function payoutsResource(send: MoneyOutSend, prefix: string) {
  const get = getThrough(send);
  const post = postThrough(send);
  const resource = {
    /** Creates 1 to 100 payouts at once, all or none; a repeat with the same idempotency key answers the first result. */
    createWithStatus: async (recipients: readonly PayoutRecipientInput[], options: IdempotencyOptions = {}) => {
      const { status, result } = await send<{ items: Payout[] }>({
        method: 'POST',
        path: `${prefix}/payouts`,
        body: { recipients },
        ...idempotencyHeaders(options),
      });
      return { items: result.items, created: status === 201 };
    },
    /** {@link createWithStatus}, the payouts only. */
    create: async (recipients: readonly PayoutRecipientInput[], options: IdempotencyOptions = {}): Promise<Payout[]> =>
      (await resource.createWithStatus(recipients, options)).items,
    list: (query: MoneyOutListQuery = {}) => get<MoneyOutPage<Payout>>(`${prefix}/payouts`, query),
    iterate: (query: MoneyOutListQuery = {}) => iteratePages((cursor) => resource.list({ ...query, ...(cursor ? { cursor } : {}) })),
    retrieve: (id: string) => get<Payout>(`${prefix}/payouts/${segment(id, 'id')}`),
    /** Before approval only (409 `item_not_cancellable` after). */
    cancel: (id: string) => post<Payout>(`${prefix}/payouts/${segment(id, 'id')}/cancel`),
  };
  return resource;
}

/** The sandbox simulations of refunds (`claim` takes an optional address) and payouts. */
export function moneyOutSimulations(send: MoneyOutSend, prefix: string) {
  const post = postThrough(send);
  return {
    refund: (id: string, simulation: RefundSimulation, body: { readonly address?: string } = {}) => {
      if (!(REFUND_SIMULATIONS as readonly string[]).includes(simulation)) throw new TypeError(`unknown refund simulation ${simulation}`);
      return post<Refund>(`${prefix}/refunds/${segment(id, 'id')}/simulate-${simulation}`, simulation === 'claim' ? body : undefined);
    },
    payout: (id: string, simulation: PayoutSimulation) => {
      if (!(PAYOUT_SIMULATIONS as readonly string[]).includes(simulation)) throw new TypeError(`unknown payout simulation ${simulation}`);
      return post<Payout>(`${prefix}/payouts/${segment(id, 'id')}/simulate-${simulation}`);
    },
  };
}

async function* iteratePages<T>(page: (cursor: string | undefined) => Promise<MoneyOutPage<T>>): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const answer = await page(cursor);
    yield* answer.items;
    cursor = answer.next_cursor;
  } while (cursor !== undefined);
}
