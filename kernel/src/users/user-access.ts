import type { Knex } from 'knex';

/**
 * What is ended: `sessions` (an administrator's "end sessions": browser sign-ins only) or
 * `everything` (the user is disabled: sign-ins, OAuth grants and their tokens, consents).
 */
export type UserAccessScope = 'sessions' | 'everything';

/**
 * A plugin's part in ending a user's access (issue 33 item 12). The tenancy plugin owns users but
 * not the other plugins' tables (dashboard sessions, OAuth grants): when it disables a user or an
 * administrator ends their sessions, it calls every enabled plugin's enders through the kernel's
 * `userAccess` service, inside its own transaction, so the user's status and everything they held
 * change together or not at all. Each ender touches only its own plugin's tables.
 */
export interface UserAccessEnder {
  /** What it ends, reported by name in the audit entry (`dashboard_sessions`, `oauth_grants`). */
  readonly name: string;
  /** Ends the user's holdings of this kind within `trx`; returns how many ended. */
  end(userId: string, scope: UserAccessScope, trx: Knex.Transaction): Promise<number>;
}

/** The kernel service that runs every enabled plugin's {@link UserAccessEnder}s. */
export interface UserAccess {
  /** Runs every ender in plugin order within `trx`; the count of each, by name. */
  end(userId: string, scope: UserAccessScope, trx: Knex.Transaction): Promise<Record<string, number>>;
}

/**
 * `build` is called on first use, not when the service is resolved: the enders' plugins depend on
 * tenancy, whose user service depends on this one, so building them eagerly would be a cycle.
 */
export function createUserAccess(build: () => readonly UserAccessEnder[]): UserAccess {
  let enders: readonly UserAccessEnder[] | undefined;
  return {
    async end(userId, scope, trx) {
      enders ??= build();
      const counts: Record<string, number> = {};
      for (const ender of enders) counts[ender.name] = (counts[ender.name] ?? 0) + (await ender.end(userId, scope, trx));
      return counts;
    },
  };
}
