import type { PoolStatus } from './services/pool-status.js';

/**
 * What a pool's activation stands at, in the words `doctor` and the dashboard use: "20 derived, 0
 * activated, 0 available for invoices". Undefined for a chain whose addresses need no activation.
 */
export function activationCounts(pool: PoolStatus): string | undefined {
  if (!pool.activation_required) return undefined;
  return `${pool.total} derived, ${pool.activated} activated, ${pool.available} available for invoices`;
}

/**
 * What the operator does about a pool with no activated address: an activation plan, or TRX sent by
 * anyone; the watchers see the accounts appear on chain and mark them. Undefined when the pool needs
 * nothing (activated addresses exist, or the chain needs no activation).
 */
export function activationAdvice(pool: PoolStatus): string | undefined {
  if (!pool.activation_required || pool.activated > 0) return undefined;
  return (
    `${activationCounts(pool)}: ${pool.chain} invoices need activated addresses; run an activation plan ` +
    `(\`gateway treasury activate\`, one batch signed offline) or send TRX to them ` +
    `(at least 1 TRX each, from any wallet). The watchers mark each address activated once it exists on chain.`
  );
}
