import { configSlice } from '@gw/kernel';
import Type, { type Static } from 'typebox';

export const MATCHING_MODES = ['exact', 'at_least', 'any'] as const;
export type MatchingMode = (typeof MATCHING_MODES)[number];

/** Config slice `plugins.invoices`: deployment defaults that a project policy may override. */
export const InvoicesConfigSchema = configSlice({
  defaultMatchingMode: Type.Enum(MATCHING_MODES, {
    default: 'exact',
    description: 'matching_mode of invoices created without one, unless the project policy sets another.',
  }),
  defaultExpirySeconds: Type.Integer({
    minimum: 60,
    maximum: 2_592_000,
    default: 3600,
    description: 'Invoice lifetime unless the project policy sets another.',
  }),
  createRateLimitPerMinute: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 600,
    description: 'POST /invoices requests per minute per project (429 rate_limit_exceeded beyond).',
  }),
  createBatchSize: Type.Integer({
    minimum: 1,
    maximum: 500,
    default: 100,
    description: 'Most concurrent creates of one process handled in one database transaction.',
  }),
  dustFloorUnits: Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]{1,31}$' }), Type.String({ pattern: '^\\d{1,78}$' }), {
    default: {},
    description:
      'Dust floor per coin id in base units (a decimal string), over the chain definition\'s: a transfer below it is recorded by the watchers but never changes an invoice. "0" turns it off for that coin. Unknown coin ids fail the start.',
  }),
  createBatchConcurrency: Type.Integer({ minimum: 1, maximum: 32, default: 2, description: 'Create batches of one process in flight at once.' }),
  createBatchMinWhileBusy: Type.Integer({
    minimum: 1,
    maximum: 500,
    default: 25,
    description: 'While a create batch runs, a further one starts only once this many creates wait (larger batches under load; a lone create never waits).',
  }),
});

export type InvoicesConfig = Static<typeof InvoicesConfigSchema>;
