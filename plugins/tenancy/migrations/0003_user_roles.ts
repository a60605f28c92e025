import type { Migration } from '@gw/kernel';

/**
 * A role per user for the operator dashboard (issue 20): `admin` may do every action, `member`
 * only reads. Users invited before roles existed become members: the dashboard must not hand write
 * access to people who were invited only to connect read-only OAuth apps (docs/decisions.md).
 */
export const m0003UserRoles: Migration = {
  name: '0003_user_roles',
  async up(knex) {
    await knex.raw(`
      alter table tenancy_users add column role text not null default 'member';
      alter table tenancy_users add constraint tenancy_users_role_check check (role in ('admin', 'member'));`);
  },
  async down(knex) {
    await knex.raw('alter table tenancy_users drop column role');
  },
};
