import type { Logger } from 'pino';

/**
 * Logs a streak of repeated failures once instead of at every attempt: a dependency that is down
 * (a rate provider offline, a chain node unreachable) fails at every scheduled try, and a warning
 * with a stack each minute buries everything else and costs log storage.
 *
 * - The first failure of a streak is logged with the error (its stack, once).
 * - Further failures of the same key are counted; the 10th, 100th, 1000th… log one line with the
 *   count and the latest error's message, no stack.
 * - The first success after a streak logs one recovery line with the count and the streak's start.
 *
 * The state is per process and only decides what is logged (several instances each log their own
 * streak); nothing correctness-relevant lives here.
 */
export interface FailureLog {
  /** Records a failure of `key` (logged as described above). */
  failed(key: string, error: unknown, fields?: Record<string, unknown>): void;
  /** Records a success of `key`; logs the recovery when it was failing. */
  succeeded(key: string, fields?: Record<string, unknown>): void;
  /** Failures in the current streak of `key` (0 when it is not failing). */
  streak(key: string): number;
}

export interface FailureLogMessages {
  /** First failure of a streak, e.g. `rate provider failed`. */
  readonly failed: string;
  /** Counted reminder, e.g. `rate provider still failing`. */
  readonly stillFailing: string;
  /** Recovery, e.g. `rate provider recovered`. */
  readonly recovered: string;
  /** Level of the failure lines (default warn). */
  readonly level?: 'warn' | 'error';
}

const isPowerOfTen = (n: number): boolean => {
  while (n >= 10 && n % 10 === 0) n /= 10;
  return n === 1;
};

export function createFailureLog(logger: Logger, messages: FailureLogMessages, now: () => Date = () => new Date()): FailureLog {
  const streaks = new Map<string, { count: number; since: Date }>();
  const level = messages.level ?? 'warn';
  return {
    failed(key, error, fields = {}) {
      const streak = streaks.get(key);
      if (!streak) {
        streaks.set(key, { count: 1, since: now() });
        logger[level]({ ...fields, err: error, failures: 1 }, messages.failed);
        return;
      }
      streak.count += 1;
      if (isPowerOfTen(streak.count)) {
        logger[level](
          { ...fields, failures: streak.count, since: streak.since.toISOString(), error: error instanceof Error ? error.message : String(error) },
          `${messages.stillFailing} (${streak.count} failures since ${streak.since.toISOString()})`,
        );
      }
    },
    succeeded(key, fields = {}) {
      const streak = streaks.get(key);
      if (!streak) return;
      streaks.delete(key);
      logger.info(
        { ...fields, failures: streak.count, since: streak.since.toISOString() },
        `${messages.recovered} after ${streak.count} failure${streak.count === 1 ? '' : 's'}`,
      );
    },
    streak(key) {
      return streaks.get(key)?.count ?? 0;
    },
  };
}
