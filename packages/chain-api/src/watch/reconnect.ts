/** The reconnect pauses of a push subscription (`ChainWatcher.subscribeHeads`). */
export interface ReconnectBackoff {
  /** First pause before reconnecting (default 500 ms); doubles per failed attempt up to `maxBackoffMs`. */
  readonly minBackoffMs?: number;
  /** Longest pause (default 30 s). */
  readonly maxBackoffMs?: number;
}

/**
 * The pause before reconnect attempt `attempt` (0 for the first after a connection that worked):
 * `minBackoffMs` doubled per earlier failed attempt, at most `maxBackoffMs`. Shared by the EVM
 * WebSocket and Bitcoin Core ZMQ subscriptions so both back off alike.
 */
export function reconnectDelayMs(attempt: number, options: ReconnectBackoff = {}): number {
  const min = options.minBackoffMs ?? 500;
  const max = options.maxBackoffMs ?? 30_000;
  return Math.min(max, min * 2 ** Math.min(Math.max(attempt, 0), 16));
}
