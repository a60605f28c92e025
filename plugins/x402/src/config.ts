import Type, { type Static } from 'typebox';

const UNITS = Type.String({ pattern: '^[0-9]{1,40}$', description: 'Native base units (wei), decimal string.' });
const NAME = Type.String({ pattern: '^[a-z][a-z0-9-]*$' });

/**
 * The settlement gas wallet of one network: custody of gas money, never of payments. Its key
 * signs exactly one kind of transaction, `transferWithAuthorization` of a payer's verified
 * authorization into one of the operator's pool addresses, under both caps.
 */
const GasWalletSchema = Type.Object(
  {
    privateKeyFile: Type.String({
      minLength: 1,
      description: 'A file holding the gas wallet’s private key (0x and 64 hex, mode 600). Keep only gas money at its address.',
    }),
    maxPerSettlementUnits: { ...UNITS, description: 'Most a settlement may spend in gas (gas limit × max fee per gas), wei.' },
    maxPerDayUnits: { ...UNITS, description: 'Most the gas wallet may spend in any 24 hours (the settlements’ gas limit × max fee), wei.' },
  },
  { additionalProperties: false },
);

/** An external x402 facilitator (`POST <url>/verify`, `/settle`, `GET <url>/supported`) for operators who hold no key. */
const ExternalFacilitatorSchema = Type.Object(
  {
    url: Type.String({ pattern: '^https?://', maxLength: 2000, description: 'The facilitator’s base URL (`https://x402.org/facilitator`).' }),
    authorizationFile: Type.Optional(
      Type.String({ minLength: 1, description: 'A file whose content is sent as the `Authorization` header of every facilitator request.' }),
    ),
    timeoutSeconds: Type.Integer({ minimum: 1, maximum: 300, default: 60, description: 'How long a facilitator request may take.' }),
  },
  { additionalProperties: false },
);

/** A tool of the gateway's MCP server that costs a payment per call (x402's MCP transport). */
const PaidToolSchema = Type.Object(
  {
    projectId: Type.String({ minLength: 26, maxLength: 26, description: 'The project whose pool receives the payments (each call an invoice of it).' }),
    coin: Type.String({ minLength: 1, maxLength: 40, description: 'The USDC coin paid in (`usdc_base`); its network is the project’s.' }),
    amount: Type.String({ pattern: '^[0-9]{1,12}(\\.[0-9]{1,18})?$', description: 'The price of one call in the coin, decimal string.' }),
  },
  { additionalProperties: false },
);

/** Config slice `plugins.x402` (docs/x402.md). */
export const X402ConfigSchema = Type.Object(
  {
    settlement: Type.Union([Type.Literal('off'), Type.Literal('gas_wallet'), Type.Literal('facilitator')], {
      default: 'off',
      description:
        'Who pays the gas of settlements: `off` (x402 is not offered), `gas_wallet` (the gateway’s own capped gas wallets, `gasWallets`), `facilitator` (an external facilitator, `facilitator`).',
    }),
    gasWallets: Type.Record(NAME, Type.Record(NAME, GasWalletSchema), {
      default: {},
      description: 'Per chain and network, the settlement gas wallet: `{ "base": { "base-sepolia": { "privateKeyFile": …, … } } }`.',
    }),
    facilitator: Type.Optional(ExternalFacilitatorSchema),
    maxTimeoutSeconds: Type.Integer({
      minimum: 30,
      maximum: 3600,
      default: 300,
      description: 'The validity window offered (`maxTimeoutSeconds`): how long after the 402 an authorization may be signed and settled.',
    }),
    receiptWaitSeconds: Type.Integer({
      minimum: 1,
      maximum: 600,
      default: 60,
      description: 'How long a settlement waits for its transaction to be mined before it answers `settlement_pending`.',
    }),
    followCron: Type.String({
      default: '* * * * *',
      description:
        'When settlements left `submitted` or `pending` are followed (cron, UTC): mined ones recorded `settled` or `failed`, ones the node dropped `failed` (`dropped`).',
    }),
    payToPerMinute: Type.Integer({
      minimum: 1,
      maximum: 100000,
      default: 600,
      description: 'Most fresh payTo addresses (invoices) a project’s facilitator credential and paid tools may take per minute.',
    }),
    paidTools: Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]*$' }), PaidToolSchema, {
      default: {},
      description: 'MCP tools of this gateway that cost a payment per call, by tool name.',
    }),
  },
  { additionalProperties: false },
);
export type X402Config = Static<typeof X402ConfigSchema>;
