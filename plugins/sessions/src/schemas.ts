import { CoinIdSchema, PAGE_QUERY, pageSchema, PROJECT_KINDS, ULID_PATTERN } from '@gw/kernel';
import Type from 'typebox';
import { SESSION_STATUSES } from './contract.js';
import { SESSION_LIFETIME } from './config.js';
import { TEXT_LIMITS } from './services/order.js';

const Decimal = (description: string) => Type.String({ pattern: '^[0-9]{1,30}(\\.[0-9]{1,30})?$', description });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'Free JSON, returned as given (at most 16 KB).' });
const Currency = Type.String({
  pattern: '^[A-Za-z0-9_-]{1,40}$',
  description:
    'ISO 4217 code of a currency the gateway prices (USD, EUR, GBP, JPY, CHF, CAD, AUD, BRL, INR, TRY, …), or a coin id (`btc`): a price in one coin.',
});
const CoinList = (description: string) => Type.Array(Type.String({ pattern: '^[a-z0-9_-]{1,40}$' }), { minItems: 1, maxItems: 100, description });
const Url = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description });

const LineItemSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: TEXT_LIMITS.lineName }),
    quantity: Type.Integer({ minimum: 1, maximum: TEXT_LIMITS.quantity }),
    unit_amount: Decimal('Price of one, in the price currency.'),
  },
  { additionalProperties: false },
);
const LineItems = Type.Array(LineItemSchema, {
  description: 'The order’s lines, shown to the payer and on the receipt. With lines, quantity × unit_amount must add up to the price (400 validation_error).',
});

/** A session as the API answers it (contract `SessionView`). */
export const SessionSchema = Type.Object(
  {
    id: Type.String({ pattern: ULID_PATTERN }),
    object: Type.Literal('checkout_session'),
    project_id: Type.String(),
    mode: Type.Union(PROJECT_KINDS.map((k) => Type.Literal(k))),
    status: Type.Union(SESSION_STATUSES.map((s) => Type.Literal(s))),
    price_currency: Type.String(),
    price_amount: Type.String(),
    allowed_coins: Type.Array(CoinIdSchema()),
    description: Nullable(Type.String()),
    line_items: Type.Array(LineItemSchema),
    external_id: Nullable(Type.String()),
    customer_email: Nullable(Type.String()),
    return_url: Nullable(Type.String()),
    cancel_url: Nullable(Type.String()),
    metadata: Nullable(Metadata),
    url: Type.String({ description: "The payer's page, where the coin is picked: {base_url}/pay/{token}." }),
    coin: Nullable(CoinIdSchema({ description: 'The coin picked last (of a completed session: the coin it was paid in); null before the first pick.' })),
    invoice_id: Nullable(Type.String({ description: 'The invoice of that coin (of a completed session: the paying invoice).' })),
    invoices: Type.Array(
      Type.Object(
        {
          invoice_id: Type.String(),
          coin: CoinIdSchema(),
          status: Type.String({ description: "The invoice's status when the session last heard of it." }),
          amount_crypto: Type.String(),
          late: Type.Boolean({ description: 'Paid after the payer had switched away from it (or after the session had closed): credited all the same.' }),
          created_at_iso: Type.String(),
        },
        { additionalProperties: false },
      ),
      { description: 'Every invoice of the session, oldest first: one per pick, and one per late payment to an abandoned address.' },
    ),
    payment_link_id: Nullable(Type.String()),
    receipt_url: Nullable(Type.String({ description: 'The public receipt page, once completed.' })),
    expires_at_iso: Type.String(),
    completed_at_iso: Nullable(Type.String()),
    created_at_iso: Type.String(),
  },
  { additionalProperties: false },
);
export const SessionPage = pageSchema(SessionSchema);

export const CreateSessionBody = Type.Object(
  {
    price_currency: Currency,
    price_amount: Decimal('The price, with at most the currency’s decimals (JPY 0, other currencies 2, a coin its own).'),
    allowed_coins: Type.Optional(
      CoinList(
        'The coins the payer may pick from, in display order. Default: every coin the project can be paid in (a chain with a verified wallet); a price in a coin: that coin only. A coin the project cannot be paid in is 422 coin_not_allowed.',
      ),
    ),
    description: Type.Optional(Type.String({ maxLength: TEXT_LIMITS.description })),
    line_items: Type.Optional(LineItems),
    external_id: Type.Optional(Type.String({ minLength: 1, maxLength: TEXT_LIMITS.externalId, description: 'Your reference (not unique).' })),
    customer_email: Type.Optional(
      Type.String({ format: 'email', maxLength: TEXT_LIMITS.email, description: 'Where the receipt is mailed; the page asks the payer otherwise.' }),
    ),
    return_url: Type.Optional(Url('Where the payer is sent once paid (https; checked as an invoice’s).')),
    cancel_url: Type.Optional(Url('Where a payer who gives up is sent.')),
    metadata: Type.Optional(Metadata),
    expires_in: Type.Optional(
      Type.Integer({
        minimum: SESSION_LIFETIME.min,
        maximum: SESSION_LIFETIME.max,
        description: 'Seconds until the session expires (default: plugins.sessions.expiresInSeconds).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ListSessionsQuery = Type.Object(
  {
    status: Type.Optional(Type.Union(SESSION_STATUSES.map((s) => Type.Literal(s)))),
    payment_link_id: Type.Optional(Type.String({ pattern: ULID_PATTERN })),
    external_id: Type.Optional(Type.String({ minLength: 1, maxLength: TEXT_LIMITS.externalId })),
    ...PAGE_QUERY,
  },
  { additionalProperties: false },
);

/** A payment link as the API answers it (contract `PaymentLinkView`). */
export const PaymentLinkSchema = Type.Object(
  {
    id: Type.String({ pattern: ULID_PATTERN }),
    object: Type.Literal('payment_link'),
    project_id: Type.String(),
    mode: Type.Union(PROJECT_KINDS.map((k) => Type.Literal(k))),
    active: Type.Boolean(),
    price_currency: Type.String(),
    price_amount: Nullable(Type.String({ description: 'A fixed price; null when the payer enters the amount.' })),
    min_amount: Nullable(Type.String()),
    max_amount: Nullable(Type.String()),
    allowed_coins: Type.Array(CoinIdSchema()),
    description: Nullable(Type.String()),
    line_items: Type.Array(LineItemSchema),
    max_uses: Nullable(Type.Integer({ description: 'Completed sessions it may have at most; null: unlimited.' })),
    uses: Type.Integer({ description: 'Its completed sessions.' }),
    ask_email: Type.Boolean(),
    return_url: Nullable(Type.String()),
    metadata: Nullable(Metadata),
    url: Type.String({ description: 'The reusable page: {base_url}/l/{token}.' }),
    qr_url: Type.String({ description: 'Its QR code (SVG).' }),
    created_at_iso: Type.String(),
    deactivated_at_iso: Nullable(Type.String()),
  },
  { additionalProperties: false },
);
export const PaymentLinkPage = pageSchema(PaymentLinkSchema);

export const CreateLinkBody = Type.Object(
  {
    price_currency: Currency,
    price_amount: Type.Optional(Decimal('A fixed price. Give it, or min_amount and max_amount (the payer enters the amount).')),
    min_amount: Type.Optional(Decimal('Least amount the payer may enter.')),
    max_amount: Type.Optional(Decimal('Most the payer may enter.')),
    allowed_coins: Type.Optional(CoinList('The coins offered. Default: every coin the project can be paid in when a payer opens the link.')),
    description: Type.Optional(Type.String({ maxLength: TEXT_LIMITS.description })),
    line_items: Type.Optional(LineItems),
    max_uses: Type.Optional(Type.Integer({ minimum: 1, description: 'Completed sessions it may have; then 409 payment_link_used_up.' })),
    ask_email: Type.Optional(Type.Boolean({ description: 'Whether the page asks the payer for an e-mail address for the receipt (default true).' })),
    return_url: Type.Optional(Url('Where payers are sent once paid.')),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);

export const ListLinksQuery = Type.Object(
  { active: Type.Optional(Type.Enum(['true', 'false'], { description: 'Only active (true) or only deactivated (false) links.' })), ...PAGE_QUERY },
  { additionalProperties: false },
);

export const IdParams = Type.Object({ id: Type.String({ pattern: ULID_PATTERN }) }, { additionalProperties: false });

export const SimulatePickBody = Type.Object(
  { coin: Type.String({ pattern: '^[a-z0-9_-]{1,40}$', description: 'One of the session’s allowed_coins.' }) },
  { additionalProperties: false },
);
