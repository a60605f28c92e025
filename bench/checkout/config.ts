import { FIXED_ETH_RATE } from '../bench-kernel.js';

/** Configuration shared by the benchmark's gateway process and its writer kernel, on top of the bench kernel's. */
export const CHECKOUT_BENCH_OVERRIDES: Record<string, unknown> = {
  ...FIXED_ETH_RATE,
  'plugins.invoices.createRateLimitPerMinute': 1_000_000,
  'plugins.sandbox.simulateRateLimitPerMinute': 1_000_000,
  'plugins.sandbox.writeRateLimitPerMinute': 1_000_000,
  // Every page comes from this one load generator: the per-address cap would stop it at 20.
  'plugins.checkout.streamsPerClient': 10_000,
};
