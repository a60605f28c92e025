import type { KernelConfig } from './kernel-config.js';

/** How this process runs, and why (logged at start-up). */
export interface RunMode {
  /** `development` only when chosen explicitly; an unset `env` is run with production's rules. */
  readonly env: 'development' | 'production';
  readonly explicit: boolean;
  readonly reason: string;
}

/**
 * Development conveniences (a generated master key, private webhook targets, sign-in codes in the
 * log) are fail-open, so they need `env: development` said explicitly (GW_ENV=development); a
 * deployment that never set `env` gets production's rules (issue 26 finding 4).
 */
export function runMode(config: Pick<KernelConfig, 'env'>): RunMode {
  if (config.env === 'development') return { env: 'development', explicit: true, reason: 'env is development (GW_ENV or the config file)' };
  if (config.env === 'production') return { env: 'production', explicit: true, reason: 'env is production (GW_ENV or the config file)' };
  return { env: 'production', explicit: false, reason: 'env is not set: production rules apply; GW_ENV=development enables development conveniences' };
}

/** Whether development conveniences are allowed: only when `env` is `development` explicitly. */
export function isDevelopment(config: Pick<KernelConfig, 'env'>): boolean {
  return config.env === 'development';
}
