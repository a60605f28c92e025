import Type from 'typebox';

/**
 * The wire shapes of the facilitator routes (x402 v2, `specs/x402-specification-v2.md` §7), for
 * validation of the envelope and the OpenAPI document. The payment inside an envelope is checked by
 * verification itself, which answers the protocol's reasons rather than a validation error.
 */

const CAIP = Type.String({ pattern: '^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$', description: 'CAIP-2 network id (`eip155:8453`).' });
const UNITS = Type.String({ pattern: '^[0-9]{1,78}$', description: 'Base units of the token, decimal string.' });

export const PaymentRequirementsSchema = Type.Object(
  {
    scheme: Type.String({ description: '`exact`.' }),
    network: CAIP,
    asset: Type.String({ description: 'The token contract.' }),
    amount: UNITS,
    payTo: Type.String({ description: 'The invoice’s deposit address (a fresh one per paid call).' }),
    maxTimeoutSeconds: Type.Integer({ minimum: 0 }),
    extra: Type.Object({}, { additionalProperties: true, description: 'The token’s EIP-712 domain: `name`, `version`.' }),
  },
  { additionalProperties: true, description: 'One way to pay (x402 `PaymentRequirements`).' },
);

/** `POST …/verify` and `POST …/settle` (what `HTTPFacilitatorClient` sends). */
export const FacilitatorRequestSchema = Type.Object(
  {
    x402Version: Type.Integer({ description: 'The protocol version: 2.' }),
    paymentPayload: Type.Object(
      {},
      { additionalProperties: true, description: 'The client’s payment (x402 `PaymentPayload`), as its `PAYMENT-SIGNATURE` carried it.' },
    ),
    paymentRequirements: Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'The requirement the resource server matched (x402 `PaymentRequirements`): one the gateway offered from `pay-to`.',
      },
    ),
  },
  { additionalProperties: true },
);

export const VerifyResponseSchema = Type.Object(
  {
    isValid: Type.Boolean(),
    invalidReason: Type.Optional(Type.String({ description: 'The protocol’s reason (`invalid_exact_evm_signature`, …).' })),
    invalidMessage: Type.Optional(Type.String()),
    payer: Type.Optional(Type.String()),
  },
  { additionalProperties: false, description: 'x402 `VerifyResponse`: a refused payment is HTTP 200 with `isValid: false`.' },
);

export const SettleResponseSchema = Type.Object(
  {
    success: Type.Boolean(),
    errorReason: Type.Optional(Type.String({ description: 'The protocol’s reason; `settlement_pending` when sent but not mined in time.' })),
    errorMessage: Type.Optional(Type.String()),
    payer: Type.Optional(Type.String()),
    transaction: Type.String({ description: 'The settlement’s transaction hash; empty when nothing was sent.' }),
    network: Type.String(),
  },
  { additionalProperties: false, description: 'x402 `SettleResponse`: a refused settlement is HTTP 200 with `success: false`.' },
);

export const SupportedResponseSchema = Type.Object(
  {
    kinds: Type.Array(Type.Object({ x402Version: Type.Integer(), scheme: Type.String(), network: Type.String() }, { additionalProperties: false }), {
      description: 'One kind per network of the project’s payable assets.',
    }),
    extensions: Type.Array(Type.String()),
    signers: Type.Record(Type.String(), Type.Array(Type.String()), { description: 'The settlement gas wallets’ addresses, under `eip155:*`.' }),
  },
  { additionalProperties: false, description: 'x402 `SupportedResponse`.' },
);

export const X402AssetSchema = Type.Object(
  {
    coin: Type.String({ description: 'The gateway’s coin id (`usdc_base`).' }),
    network: Type.String({ description: 'CAIP-2 network id, the route’s `network`.' }),
    chain: Type.String(),
    gateway_network: Type.String({ description: 'The gateway’s network id (`base-sepolia`).' }),
    asset: Type.String({ description: 'The token contract (checksummed), the price’s `asset`.' }),
    decimals: Type.Integer({ minimum: 0 }),
    extra: Type.Object(
      { name: Type.String(), version: Type.String() },
      { additionalProperties: false, description: 'The token’s EIP-712 domain, the price’s `extra`.' },
    ),
  },
  { additionalProperties: false },
);

export const AssetListSchema = Type.Object({ data: Type.Array(X402AssetSchema) }, { additionalProperties: false });

export const PayToBodySchema = Type.Object(
  {
    coin: Type.String({ minLength: 1, maxLength: 40, description: 'The coin the call is priced in (`usdc_base`).' }),
    amount: Type.String({ pattern: '^[0-9]{1,20}(\\.[0-9]{1,18})?$', description: 'The price of the call in the coin, decimal string.' }),
    resource: Type.Object(
      {
        url: Type.String({ minLength: 1, maxLength: 2000, description: 'The paid resource’s URL (kept in the invoice’s metadata).' }),
        description: Type.Optional(Type.String({ maxLength: 500 })),
        mimeType: Type.Optional(Type.String({ maxLength: 200 })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const PayToResponseSchema = Type.Object(
  {
    invoice_id: Type.String({ description: 'The invoice this paid call is (its webhooks follow it).' }),
    requirements: PaymentRequirementsSchema,
  },
  { additionalProperties: false },
);
