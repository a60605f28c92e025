import { configSlice } from '@gw/kernel';
import Type, { type Static } from 'typebox';

/** Config slice `plugins.address-pool`. */
export const AddressPoolConfigSchema = configSlice({
  targetFree: Type.Integer({ minimum: 0, maximum: 10_000, default: 20, description: 'Free addresses kept pre-derived per (project, chain).' }),
  hardCap: Type.Integer({ minimum: 1, maximum: 2_147_483_647, default: 10_000, description: 'Most addresses derived per (project, chain).' }),
  cooldownSeconds: Type.Integer({ minimum: 0, maximum: 31_536_000, default: 86_400, description: 'How long a released address rests before reuse.' }),
  overlay: Type.Boolean({ default: true, description: 'When no free address exists, share an allocated one (exact matching + payment_token required).' }),
  gapWarningThreshold: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 20,
    description: 'Log a warning when a pool gap exceeds this (BIP44 gap limit 20).',
  }),
  replenishBatchMax: Type.Integer({ minimum: 1, maximum: 10_000, default: 500, description: 'Most addresses one replenish run derives per pool.' }),
});

export type AddressPoolConfig = Static<typeof AddressPoolConfigSchema>;
