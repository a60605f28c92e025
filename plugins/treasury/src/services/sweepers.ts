import { sql, sqlQuery } from '@gw/kernel';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AccountNetwork } from './account-networks.js';

/** A sweeper the treasury deployed and recorded. */
export interface SweeperView {
  readonly chain: string;
  readonly network: string;
  readonly destination: string;
  readonly contract: string;
  /** The `sweeper_deployment` plan that deployed it. */
  readonly plan_id: string | null;
  readonly recorded_at_iso: string;
}

/**
 * The EIP-7702 token sweepers of the treasury (issue 36), one per destination and network: a
 * `sweeper_deployment` plan, once confirmed, records the contract it deployed, so an `eip7702`
 * sweep to that destination uses it without configuration. The operator's `sweepers` setting
 * still wins for a destination it names. A recorded sweeper is given to a plan only after the
 * chain's treasury says its code on chain now is the sweeper's runtime for that destination.
 */
export class Sweepers {
  constructor(private readonly deps: { db: Knex; logger: Logger }) {}

  /** Records the sweeper of a confirmed deployment plan (in the plan's confirming transaction); a later one for the destination replaces it. */
  async record(trx: Knex.Transaction, row: { chain: string; network: string; destination: string; contract: string; planId: string }): Promise<void> {
    await sqlQuery(
      trx,
      sql`insert into treasury_sweepers (chain, network, destination, contract, plan_id, recorded_at)
          values (${row.chain}, ${row.network}, ${row.destination}, ${row.contract}, ${row.planId}, now())
          on conflict (chain, network, lower(destination)) do update set destination = excluded.destination, contract = excluded.contract,
            plan_id = excluded.plan_id, recorded_at = excluded.recorded_at`,
    );
  }

  /** The recorded sweepers, of a network when given, newest first. */
  async list(filter: { chain?: string; network?: string } = {}): Promise<SweeperView[]> {
    const rows = await sqlQuery<{ chain: string; network: string; destination: string; contract: string; plan_id: string | null; recorded_at: Date }>(
      this.deps.db,
      sql`select chain, network, destination, contract, plan_id, recorded_at from treasury_sweepers
           where ${filter.chain ? sql`chain = ${filter.chain}` : sql`true`} and ${filter.network ? sql`network = ${filter.network}` : sql`true`}
           order by recorded_at desc, id desc`,
    );
    return rows.map((r) => ({
      chain: r.chain,
      network: r.network,
      destination: r.destination,
      contract: r.contract,
      plan_id: r.plan_id,
      recorded_at_iso: new Date(r.recorded_at).toISOString(),
    }));
  }

  /**
   * The sweeper to use for `destination`: the configured one, else the recorded one if its code on
   * chain is the sweeper runtime for that destination (a row whose code does not match is left
   * unused, and logged). Undefined when there is none.
   */
  async forDestination(target: AccountNetwork, destination: string): Promise<string | undefined> {
    const configured = target.sweepers[destination] ?? Object.entries(target.sweepers).find(([d]) => d.toLowerCase() === destination.toLowerCase())?.[1];
    if (configured) return configured;
    const [row] = await sqlQuery<{ contract: string }>(
      this.deps.db,
      sql`select contract from treasury_sweepers where chain = ${target.chain} and network = ${target.network} and lower(destination) = lower(${destination})`,
    );
    if (!row || !target.treasury.isSweeperFor) return undefined;
    if (await target.treasury.isSweeperFor(row.contract, destination)) return row.contract;
    this.deps.logger.warn(
      { chain: target.chain, network: target.network, destination, contract: row.contract },
      'treasury: the recorded sweeper’s code on chain is not the sweeper for its destination; not used',
    );
    return undefined;
  }
}
