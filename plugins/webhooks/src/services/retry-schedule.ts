import type { WebhooksConfig } from '../config.js';

/**
 * Seconds to wait after failed attempt `attempt` (1-based) before the next one: `retryBaseSeconds`
 * doubling per attempt, capped at `retryMaxDelaySeconds`, scaled by a random factor within
 * ±`retryJitter` so that events failing together do not retry together. Undefined when
 * `attempt` was the last one (the event is dead-lettered).
 */
export function retryDelaySeconds(
  attempt: number,
  config: Pick<WebhooksConfig, 'maxAttempts' | 'retryBaseSeconds' | 'retryMaxDelaySeconds' | 'retryJitter'>,
  random: () => number = Math.random,
): number | undefined {
  if (attempt >= config.maxAttempts) return undefined;
  const nominal = Math.min(config.retryMaxDelaySeconds, config.retryBaseSeconds * 2 ** Math.min(attempt - 1, 30));
  return Math.max(1, Math.round(nominal * (1 + config.retryJitter * (2 * random() - 1))));
}

/** The nominal (jitter-free) schedule: delay before each retry, for docs and the CLI. */
export function nominalSchedule(config: Pick<WebhooksConfig, 'maxAttempts' | 'retryBaseSeconds' | 'retryMaxDelaySeconds'>): number[] {
  const delays: number[] = [];
  for (let attempt = 1; attempt < config.maxAttempts; attempt += 1) delays.push(retryDelaySeconds(attempt, { ...config, retryJitter: 0 })!);
  return delays;
}
