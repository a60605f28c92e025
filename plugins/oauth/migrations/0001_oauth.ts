import type { Migration } from '@gw/kernel';

/**
 * OAuth 2.1 authorization server tables. Secrets (client secrets, codes, tokens, cookie values,
 * sign-in codes) are stored only as SHA-256 hashes; the one plaintext copy kept is a rotated
 * refresh token's successor pair, sealed under the master key for the refresh leeway and wiped
 * after it (docs/decisions.md, "OAuth").
 */
export const m0001OAuth: Migration = {
  name: '0001_oauth',
  async up(knex) {
    await knex.schema.createTable('oauth_clients', (t) => {
      t.text('client_id').primary().comment('26-char ULID (dynamic registration) or the HTTPS URL of a client metadata document');
      t.text('kind').notNullable();
      t.text('client_name').nullable();
      t.specificType('redirect_uris', 'text[]').notNullable();
      t.specificType('grant_types', 'text[]').notNullable();
      t.specificType('response_types', 'text[]').notNullable();
      t.text('token_endpoint_auth_method').notNullable();
      t.string('secret_hash', 64).nullable().comment('sha256 hex of the client secret (client_secret_post clients)');
      t.text('registered_ip').nullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('document_fetched_at', { useTz: true }).nullable();
      t.timestamp('document_expires_at', { useTz: true }).nullable().comment('metadata documents: fetched again after this');
    });
    await knex.raw(`alter table oauth_clients add constraint oauth_clients_kind_check check (kind in ('dynamic', 'document'))`);
    await knex.raw(`alter table oauth_clients add constraint oauth_clients_auth_check check (token_endpoint_auth_method in ('none', 'client_secret_post'))`);

    await knex.schema.createTable('oauth_sessions', (t) => {
      t.string('id', 26).primary();
      t.string('token_hash', 64).notNullable().unique().comment('sha256 hex of the cookie value');
      t.string('user_id', 26).nullable().references('id').inTable('tenancy_users').onDelete('CASCADE');
      t.timestamp('signed_in_at', { useTz: true }).nullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.index(['expires_at']);
    });

    await knex.schema.createTable('oauth_authorization_requests', (t) => {
      t.string('id', 26).primary();
      t.string('session_id', 26).notNullable().references('id').inTable('oauth_sessions').onDelete('CASCADE');
      t.text('client_id').notNullable().references('client_id').inTable('oauth_clients').onDelete('CASCADE');
      t.text('redirect_uri').notNullable();
      t.specificType('scopes', 'text[]').notNullable();
      t.text('state').nullable();
      t.string('code_challenge', 43).notNullable();
      t.text('resource').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.timestamp('completed_at', { useTz: true }).nullable();
      t.index(['expires_at']);
    });

    await knex.schema.createTable('oauth_email_challenges', (t) => {
      t.string('id', 26).primary();
      t.string('session_id', 26).notNullable().references('id').inTable('oauth_sessions').onDelete('CASCADE');
      t.string('user_id', 26)
        .nullable()
        .references('id')
        .inTable('tenancy_users')
        .onDelete('CASCADE')
        .comment('null for an address that is not invited: the code can never succeed');
      t.string('code_hash', 64).notNullable();
      t.integer('attempts').notNullable().defaultTo(0);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.timestamp('consumed_at', { useTz: true }).nullable();
      t.index(['expires_at']);
    });

    await knex.schema.createTable('oauth_consents', (t) => {
      t.string('user_id', 26).notNullable().references('id').inTable('tenancy_users').onDelete('CASCADE');
      t.text('client_id').notNullable().references('client_id').inTable('oauth_clients').onDelete('CASCADE');
      t.specificType('scopes', 'text[]').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('revoked_at', { useTz: true }).nullable();
      t.primary(['user_id', 'client_id']);
    });

    await knex.schema.createTable('oauth_codes', (t) => {
      t.string('id', 26).primary();
      t.string('code_hash', 64).notNullable().unique();
      t.text('client_id').notNullable().references('client_id').inTable('oauth_clients').onDelete('CASCADE');
      t.string('user_id', 26).notNullable().references('id').inTable('tenancy_users').onDelete('CASCADE');
      t.text('redirect_uri').notNullable();
      t.specificType('scopes', 'text[]').notNullable();
      t.text('resource').notNullable();
      t.string('code_challenge', 43).notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.timestamp('consumed_at', { useTz: true }).nullable();
      t.string('grant_id', 26).nullable().comment('the lineage the code was exchanged for');
      t.index(['user_id', 'client_id']);
      t.index(['expires_at']);
    });

    // A grant is one lineage: the tokens descended from one code exchange.
    await knex.schema.createTable('oauth_grants', (t) => {
      t.string('id', 26).primary();
      t.string('user_id', 26).notNullable().references('id').inTable('tenancy_users').onDelete('CASCADE');
      t.text('client_id').notNullable().references('client_id').inTable('oauth_clients').onDelete('CASCADE');
      t.specificType('scopes', 'text[]').notNullable();
      t.text('resource').notNullable();
      t.string('code_id', 26).notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('revoked_at', { useTz: true }).nullable();
      t.text('revoked_reason').nullable();
      t.index(['user_id', 'client_id']);
    });

    await knex.schema.createTable('oauth_refresh_tokens', (t) => {
      t.string('id', 26).primary();
      t.string('grant_id', 26).notNullable().references('id').inTable('oauth_grants').onDelete('CASCADE');
      t.string('parent_id', 26).nullable().comment('the refresh token this one replaced');
      t.string('token_hash', 64).notNullable().unique();
      t.text('client_id').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.timestamp('consumed_at', { useTz: true }).nullable();
      t.string('successor_id', 26).nullable();
      t.text('sealed_successor').nullable().comment('the successor pair, AES-256-GCM under the master key; kept only during the refresh leeway');
      t.timestamp('revoked_at', { useTz: true }).nullable();
      t.index(['grant_id']);
    });

    await knex.schema.createTable('oauth_access_tokens', (t) => {
      t.string('id', 26).primary();
      t.string('grant_id', 26).notNullable().references('id').inTable('oauth_grants').onDelete('CASCADE');
      t.string('refresh_token_id', 26).nullable().comment('the refresh token issued with it');
      t.string('token_hash', 64).notNullable().unique();
      t.text('client_id').notNullable();
      t.string('user_id', 26).notNullable();
      t.specificType('scopes', 'text[]').notNullable();
      t.text('resource').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.timestamp('revoked_at', { useTz: true }).nullable();
      t.index(['grant_id']);
    });
  },
  async down(knex) {
    for (const table of [
      'oauth_access_tokens',
      'oauth_refresh_tokens',
      'oauth_grants',
      'oauth_codes',
      'oauth_consents',
      'oauth_email_challenges',
      'oauth_authorization_requests',
      'oauth_sessions',
      'oauth_clients',
    ]) {
      await knex.schema.dropTableIfExists(table);
    }
  },
};
