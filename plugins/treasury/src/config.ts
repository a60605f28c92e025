import Type, { type Static } from 'typebox';

const RATE = Type.String({ pattern: '^[0-9]{1,30}$', description: 'Base units per size unit (satoshis per vbyte, lovelace per byte), decimal string.' });

const UNITS = Type.String({ pattern: '^[0-9]{1,40}$', description: 'Native base units (wei), decimal string.' });

/** One of the operator's own accounts: its address and the path the offline signer derives its key at. */
const OperatorAccountSchema = Type.Object(
  {
    address: Type.String({ minLength: 1, maxLength: 200 }),
    path: Type.String({ pattern: "^m(/[0-9]+'?)+$", description: "Derivation path of its key from the operator's seed, `m/44'/60'/0'/0/0`." }),
  },
  { additionalProperties: false },
);

/**
 * The opt-in hot gas wallet (issue 36): custody of gas money, never of payments. The gateway signs
 * with it only the planned top-ups and sweep submissions of a plan, under both caps.
 */
const HotGasWalletSchema = Type.Object(
  {
    privateKeyFile: Type.String({
      minLength: 1,
      description: 'A file holding the gas address’s private key (hex). Custody of gas money on the server: keep only gas money there.',
    }),
    maxPerTransactionUnits: { ...UNITS, description: 'Most native base units (value plus maximum fee) one transaction it signs may spend.' },
    maxPerDayUnits: { ...UNITS, description: 'Most native base units (value plus maximum fee) it signs for in any 24 hours.' },
  },
  { additionalProperties: false },
);

/** Fee settings of one chain network, and on account chains the operator's accounts. */
const NetworkFeesSchema = Type.Object(
  {
    feeRate: Type.Optional({
      ...RATE,
      description:
        'The fee rate plans use instead of the provider’s estimate (needed on regtest, where nodes estimate nothing). Base units per size unit, decimal string.',
    }),
    feeCeiling: Type.Optional({
      ...RATE,
      description: 'The highest fee rate a plan may use; a plan above it is refused with treasury_fee_above_ceiling. Base units per size unit.',
    }),
    operatorAccounts: Type.Optional(
      Type.Object(
        {
          gas: Type.Optional(OperatorAccountSchema),
          funding: Type.Optional(OperatorAccountSchema),
          staking: Type.Optional(OperatorAccountSchema),
          nonce: Type.Optional(OperatorAccountSchema),
        },
        {
          additionalProperties: false,
          description:
            'Account chains (issue 36): the operator’s own accounts by role. `gas` tops up token addresses and submits EIP-7702 and EIP-3009 sweeps (EVM, TON); `funding` activates TRON addresses and pays their energy burn; `staking` delegates TRON energy; `nonce` is a Solana durable nonce account (its authority the payout sender, `path` the sender’s), whose nonce lets a payout be signed offline without the ~60 s blockhash limit. Keys stay offline: only the address and its path.',
        },
      ),
    ),
    sweepers: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }), {
        description:
          'EVM: the immutable EIP-7702 sweeper contract deployed for each destination (`{ "<destination>": "<sweeper contract>" }`), over the one the treasury recorded after a confirmed `sweeper-deploy` plan; with neither, the eip7702 method is unavailable for that destination.',
      }),
    ),
    hotGasWallet: Type.Optional(HotGasWalletSchema),
  },
  { additionalProperties: false },
);

/** Config slice `plugins.treasury` (docs/treasury.md). */
export const TreasuryConfigSchema = Type.Object(
  {
    networks: Type.Record(Type.String({ pattern: '^[a-z][a-z0-9-]*$' }), Type.Record(Type.String({ pattern: '^[a-z][a-z0-9-]*$' }), NetworkFeesSchema), {
      default: {},
      description: 'Fee settings per chain and network: `{ "btc": { "regtest": { "feeRate": "2", "feeCeiling": "500" } } }`.',
    }),
    reconcileBatch: Type.Integer({
      minimum: 1,
      maximum: 1000,
      default: 100,
      description: 'Addresses asked of the provider per request when reconciling.',
    }),
    reconcileCron: Type.String({ default: '23 * * * *', description: 'When reconciliation runs (cron, UTC).' }),
    trackCron: Type.String({ default: '* * * * *', description: 'When broadcast plans are followed and open plans re-checked (cron, UTC).' }),
    maxOutputsPerPlan: Type.Integer({ minimum: 1, maximum: 5000, default: 1000, description: 'Most outputs one plan gathers.' }),
  },
  { additionalProperties: false, default: {} },
);

export type TreasuryConfig = Static<typeof TreasuryConfigSchema>;
