import type { Migration } from '@gw/kernel';

/**
 * The request budget of each limit scope (issue 40), shared by every instance, taken and written
 * by one statement per request (`ProviderBudgets`). A public provider's limit holds per host
 * (mempool.space serves mainnet and signet under one) or per operator (PublicNode's hosts of every
 * chain, `limitScope`), so every network it serves draws on one row; a configured provider's scope
 * is its own on its network.
 *
 * - `next_at` is the pace: the earliest moment the next call may be sent, pushed one step
 *   (1 / `pace` seconds) further by each call sent, so calls of all instances are spaced evenly
 *   under the limit (a token bucket of one token, kept as its next refill). A JSON-RPC batch of N
 *   calls takes N steps and counts N.
 * - `day` and `day_count`: calls sent on that UTC day, against `day_cap`.
 * - `second_counts` and `second_stamps`: calls per second over the last minute, a ring of 60
 *   slots indexed by the epoch second modulo 60 (a slot whose stamp is older than 60 s is stale),
 *   for `ProviderUsageReads`.
 * - `rest_until` and `streak`: after a 429, no request before `rest_until`; `streak` counts 429s
 *   in a row (the backoff doubles with it) and is cleared by the next answer.
 * - `pace` and `day_cap` are the figures the last request was paced by (the limit, times
 *   `publicLimitShare` for a public provider), kept so that usage reads need no configuration.
 *
 * `watchers_provider_budget_users` says which provider of which network draws on which scope,
 * written at its first request in each process, so that the usage reads answer per network
 * provider (each with its scope's figures).
 */
export const m0006ProviderBudgets: Migration = {
  name: '0006_provider_budgets',
  async up(knex) {
    await knex.raw(`
      create table watchers_provider_budgets (
        scope text primary key,
        pace double precision not null check (pace > 0),
        day_cap integer null check (day_cap is null or day_cap >= 1),
        next_at timestamptz not null default '-infinity',
        day date not null,
        day_count integer not null default 0 check (day_count >= 0),
        second_counts integer[] not null default array_fill(0, array[60]),
        second_stamps bigint[] not null default array_fill(0::bigint, array[60]),
        rest_until timestamptz null,
        streak integer not null default 0 check (streak >= 0)
      )`);
    await knex.raw(`
      create table watchers_provider_budget_users (
        chain text not null,
        network text not null,
        provider text not null,
        scope text not null references watchers_provider_budgets (scope) on delete cascade,
        primary key (chain, network, provider)
      )`);
    await knex.raw(`create index watchers_provider_budget_users_scope on watchers_provider_budget_users (scope)`);
  },
  async down(knex) {
    await knex.raw(`drop table watchers_provider_budget_users`);
    await knex.raw(`drop table watchers_provider_budgets`);
  },
};
