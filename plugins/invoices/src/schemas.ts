import { CoinIdSchema, ISO_8601_PATTERN, PAGE_QUERY, pageSchema, ULID_PATTERN } from '@gw/kernel';
import Type from 'typebox';
import { MATCHING_MODES } from './config.js';
import { INVOICE_STATUSES } from './invoice-status.js';
import { AMOUNT_USD_BOUNDS } from './services/amounts.js';

/** `amount_crypto` and the `amount` filter (spec 4.2). */
export const DECIMAL_PATTERN = '^\\d+(\\.\\d+)?$';

/** A coin of an enabled chain: the kernel lists the enabled coins as the enum when it mounts the routes. */
export const CoinSchema = CoinIdSchema({ description: 'A coin of an enabled chain (by default the fifteen coins of the spec).' });
export const MatchingModeSchema = Type.Enum(MATCHING_MODES);
export const InvoiceStatusSchema = Type.Enum(INVOICE_STATUSES);

/** `POST /invoices` body (spec 4.2). Exactly one of `amount_usd`, `amount_crypto` and a fiat price (`price_currency` with `price_amount`, issue 38). */
export const CreateInvoiceBody = Type.Object(
  {
    external_id: Type.String({ minLength: 1, maxLength: 128, description: 'Partner-chosen id; creation is idempotent on (project, external_id).' }),
    amount_usd: Type.Optional(
      Type.Union([
        Type.Number({
          minimum: Number(AMOUNT_USD_BOUNDS.min),
          maximum: Number(AMOUNT_USD_BOUNDS.max),
          description: 'USD amount, converted at the current rate; at most 8 decimals.',
        }),
        Type.Null(),
      ]),
    ),
    amount_crypto: Type.Optional(
      Type.Union([
        Type.String({ pattern: DECIMAL_PATTERN, maxLength: 100, description: 'Amount in coin units, e.g. "0.015"; at most the coin\'s decimals.' }),
        Type.Null(),
      ]),
    ),
    price_currency: Type.Optional(
      Type.Union([
        Type.String({
          minLength: 3,
          maxLength: 3,
          description:
            'A price in a fiat currency instead of amount_usd or amount_crypto: its ISO 4217 code in capitals (USD, EUR, GBP, JPY, CHF, CAD, AUD, BRL, INR, TRY, and any the deployment adds), with price_amount. amount_usd is the price at the current rate, rounded to cents. Addition to spec 4.2 (issue 38).',
        }),
        Type.Null(),
      ]),
    ),
    price_amount: Type.Optional(
      Type.Union([
        Type.String({
          pattern: DECIMAL_PATTERN,
          maxLength: 40,
          description: 'The price in price_currency, a decimal string with at most the currency\'s decimals (JPY none, most two), e.g. "19.90".',
        }),
        Type.Null(),
      ]),
    ),
    coin: CoinSchema,
    callback_url: Type.Optional(
      Type.Union([
        Type.String({ minLength: 1, maxLength: 2048, description: 'Webhook target for this invoice (https for production projects).' }),
        Type.Null(),
      ]),
    ),
    return_url: Type.Optional(
      Type.Union([
        Type.String({
          minLength: 1,
          maxLength: 2048,
          description:
            'Where the checkout page sends the payer once the invoice is paid: https (http to a loopback host outside production). Addition to spec 2.1 (issue 21).',
        }),
        Type.Null(),
      ]),
    ),
    cancel_url: Type.Optional(
      Type.Union([
        Type.String({ minLength: 1, maxLength: 2048, description: 'Where the checkout page sends a payer who gives up; same rules as return_url.' }),
        Type.Null(),
      ]),
    ),
    metadata: Type.Optional(
      Type.Union([Type.Object({}, { additionalProperties: true, description: 'Free-form partner object, at most 16 KiB as JSON.' }), Type.Null()]),
    ),
    matching_mode: Type.Optional(Type.Union([MatchingModeSchema, Type.Null()])),
  },
  { additionalProperties: false },
);

/** `GET /invoices` query (spec 4.2). */
export const ListInvoicesQuery = Type.Object(
  {
    external_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    address: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    tx_hash: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    amount: Type.Optional(
      Type.String({ pattern: DECIMAL_PATTERN, maxLength: 100, description: 'Exact amount_crypto, compared numerically ("1.50" finds "1.5").' }),
    ),
    status: Type.Optional(InvoiceStatusSchema),
    date_from: Type.Optional(Type.String({ pattern: ISO_8601_PATTERN, description: 'Created at or after this instant (a date means 00:00 UTC).' })),
    date_to: Type.Optional(Type.String({ pattern: ISO_8601_PATTERN, description: 'Created at or before this instant (a date means the whole day, UTC).' })),
    ...PAGE_QUERY,
  },
  { additionalProperties: false },
);

export const InvoiceIdParams = Type.Object({ id: Type.String({ pattern: ULID_PATTERN, description: 'Invoice id (ULID).' }) }, { additionalProperties: false });

export const RateSnapshotSchema = Type.Object(
  {
    source: Type.String({ description: 'Provider that supplied the rate, e.g. coingecko, kraken, fixed.' }),
    pair: Type.String({ description: 'e.g. BTC/USD' }),
    rate: Type.String({ pattern: DECIMAL_PATTERN, description: 'USD per whole coin, exact decimal string.' }),
    fetched_at: Type.Integer({ minimum: 0 }),
    fetched_at_iso: Type.String(),
  },
  { additionalProperties: false },
);

export const InvoiceTransactionSchema = Type.Object(
  {
    tx_hash: Type.String(),
    output_index: Type.Integer({ minimum: 0 }),
    to_address: Type.String(),
    amount_crypto: Type.String({ pattern: DECIMAL_PATTERN }),
    amount_units: Type.String({ pattern: '^\\d+$' }),
    confirmations: Type.Integer({ minimum: 0 }),
    block_height: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    block_hash: Type.Union([Type.String(), Type.Null()]),
    status: Type.Enum(['pending', 'confirmed', 'reverted', 'dropped'], {
      description:
        'pending: seen, not yet counted; confirmed: counted in the settled status; reverted: left the chain (reorganisation); dropped: left the mempool without a block.',
    }),
    detected_at: Type.Integer({ minimum: 0 }),
    detected_at_iso: Type.String(),
  },
  { additionalProperties: false },
);

/** The Invoice resource (spec 2.1). */
export const InvoiceSchema = Type.Object(
  {
    id: Type.String({ pattern: ULID_PATTERN }),
    project_id: Type.String({ pattern: ULID_PATTERN }),
    external_id: Type.String(),
    coin: CoinSchema,
    address: Type.String(),
    amount_crypto: Type.String({ pattern: DECIMAL_PATTERN }),
    amount_crypto_units: Type.String({ pattern: '^\\d+$' }),
    amount_usd: Type.Union([Type.Number(), Type.Null()]),
    rate_snapshot: Type.Union([RateSnapshotSchema, Type.Null()]),
    price_currency: Type.Union([Type.String({ pattern: '^[A-Z]{3}$' }), Type.Null()], {
      description:
        'The fiat currency the invoice was priced in (ISO 4217); null when priced in USD (amount_usd) or in the coin. Addition to spec 2.1 (issue 38).',
    }),
    price_amount: Type.Union([Type.String({ pattern: DECIMAL_PATTERN }), Type.Null()], { description: 'The price in price_currency; null without one.' }),
    price_rate: Type.Union([Type.String({ pattern: DECIMAL_PATTERN }), Type.Null()], {
      description:
        'USD per 1 unit of price_currency when the invoice was created (amount_usd = price_amount × price_rate, rounded to cents); null without a price.',
    }),
    payment_token: Type.Union([Type.String({ pattern: '^[0-9a-f]{8}([0-9a-f]{8})?$' }), Type.Null()]),
    payment_reference: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()], {
        description:
          "On a chain where every invoice pays the merchant's one address (Solana), the invoice's own reference, which payment_uri asks the payer's wallet to add to the transaction (Solana Pay reference) and which picks the invoice a payment pays; null on other chains. Addition to spec 2.1 (issue 43).",
      }),
    ),
    payment_uri: Type.String(),
    callback_url: Type.Union([Type.String(), Type.Null()]),
    checkout_url: Type.String({
      description: 'The hosted checkout page of this invoice, {base_url}/checkout/{random token}: send the payer there. Addition to spec 2.1 (issue 21).',
    }),
    return_url: Type.Union([Type.String(), Type.Null()]),
    cancel_url: Type.Union([Type.String(), Type.Null()]),
    metadata: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
    matching_mode: MatchingModeSchema,
    confirmation_threshold: Type.Integer({ minimum: 0 }),
    underpayment_tolerance: Type.String({
      pattern: DECIMAL_PATTERN,
      description:
        'The share of the amount a payment may fall short by and still settle as paid ("0": none; at most "0.05"), the project\'s policy when the invoice was created. Addition to spec 2.1 (issue 38).',
    }),
    status: InvoiceStatusSchema,
    expires_at: Type.Integer({ minimum: 0 }),
    expires_at_iso: Type.String(),
    created_at: Type.Integer({ minimum: 0 }),
    created_at_iso: Type.String(),
    derivation_path: Type.Optional(Type.String({ pattern: "^m(\\/\\d+'?)+$" })),
    verification_standard: Type.Optional(Type.Enum(['bip84', 'bip44', 'cip1852', 'bip44_ed25519'])),
    transactions: Type.Optional(
      Type.Array(InvoiceTransactionSchema, { description: 'The latest 20 transactions, in detection order; transactions_url lists them all.' }),
    ),
    transactions_total: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'How many transactions the invoice has in all (transactions shows the latest 20). Addition to spec 2.1 (issue 33).',
      }),
    ),
    transactions_url: Type.Optional(
      Type.String({
        description:
          'GET (signed) lists every transaction, cursor-paginated: {base_url}/api/v1/invoices/{id}/transactions (sandbox: /api/v1/sandbox/...). Addition to spec 2.1 (issue 33).',
      }),
    ),
    confirmations: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

/** Retrieve and cancel responses: `transactions` and `confirmations` are required there. */
export const InvoiceWithTransactionsSchema = Type.Object(
  {
    ...InvoiceSchema.properties,
    transactions: Type.Array(InvoiceTransactionSchema, { description: 'The latest 20 transactions, in detection order; transactions_url lists them all.' }),
    transactions_total: Type.Integer({ minimum: 0, description: 'How many transactions the invoice has in all. Addition to spec 2.1 (issue 33).' }),
    transactions_url: Type.String({ description: 'GET (signed) lists every transaction, cursor-paginated. Addition to spec 2.1 (issue 33).' }),
    confirmations: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

/** `GET /invoices/{id}/transactions` query: pages in id order (detection order). */
export const ListTransactionsQuery = Type.Object({ ...PAGE_QUERY }, { additionalProperties: false });

/** Pagination envelope (spec 2.2) of an invoice's transactions. */
export const InvoiceTransactionListSchema = pageSchema(InvoiceTransactionSchema);

/** Pagination envelope (spec 2.2). */
export const InvoiceListSchema = pageSchema(InvoiceWithTransactionsSchema);
