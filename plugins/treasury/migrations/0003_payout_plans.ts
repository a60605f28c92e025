import type { Migration } from '@gw/kernel';

/**
 * Payout plans (issue 37): kind `payout`, on UTXO chains (no method; the recipients in `context`)
 * and on account chains (method `payout`, and only there).
 */
export const m0003PayoutPlans: Migration = {
  name: '0003_payout_plans',
  async up(knex) {
    await knex.raw(`alter table treasury_plans drop constraint treasury_plans_kind_check`);
    await knex.raw(
      `alter table treasury_plans add constraint treasury_plans_kind_check check (kind in ('sweep', 'bump', 'accelerate', 'activation', 'sweeper_deployment', 'payout'))`,
    );
    await knex.raw(`alter table treasury_plans drop constraint treasury_plans_account_check`);
    await knex.raw(`alter table treasury_plans add constraint treasury_plans_account_check
      check (((method is null and kind not in ('activation', 'sweeper_deployment'))
        or (method is not null and kind in ('sweep', 'activation', 'sweeper_deployment', 'payout') and round in (1, 2) and rounds in (1, 2) and context is not null))
        and ((kind = 'sweeper_deployment') = (method is not distinct from 'sweeper_deployment'))
        and (method is distinct from 'payout' or kind = 'payout')
        and (kind <> 'payout' or context -> 'recipients' is not null))`);
  },
  async down(knex) {
    await knex.raw(`delete from treasury_plans where kind = 'payout'`);
    await knex.raw(`alter table treasury_plans drop constraint treasury_plans_account_check`);
    await knex.raw(`alter table treasury_plans add constraint treasury_plans_account_check
      check (((method is null and kind not in ('activation', 'sweeper_deployment'))
        or (method is not null and kind in ('sweep', 'activation', 'sweeper_deployment') and round in (1, 2) and rounds in (1, 2) and context is not null))
        and ((kind = 'sweeper_deployment') = (method is not distinct from 'sweeper_deployment')))`);
    await knex.raw(`alter table treasury_plans drop constraint treasury_plans_kind_check`);
    await knex.raw(
      `alter table treasury_plans add constraint treasury_plans_kind_check check (kind in ('sweep', 'bump', 'accelerate', 'activation', 'sweeper_deployment'))`,
    );
  },
};
