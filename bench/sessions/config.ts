import { CHECKOUT_BENCH_OVERRIDES } from '../checkout/config.js';

/** Configuration shared by the sessions benchmark's gateway process and its writer kernel: the checkout's, and a fixed EUR rate. */
export const SESSIONS_BENCH_OVERRIDES: Record<string, unknown> = {
  ...CHECKOUT_BENCH_OVERRIDES,
  'plugins.rates.fixedFiat': { EUR: '1.08' },
};
