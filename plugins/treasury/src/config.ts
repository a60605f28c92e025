import Type, { type Static } from 'typebox';

const RATE = Type.String({ pattern: '^[0-9]{1,30}$', description: 'Base units per size unit (satoshis per vbyte, lovelace per byte), decimal string.' });

/** Fee settings of one chain network. */
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
