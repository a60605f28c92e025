import type { Migration } from '@gw/kernel';

/** Operators, projects, API keys with their encrypted secrets, personal access tokens, users. */
export const m0001Tenancy: Migration = {
  name: '0001_tenancy',
  async up(knex) {
    await knex.schema.createTable('tenancy_operators', (t) => {
      t.string('id', 26).primary();
      t.text('name').notNullable().unique();
      t.text('subscription_status').notNullable().defaultTo('active');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.raw(`alter table tenancy_operators add constraint tenancy_operators_subscription_check
      check (subscription_status in ('active', 'expired'))`);

    await knex.schema.createTable('tenancy_projects', (t) => {
      t.string('id', 26).primary();
      t.string('operator_id', 26).notNullable().references('id').inTable('tenancy_operators');
      t.text('name').notNullable();
      t.text('kind').notNullable();
      t.text('status').notNullable().defaultTo('active');
      t.text('webhook_url').nullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.unique(['operator_id', 'name']);
    });
    await knex.raw(`alter table tenancy_projects add constraint tenancy_projects_kind_check
      check (kind in ('production', 'testnet', 'sandbox'))`);
    await knex.raw(`alter table tenancy_projects add constraint tenancy_projects_status_check
      check (status in ('active', 'suspended'))`);
    // The kind is fixed at creation (spec section 1).
    await knex.raw(`
      create function tenancy_projects_kind_immutable() returns trigger language plpgsql as $$
      begin
        if new.kind <> old.kind then raise exception 'project kind is fixed at creation'; end if;
        return new;
      end $$;
      create trigger tenancy_projects_kind_immutable before update on tenancy_projects
        for each row execute function tenancy_projects_kind_immutable();`);

    await knex.schema.createTable('tenancy_api_keys', (t) => {
      t.string('id', 26).primary();
      t.string('project_id', 26).notNullable().references('id').inTable('tenancy_projects').onDelete('CASCADE');
      t.text('secret_kind').notNullable();
      t.text('state').notNullable().defaultTo('active');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('state_changed_at', { useTz: true }).nullable();
      t.index(['project_id']);
    });
    await knex.raw(`alter table tenancy_api_keys add constraint tenancy_api_keys_state_check
      check (state in ('active', 'suspended', 'revoked'))`);
    await knex.raw(`alter table tenancy_api_keys add constraint tenancy_api_keys_secret_kind_check
      check (secret_kind in ('production', 'sandbox'))`);
    // At most one key per project that is not revoked: the key the project's requests use.
    await knex.raw(`create unique index tenancy_api_keys_one_live_per_project
      on tenancy_api_keys (project_id) where state <> 'revoked'`);

    await knex.schema.createTable('tenancy_api_key_secrets', (t) => {
      t.string('id', 26).primary();
      t.string('api_key_id', 26).notNullable().references('id').inTable('tenancy_api_keys').onDelete('CASCADE');
      t.text('sealed_secret').notNullable().comment('AES-256-GCM under the master key; aad = secret id');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('expires_at', { useTz: true }).nullable().comment('null: current; set when rotated out');
      t.index(['api_key_id']);
    });

    await knex.schema.createTable('tenancy_users', (t) => {
      t.string('id', 26).primary();
      t.string('operator_id', 26).notNullable().references('id').inTable('tenancy_operators');
      t.text('email').notNullable().unique().comment('stored lower-cased');
      t.text('status').notNullable().defaultTo('invited');
      t.timestamp('invited_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.raw(`alter table tenancy_users add constraint tenancy_users_status_check
      check (status in ('invited', 'active', 'disabled'))`);

    await knex.schema.createTable('tenancy_personal_access_tokens', (t) => {
      t.string('id', 26).primary();
      t.string('operator_id', 26).notNullable().references('id').inTable('tenancy_operators');
      t.string('project_id', 26).nullable().references('id').inTable('tenancy_projects').onDelete('CASCADE');
      t.string('user_id', 26).nullable().references('id').inTable('tenancy_users');
      t.text('name').notNullable();
      t.specificType('scopes', 'text[]').notNullable();
      t.string('token_hash', 64).notNullable().unique().comment('sha256 hex of the whole token');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('expires_at', { useTz: true }).nullable();
      t.timestamp('revoked_at', { useTz: true }).nullable();
      t.timestamp('last_used_at', { useTz: true }).nullable();
    });
  },
  async down(knex) {
    await knex.schema.dropTable('tenancy_personal_access_tokens');
    await knex.schema.dropTable('tenancy_users');
    await knex.schema.dropTable('tenancy_api_key_secrets');
    await knex.schema.dropTable('tenancy_api_keys');
    await knex.schema.dropTable('tenancy_projects');
    await knex.raw('drop function if exists tenancy_projects_kind_immutable');
    await knex.schema.dropTable('tenancy_operators');
  },
};
