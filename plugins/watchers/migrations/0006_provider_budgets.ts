import type { Migration } from '@gw/kernel';

/**
 * The request budget of each provider with a limit (issue 40), shared by every instance: one row
 * per chain, network and provider, taken and written by one statement per request
 * (`ProviderBudgets`).
 *
 * - `next_at` is the pace: the earliest moment the next request may be sent, pushed one step
 *   (1 / `pace` seconds) further by each request sent, so requests of all instances are spaced
 *   evenly under the limit (a token bucket of one token, kept as its next refill).
 * - `day` and `day_count`: requests sent on that UTC day, against `day_cap`.
 * - `second_counts` and `second_stamps`: requests per second over the last minute, a ring of 60
 *   slots indexed by the epoch second modulo 60 (a slot whose stamp is older than 60 s is stale),
 *   for `ProviderUsageReads`.
 * - `rest_until` and `streak`: after a 429, no request before `rest_until`; `streak` counts 429s
 *   in a row (the backoff doubles with it) and is cleared by the next answer.
 * - `pace` and `day_cap` are the figures the last request was paced by (the limit, times
 *   `publicLimitShare` for a public provider), kept so that usage reads need no configuration.
 */
export const m0006ProviderBudgets: Migration = {
  name: '0006_provider_budgets',
  async up(knex) {
    await knex.raw(`
      create table watchers_provider_budgets (
        chain text not null,
        network text not null,
        provider text not null,
        pace double precision not null check (pace > 0),
        day_cap integer null check (day_cap is null or day_cap >= 1),
        next_at timestamptz not null default '-infinity',
        day date not null,
        day_count integer not null default 0 check (day_count >= 0),
        second_counts integer[] not null default array_fill(0, array[60]),
        second_stamps bigint[] not null default array_fill(0::bigint, array[60]),
        rest_until timestamptz null,
        streak integer not null default 0 check (streak >= 0),
        primary key (chain, network, provider)
      )`);
  },
  async down(knex) {
    await knex.raw(`drop table watchers_provider_budgets`);
  },
};
