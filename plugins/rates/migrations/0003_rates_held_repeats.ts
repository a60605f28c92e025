import type { Migration } from '@gw/kernel';

/**
 * A held rate is confirmed only by another provider agreeing with it, or by its own provider
 * repeating it for `plugins.rates.jump.confirmSeconds` (issue 38): `repeated_since` is when that
 * provider's run of agreeing answers began (by default the insert's time, as `held_at`). Rows
 * held before this migration start their run at `held_at`.
 */
export const m0003RatesHeldRepeats: Migration = {
  name: '0003_rates_held_repeats',
  async up(knex) {
    await knex.raw(`alter table rates_held add column repeated_since timestamptz not null default now()`);
    await knex.raw(`update rates_held set repeated_since = held_at`);
    await knex.raw(
      `comment on column rates_held.repeated_since is 'when the held rate''s provider first gave it (its later answers within the share keep this); a run of jump.confirmSeconds accepts it'`,
    );
  },
  async down(knex) {
    await knex.raw(`alter table rates_held drop column repeated_since`);
  },
};
