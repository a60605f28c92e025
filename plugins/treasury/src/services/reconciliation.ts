import { jsonRecords, newId, sql, sqlQuery, type AuditLog, type ProviderOutput, isoTime, isoTimeOrNull, pick } from '@gw/kernel';
import type { ReceivedOutput, ReceivedOutputs } from '@gw/plugin-watchers/contract';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { TreasuryConfig } from '../config.js';
import type { AccountNetworks } from './account-networks.js';
import type { AccountReconciliation } from './account-reconciliation.js';
import { eachOutput } from './each-output.js';
import type { TreasuryNetwork, TreasuryNetworks } from './treasury-networks.js';

/** A difference between what the gateway recorded and what the provider sees. */
export interface ReconciliationDifference {
  readonly address: string;
  /** UTXO chains: the output's transaction; null for an account chain's `balance_differs`. */
  readonly tx_hash: string | null;
  readonly output_index: number | null;
  /** Account chains: the coin whose balance differs; null (or absent, before it is stored) on UTXO chains. */
  readonly coin?: string | null;
  /**
   * UTXO chains: `missing_at_provider` (recorded unspent, the provider does not list it),
   * `unknown_to_gateway` (the reverse), `amount_differs`. Account chains: `balance_differs` (the
   * address holds other than received less moved out; `gateway_units` is what the records say).
   */
  readonly kind: 'missing_at_provider' | 'unknown_to_gateway' | 'amount_differs' | 'balance_differs';
  readonly gateway_units: string | null;
  readonly provider_units: string | null;
}

export interface ReconciliationRun {
  readonly id: string;
  readonly chain: string;
  readonly network: string;
  readonly addresses: number;
  readonly provider_calls: number;
  readonly differences: number;
  readonly failure: string | null;
  readonly started_at_iso: string;
  readonly finished_at_iso: string | null;
}

/**
 * Reconciliation (issue 35 item 1; account chains, issue 36: account-reconciliation.ts): the unspent outputs the watchers recorded, per address, are
 * compared with the provider's (`ChainTreasury.unspentAt`, `reconcileBatch` addresses per request).
 * Only outputs in a block are compared, so a payment or a spend in flight is no difference; an
 * output in a block the watchers' quorum has not attested yet (issue 40) is compared too: the
 * record is set against the chain as the provider sees it, not against what may be spent.
 * Differences are recorded and reported (API, CLI, metric, alert), never corrected: the watchers'
 * record is what the chain said block by block; a difference means a provider or the gateway is
 * wrong, and a person decides which.
 */
export class Reconciliation {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      logger: Logger;
      watchersOutputs: ReceivedOutputs;
      treasuryConfig: TreasuryConfig;
      treasuryNetworks: TreasuryNetworks;
      treasuryAccountNetworks: AccountNetworks;
      treasuryAccountReconciliation: AccountReconciliation;
    },
  ) {}

  /** Reconciles every network with a treasury (UTXO and account chains); one run each. */
  async runAll(): Promise<ReconciliationRun[]> {
    const runs: ReconciliationRun[] = [];
    for (const target of this.deps.treasuryNetworks.all()) runs.push(await this.run(target));
    for (const target of this.deps.treasuryAccountNetworks.all()) {
      runs.push(await this.recordRun(target, (id) => this.deps.treasuryAccountReconciliation.run(target, id)));
    }
    return runs;
  }

  async run(target: TreasuryNetwork): Promise<ReconciliationRun> {
    return this.recordRun(target, (id) => this.outputs(target, id));
  }

  /** One run of `target` in `treasury_reconciliations`: started, then its figures or its failure. */
  private async recordRun(
    target: { chain: string; network: string },
    body: (id: string) => Promise<{ addresses: number; requests: number; differences: number }>,
  ): Promise<ReconciliationRun> {
    const id = newId();
    const started = new Date();
    await sqlQuery(
      this.deps.db,
      sql`insert into treasury_reconciliations (id, chain, network, started_at) values (${id}, ${target.chain}, ${target.network}, ${started})`,
    );
    let addresses = 0;
    let requests = 0;
    let differences = 0;
    let failure: string | null = null;
    try {
      ({ addresses, requests, differences } = await body(id));
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
      this.deps.logger.warn({ chain: target.chain, network: target.network, err: error }, 'treasury reconciliation failed');
    }
    const finished = new Date();
    await sqlQuery(
      this.deps.db,
      sql`update treasury_reconciliations set addresses = ${addresses}, provider_calls = ${requests}, differences = ${differences}, failure = ${failure}, finished_at = ${finished} where id = ${id}`,
    );
    if (differences > 0)
      this.deps.logger.warn({ chain: target.chain, network: target.network, differences, run: id }, 'treasury reconciliation found differences');
    return {
      id,
      chain: target.chain,
      network: target.network,
      addresses,
      provider_calls: requests,
      differences,
      failure,
      started_at_iso: started.toISOString(),
      finished_at_iso: finished.toISOString(),
    };
  }

  /**
   * The latest runs (newest first) and the differences of the latest run of each network; with
   * `projects`, only the differences at those projects' addresses (a caller reaching some projects
   * never sees another operator's addresses).
   */
  async latest(
    limit = 20,
    projects?: ReadonlySet<string>,
  ): Promise<{ runs: ReconciliationRun[]; differences: (ReconciliationDifference & { chain: string; network: string; reconciliation_id: string })[] }> {
    const runs = await sqlQuery<{
      id: string;
      chain: string;
      network: string;
      addresses: number;
      provider_calls: number;
      differences: number;
      failure: string | null;
      started_at: Date;
      finished_at: Date | null;
    }>(this.deps.db, sql`select * from treasury_reconciliations order by id desc limit ${limit}`);
    const differences = await sqlQuery<ReconciliationDifference & { chain: string; network: string; reconciliation_id: string }>(
      this.deps.db,
      sql`select d.reconciliation_id, d.chain, d.network, d.address, d.tx_hash, d.output_index, d.coin, d.kind, d.gateway_units::text, d.provider_units::text
            from treasury_reconciliation_differences d
           where d.reconciliation_id in (select distinct on (chain, network) id from treasury_reconciliations where finished_at is not null order by chain, network, id desc)
             and ${projects ? sql`d.project_id = any(${[...projects]}::text[])` : sql`true`}
           order by d.id limit 1000`,
    );
    return {
      runs: runs.map((r) => ({
        ...pick(r, ['id', 'chain', 'network', 'addresses', 'provider_calls', 'differences', 'failure']),
        started_at_iso: isoTime(r.started_at),
        finished_at_iso: isoTimeOrNull(r.finished_at),
      })),
      differences,
    };
  }

  /** UTXO chains: the recorded unspent outputs against the provider's, differences stored under `id`. */
  private async outputs(target: TreasuryNetwork, id: string): Promise<{ addresses: number; requests: number; differences: number }> {
    const byAddress = await this.recorded(target);
    let requests = 0;
    let differences = 0;
    const all = [...byAddress.keys()];
    const batch = this.deps.treasuryConfig.reconcileBatch;
    for (let at = 0; at < all.length; at += batch) {
      const chunk = all.slice(at, at + batch);
      requests += 1;
      const seen = await target.treasury.unspentAt(chunk);
      const found = compare(chunk, byAddress, seen);
      if (found.length > 0) {
        await sqlQuery(
          this.deps.db,
          sql`insert into treasury_reconciliation_differences (reconciliation_id, chain, network, address, project_id, tx_hash, output_index, kind, gateway_units, provider_units)
              select ${id}, ${target.chain}, ${target.network}, d.address, d.project_id, d.tx_hash, d.output_index, d.kind, d.gateway_units::numeric, d.provider_units::numeric
                from ${jsonRecords(found.map((d) => ({ ...d, project_id: byAddress.get(d.address)![0]!.projectId })))}
                  as d(address text, project_id text, tx_hash text, output_index int, kind text, gateway_units text, provider_units text)`,
        );
        differences += found.length;
      }
    }
    return { addresses: byAddress.size, requests, differences };
  }

  /** Unspent outputs in a block the watchers recorded (attested or not), by address. */
  private async recorded(target: TreasuryNetwork): Promise<Map<string, ReceivedOutput[]>> {
    const byAddress = new Map<string, ReceivedOutput[]>();
    const query = { chain: target.chain, network: target.network, spent: 'unspent', inBlockOnly: true } as const;
    for await (const output of eachOutput(this.deps.watchersOutputs, query)) byAddress.set(output.address, [...(byAddress.get(output.address) ?? []), output]);
    return byAddress;
  }
}

/** Differences between the recorded outputs of `addresses` and the provider's, confirmed ones only. */
export function compare(
  addresses: readonly string[],
  recorded: ReadonlyMap<string, readonly ReceivedOutput[]>,
  seen: ReadonlyMap<string, readonly ProviderOutput[]>,
): ReconciliationDifference[] {
  const found: ReconciliationDifference[] = [];
  for (const address of addresses) {
    const ours = new Map((recorded.get(address) ?? []).map((o) => [`${o.txHash}:${o.outputIndex}`, o]));
    const theirs = new Map((seen.get(address) ?? []).filter((o) => o.blockHeight !== null).map((o) => [`${o.txHash}:${o.outputIndex}`, o]));
    for (const [key, o] of ours) {
      const p = theirs.get(key);
      if (!p)
        found.push({
          address,
          tx_hash: o.txHash,
          output_index: o.outputIndex,
          kind: 'missing_at_provider',
          gateway_units: o.amountUnits.toString(),
          provider_units: null,
        });
      else if (p.amountUnits !== o.amountUnits) {
        found.push({
          address,
          tx_hash: o.txHash,
          output_index: o.outputIndex,
          kind: 'amount_differs',
          gateway_units: o.amountUnits.toString(),
          provider_units: p.amountUnits.toString(),
        });
      }
    }
    for (const [key, p] of theirs) {
      if (!ours.has(key))
        found.push({
          address,
          tx_hash: p.txHash,
          output_index: p.outputIndex,
          kind: 'unknown_to_gateway',
          gateway_units: null,
          provider_units: p.amountUnits.toString(),
        });
    }
  }
  return found;
}
