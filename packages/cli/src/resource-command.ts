import type { GatewayClient } from '@gw/client';
import type { FlagValues } from './flag-values.js';

/**
 * A partner command over one API resource (`gateway refunds|payouts|checkout-sessions|payment-links
 * <verb> ...`): runs `verb` against the mount the credentials belong to (the sandbox one when
 * `sandbox`) and returns the answer to print; a {@link PartnerUsageError} for a wrong call.
 */
export type ResourceCommand = (gateway: GatewayClient, sandbox: boolean, verb: string, positionals: readonly string[], values: FlagValues) => Promise<unknown>;
