import { extensionPoint } from '@gw/kernel';
import type { Knex } from 'knex';

/**
 * What another plugin holds of a sandbox project and removes when the project is reset or
 * deleted (refunds and payouts, ...), in the reset's or delete's transaction: a failure rolls the
 * whole purge back. The sandbox imports none of its contributors.
 */
export interface ProjectPurger {
  /** Names the count in the reset's audit details (`refunds_and_payouts`). */
  readonly name: string;
  /** Deletes the project's rows; answers how many records it removed. */
  purge(trx: Knex.Transaction, projectId: string): Promise<number>;
}

/** Contributed with `contribute(SANDBOX_PROJECT_PURGERS, withDeps([...], deps => [...]))`. */
export const SANDBOX_PROJECT_PURGERS = extensionPoint<ProjectPurger>('sandbox.project-purgers');
