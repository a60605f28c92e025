import { ChainIdSchema, CoinIdSchema, ISO_8601_PATTERN, PAGE_QUERY, pageSchema } from '@gw/kernel';
import Type from 'typebox';

/** `GET /orphan-payments` query (spec 4.3). */
export const ListOrphansQuery = Type.Object(
  {
    attributed: Type.Optional(Type.Enum(['true', 'false'], { description: 'Only attributed (true) or only unattributed (false) receipts.' })),
    chain: Type.Optional(ChainIdSchema()),
    tx_hash: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    date_from: Type.Optional(Type.String({ pattern: ISO_8601_PATTERN, description: 'Received at or after (a date means 00:00 UTC).' })),
    date_to: Type.Optional(Type.String({ pattern: ISO_8601_PATTERN, description: 'Received at or before (a date means the end of that day).' })),
    amount_units_gte: Type.Optional(Type.String({ pattern: '^\\d+$', maxLength: 78 })),
    amount_units_lte: Type.Optional(Type.String({ pattern: '^\\d+$', maxLength: 78 })),
    ...PAGE_QUERY,
  },
  { additionalProperties: false },
);

export const OrphanSchema = Type.Object(
  {
    id: Type.String({ description: 'Receipt id (ULID); the list cursor.' }),
    tx_hash: Type.String(),
    tx_output_index: Type.Integer({ minimum: 0, description: 'Output (BTC, ADA) or log position (see docs/watchers.md) of the receipt in its transaction.' }),
    to_address: Type.String(),
    from_address: Type.Union([Type.String(), Type.Null()]),
    chain: ChainIdSchema(),
    network: Type.String(),
    coin: CoinIdSchema(),
    amount_units: Type.String({ pattern: '^\\d+$' }),
    amount: Type.String({ description: 'amount_units in whole coins (decimal string).' }),
    block_height: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    status: Type.Enum(['mempool', 'in_block', 'reverted'], { description: 'mempool: not yet in a block; reverted: its block was reorganised away.' }),
    ambiguous: Type.Boolean({ description: 'It matched several invoices of a shared address equally, which were set to ambiguous.' }),
    attributed: Type.Boolean(),
    attributed_at_iso: Type.Union([Type.String(), Type.Null()]),
    invoice_id: Type.Union([Type.String(), Type.Null()], { description: 'The synthetic invoice of an attributed receipt.' }),
    received_at: Type.Integer({ minimum: 0, description: 'Unix time of its block (first seen for mempool receipts).' }),
    received_at_iso: Type.String(),
  },
  { additionalProperties: false },
);

export const OrphanPageSchema = pageSchema(OrphanSchema);

export const TxHashParams = Type.Object({ tx_hash: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });

/** `POST /orphan-payments/{tx_hash}/attribute` body (spec 4.3). */
export const AttributeBody = Type.Object(
  {
    external_id: Type.String({ minLength: 1, maxLength: 128 }),
    user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Kept in the invoice metadata as user_id.' })),
    metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
    to_address: Type.Optional(Type.String({ minLength: 1, description: 'Picks the receipt when the transaction paid several pool addresses.' })),
    tx_output_index: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Picks the receipt when the transaction has several.' })),
  },
  { additionalProperties: false },
);
