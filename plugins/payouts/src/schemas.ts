import { ULID_PATTERN, PAGE_QUERY, pageSchema } from '@gw/kernel';
import Type from 'typebox';
import { ADDRESS_SOURCES } from './address-source.js';
import { ITEM_KINDS, ITEM_STATUSES, RATE_RULES } from './item-status.js';

const Decimal = (description: string) => Type.String({ pattern: '^[0-9]{1,40}(\\.[0-9]{1,40})?$', description });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'Free JSON, returned as given.' });

/** An item as the API answers it (contract `ItemView`). */
export const ItemSchema = Type.Object(
  {
    id: Type.String({ pattern: ULID_PATTERN }),
    object: Type.Union(ITEM_KINDS.map((k) => Type.Literal(k))),
    project_id: Type.String(),
    status: Type.Union(ITEM_STATUSES.map((s) => Type.Literal(s))),
    invoice_id: Nullable(Type.String()),
    chain: Type.String(),
    network: Type.String(),
    coin: Type.String(),
    amount: Type.String(),
    amount_units: Type.String(),
    amount_usd: Nullable(Type.String()),
    rate: Nullable(Type.String()),
    rate_rule: Nullable(Type.Union(RATE_RULES.map((r) => Type.Literal(r)))),
    spread_percent: Nullable(Type.String()),
    address: Nullable(Type.String()),
    address_source: Nullable(
      Type.Union(
        ADDRESS_SOURCES.map((s) => Type.Literal(s)),
        { description: 'How the address arrived: claim (the payer on the claim page) or partner (the create request); null before a claim.' },
      ),
    ),
    reference: Nullable(Type.String()),
    reason: Nullable(Type.String()),
    metadata: Nullable(Metadata),
    claim_url: Nullable(Type.String({ description: "Refunds awaiting their claim: the payer's claim page." })),
    claim_requires_proof: Type.Boolean(),
    approvals: Type.Array(Type.Object({ user_id: Type.String(), at_iso: Type.String() }, { additionalProperties: false })),
    approvals_required: Type.Integer(),
    plan_id: Nullable(Type.String()),
    txid: Nullable(Type.String()),
    fee_units: Nullable(Type.String()),
    failure_reason: Nullable(Type.String()),
    created_at_iso: Type.String(),
    updated_at_iso: Type.String(),
    claimed_at_iso: Nullable(Type.String()),
    approved_at_iso: Nullable(Type.String()),
    sent_at_iso: Nullable(Type.String()),
    completed_at_iso: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

export const ItemPage = pageSchema(ItemSchema);
export const ItemList = Type.Object({ items: Type.Array(ItemSchema) }, { additionalProperties: false });

export const CreateRefundBody = Type.Object(
  {
    amount: Type.Optional(Decimal('Coin amount (coin_amount) or USD (fiat rules); absent: the natural amount.')),
    rate_rule: Type.Optional(Type.Union(RATE_RULES.map((r) => Type.Literal(r)))),
    spread_percent: Type.Optional(Type.String({ pattern: '^[0-9]{1,2}(\\.[0-9]{1,2})?$', description: 'Percent taken off the coin amount.' })),
    address: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "The payer's address when known: the refund starts claimed." })),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: 'Where the claim link is e-mailed.' })),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);

export const CreatePayoutsBody = Type.Object(
  {
    recipients: Type.Array(
      Type.Object(
        {
          address: Type.String({ minLength: 1, maxLength: 200 }),
          coin: Type.String({ minLength: 1, maxLength: 40 }),
          amount: Decimal('Coin amount.'),
          reference: Type.String({ minLength: 1, maxLength: 200, description: 'Unique per project.' }),
          reason: Type.Optional(Type.String({ maxLength: 500 })),
          metadata: Type.Optional(Metadata),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100 },
    ),
  },
  { additionalProperties: false },
);

export const ListItemsQuery = Type.Object(
  { status: Type.Optional(Type.Union(ITEM_STATUSES.map((s) => Type.Literal(s)))), ...PAGE_QUERY },
  { additionalProperties: false },
);
export const ItemIdParams = Type.Object({ id: Type.String({ pattern: ULID_PATTERN }) }, { additionalProperties: false });
export const InvoiceIdParams = Type.Object({ invoiceId: Type.String({ pattern: ULID_PATTERN }) }, { additionalProperties: false });
export const SimulateClaimBody = Type.Object(
  { address: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Default: the invoice's deposit address (a valid test address)." })) },
  { additionalProperties: false },
);
