import type { Knex } from 'knex';
import type { Migration } from './migration.js';

/** Migrations of one owner (the kernel or a plugin), in order. */
export interface OwnedMigrations {
  readonly owner: string;
  readonly migrations: readonly Migration[];
}

/**
 * A knex migration source over explicitly imported migrations, named `<owner>/<name>`, ordered by
 * owner (kernel first, then plugins in dependency order) and by list order within an owner.
 */
class CollectedMigrationSource implements Knex.MigrationSource<Migration> {
  constructor(private readonly owned: readonly OwnedMigrations[]) {}

  async getMigrations(): Promise<Migration[]> {
    return this.owned.flatMap(({ owner, migrations }) => migrations.map((m) => ({ ...m, name: `${owner}/${m.name}` })));
  }

  getMigrationName(migration: Migration): string {
    return migration.name;
  }

  async getMigration(migration: Migration): Promise<Knex.Migration> {
    return { up: migration.up, down: migration.down };
  }
}

/**
 * Runs every pending migration under knex's migration lock (safe when several instances start at
 * once). Returns the names that ran. Applied migrations of a plugin that is now disabled are not
 * an error (its tables simply stay), so knex's "missing migration" validation is off.
 */
export async function runMigrations(knex: Knex, owned: readonly OwnedMigrations[]): Promise<string[]> {
  const [, names] = (await knex.migrate.latest({
    migrationSource: new CollectedMigrationSource(owned),
    tableName: 'knex_migrations',
    disableMigrationsListValidation: true,
  })) as [number, string[]];
  return names;
}

/** Names of migrations not yet applied. */
export async function pendingMigrations(knex: Knex, owned: readonly OwnedMigrations[]): Promise<string[]> {
  const [, pending] = (await knex.migrate.list({
    migrationSource: new CollectedMigrationSource(owned),
    tableName: 'knex_migrations',
    disableMigrationsListValidation: true,
  })) as [unknown[], { name?: string; file?: string }[]];
  return pending.map((p) => p.name ?? p.file ?? String(p));
}
