import type { GatewayClient } from '@gw/client';
import type { FlagValues } from './flag-values.js';

/**
 * A partner command over one API resource (`gateway refunds|payouts|checkout-sessions|payment-links
 * <verb> ...`): runs `verb` against the mount the credentials belong to (the client picks the
 * sandbox's from an `sk_sandbox_` secret) and returns the answer to print; a
 * {@link PartnerUsageError} for a wrong call.
 */
export type ResourceCommand = (gateway: GatewayClient, verb: string, positionals: readonly string[], values: FlagValues) => Promise<unknown>;
