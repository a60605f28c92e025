import type { Knex } from 'knex';

/**
 * One migration of one owner (the kernel or a plugin). Migrations are imported explicitly, never
 * discovered by scanning folders. The runner records them as `<owner>/<name>` in
 * `knex_migrations`, runs owners in plugin dependency order and, within an owner, in list order.
 */
export interface Migration {
  /** Unique within the owner, e.g. `0001_tenancy`. */
  readonly name: string;
  readonly up: (knex: Knex) => Promise<void>;
  readonly down: (knex: Knex) => Promise<void>;
}
