import type { Migration } from '@gw/kernel';

/**
 * Issue 33 items 12 and 18.
 *
 * A user's e-mail is unique within its operator, not across operators: a global constraint let
 * one operator learn, by a refused invitation, that an address is a user of another.
 *
 * Personal access tokens created in the dashboard before tokens recorded their creator get it from
 * the audit log (`pat.create` by `user:<id>`), so disabling that user ends them too.
 */
export const m0004UsersPerOperator: Migration = {
  name: '0004_users_per_operator',
  async up(knex) {
    await knex.raw(`
      alter table tenancy_users drop constraint tenancy_users_email_unique;
      create unique index tenancy_users_operator_email_unique on tenancy_users (operator_id, lower(email));
      create index tenancy_users_email on tenancy_users (lower(email));
      create index tenancy_personal_access_tokens_user on tenancy_personal_access_tokens (user_id) where user_id is not null;
      update tenancy_personal_access_tokens p
         set user_id = u.id
        from kernel_audit_log a
        join tenancy_users u on a.actor = 'user:' || u.id
       where a.action = 'pat.create' and a.target = 'pat:' || p.id and p.user_id is null;`);
  },
  async down(knex) {
    await knex.raw(`
      drop index tenancy_personal_access_tokens_user;
      drop index tenancy_users_email;
      drop index tenancy_users_operator_email_unique;
      alter table tenancy_users add constraint tenancy_users_email_unique unique (email);`);
  },
};
