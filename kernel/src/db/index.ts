export * from './migration.js';
export * from './migration-runner.js';
export * from './create-knex.js';
export * from './embedded-postgres.js';
export * from './sql.js';
export * from './unique-violation.js';
export * from './notifications.js';
export * from './database-unavailable.js';
export { keysetPage, type KeysetPage, type KeysetPageRequest } from './keyset-page.js';
