import type { Migration } from '@gw/kernel';

/**
 * One request budget per limit scope instead of per chain, network and provider (issue 40, review
 * finding 6): a public provider's limit holds per host (mempool.space serves mainnet and signet
 * under one) or per operator (PublicNode's hosts of every chain, `limitScope`), so every network it
 * serves draws on one row. A configured provider's scope stays its own on its network.
 *
 * `watchers_provider_budgets` is keyed by `scope` (the same columns otherwise, see
 * 0006_provider_budgets; `day_count` and the minute's ring now count calls: a JSON-RPC batch of N
 * calls counts N). `watchers_provider_budget_users` says which provider of which network draws on
 * which scope, written at its first request in each process, so that the usage reads still answer
 * per network provider (each with its scope's figures).
 *
 * The rows of 0006 are dropped, not carried over: their key does not say which scope they belong
 * to (the host is in the chain data and the config, not in the table). They hold a pace's next
 * moment and rests of seconds to minutes, which start afresh; and the day's count, so a provider
 * with a day cap may be asked up to one more day's worth on the day of the upgrade.
 */
export const m0008BudgetScopes: Migration = {
  name: '0008_budget_scopes',
  async up(knex) {
    await knex.raw(`drop table watchers_provider_budgets`);
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
};
