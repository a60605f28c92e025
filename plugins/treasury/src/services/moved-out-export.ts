import { sql, sqlQuery, withUnitsColumns } from '@gw/kernel';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import { recipientsOf } from '../models/plan.js';
import { scopeProjects, type TreasuryScope } from './treasury-scope.js';

/** Money moved out, one row per confirmed plan and project whose outputs it spent. */
export interface MovedOutRow {
  readonly plan_id: string;
  readonly confirmed_at_iso: string;
  readonly chain: string;
  readonly network: string;
  readonly coin: string;
  readonly kind: string;
  readonly txid: string;
  readonly project_id: string;
  /** What the plan spent of this project's outputs. */
  readonly value_units: string;
  /** This project's share of the fee, in proportion to its value (the remainder to the plan's last project). */
  readonly fee_units: string;
  readonly destination: string;
  readonly destination_kind: 'own' | 'external';
  /** Account chains (issue 36): how the plan moved it (native, gas_top_up, eip7702, ...; activation); empty for UTXO plans. */
  readonly method: string;
  /**
   * Kind `payout` (refunds and payouts, issue 37): what its recipients received. On UTXO chains the
   * rest of `value_units` less the fee came back as change to `destination`. Empty for other kinds.
   */
  readonly paid_units: string;
}

const COLUMNS: readonly (keyof MovedOutRow)[] = [
  'plan_id',
  'confirmed_at_iso',
  'chain',
  'network',
  'coin',
  'kind',
  'txid',
  'project_id',
  'value_units',
  'fee_units',
  'destination',
  'destination_kind',
  'method',
  'paid_units',
];

/**
 * The accounting export of money moved out (issue 35 item 6): every plan confirmed in a range, per
 * project, with its share of the fee. Sweeps to an own address move money within the account;
 * their fee is still spent. Account-chain plans (issue 36) too: what each project's addresses gave,
 * with the method and the plan's fees (the operator accounts' included).
 */
export class MovedOutExport {
  constructor(private readonly deps: { db: Knex; tenancyProjects: ProjectService }) {}

  async rows(range: { from: Date; to: Date }, scope: TreasuryScope): Promise<MovedOutRow[]> {
    const reach = await scopeProjects(this.deps.tenancyProjects, scope);
    const read = await sqlQuery<object>(
      this.deps.db,
      // UTXO plans spend outputs; account plans (issue 36) move what addresses hold, in several
      // transactions (their ids are on the plan's steps), their fees all paid by the plan.
      sql`select * from (
            select p.id as plan_id, p.confirmed_at, p.chain, p.network, p.coin, p.kind, p.txid, p.destination, p.destination_kind,
                   p.fee_units, p.value_units as plan_units, i.project_id, sum(i.amount_units) as value_units, '' as method, p.context
              from treasury_plans p join treasury_plan_inputs i on i.plan_id = p.id
             where p.status = 'confirmed' and p.confirmed_at >= ${range.from} and p.confirmed_at < ${range.to}
             group by p.id, i.project_id
            union all
            select p.id, p.confirmed_at, p.chain, p.network, p.coin, p.kind, '' as txid, p.destination, p.destination_kind,
                   p.fee_units, p.value_units, a.project_id, sum(a.amount_units), p.method, p.context
              from treasury_plans p join treasury_plan_addresses a on a.plan_id = p.id
             where p.method is not null and p.status = 'confirmed' and p.confirmed_at >= ${range.from} and p.confirmed_at < ${range.to}
             group by p.id, a.project_id
            union all
            -- A payout from the operator's funding account holds no pool address: it is its project's.
            select p.id, p.confirmed_at, p.chain, p.network, p.coin, p.kind, '' as txid, p.destination, p.destination_kind,
                   p.fee_units, p.value_units, p.context ->> 'project_id', p.value_units, p.method, p.context
              from treasury_plans p
             where p.method is not null and p.kind = 'payout' and p.status = 'confirmed' and p.confirmed_at >= ${range.from} and p.confirmed_at < ${range.to}
               and not exists (select 1 from treasury_plan_addresses a where a.plan_id = p.id)
            union all
            -- A plan failed after a stage went out: what its deposit addresses' confirmed transactions
            -- moved, with the fees of its transactions included in a block.
            select f.id, f.confirmed_at, f.chain, f.network, f.coin, f.kind, '' as txid, f.destination, f.destination_kind,
                   f.fee_units, sum(f.value_units) over (partition by f.id), f.project_id, f.value_units, f.method, f.context
              from (
                select p.id, max(s.confirmed_at) as confirmed_at, p.chain, p.network, p.coin, p.kind, p.destination, p.destination_kind, p.method, p.context,
                       (select coalesce(sum(x.fee_units), 0) from treasury_plan_steps x
                         where x.plan_id = p.id and x.kind = 'transaction' and x.block_height is not null and x.status in ('confirmed', 'failed')) as fee_units,
                       a.project_id, sum(coalesce((s.moves ->> p.coin)::numeric, 0)) as value_units
                  from treasury_plans p join treasury_plan_steps s on s.plan_id = p.id
                  join treasury_plan_addresses a on a.plan_id = p.id and a.address = s.signer_address
                 where p.method is not null and p.status = 'failed' and s.signer_kind = 'deposit' and s.kind = 'transaction' and s.status = 'confirmed'
                 group by p.id, a.project_id
              ) f
             where f.confirmed_at >= ${range.from} and f.confirmed_at < ${range.to}
          ) moved
          order by confirmed_at, plan_id, project_id`,
    );
    const rows = read.map((r) =>
      withUnitsColumns<{
        plan_id: string;
        confirmed_at: Date;
        chain: string;
        network: string;
        coin: string;
        kind: string;
        txid: string;
        destination: string;
        destination_kind: 'own' | 'external';
        fee_units: bigint;
        plan_units: bigint;
        project_id: string;
        value_units: bigint;
        method: string;
        context: Record<string, string | number | boolean> | null;
      }>(r, ['fee_units', 'plan_units', 'value_units']),
    );
    const shares = feeShares(rows);
    const out: MovedOutRow[] = [];
    rows.forEach((row, n) => {
      if (reach && !reach.has(row.project_id)) return;
      out.push({
        plan_id: row.plan_id,
        confirmed_at_iso: new Date(row.confirmed_at).toISOString(),
        chain: row.chain,
        network: row.network,
        coin: row.coin,
        kind: row.kind,
        txid: row.txid,
        project_id: row.project_id,
        value_units: row.value_units.toString(),
        fee_units: shares[n]!.toString(),
        destination: row.destination,
        destination_kind: row.destination_kind,
        method: row.method,
        paid_units: row.kind === 'payout' ? paidUnits(row) : '',
      });
    });
    return out;
  }

  /** The rows as CSV (RFC 4180, a header line). */
  static csv(rows: readonly MovedOutRow[]): string {
    const cell = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
    return [COLUMNS.join(','), ...rows.map((row) => COLUMNS.map((c) => cell(String(row[c]))).join(','))].join('\r\n') + '\r\n';
  }
}

/** What a payout row's recipients received: all of them (a UTXO plan), or those of its confirmed row. */
function paidUnits(row: { method: string; value_units: bigint; context: Record<string, string | number | boolean> | null }): string {
  // Account payouts move exactly the recipients' amounts (each step its recipient's).
  if (row.method !== '') return row.value_units.toString();
  return recipientsOf({ context: row.context })
    .reduce((sum, r) => sum + BigInt(r.units), 0n)
    .toString();
}

/**
 * Each row's share of its plan's fee, rows of one plan adjacent: in proportion to the row's value,
 * rounded down, the remainder to the plan's last row, so the shares of a plan add up to its fee.
 */
export function feeShares(rows: readonly { plan_id: string; fee_units: bigint; plan_units: bigint; value_units: bigint }[]): bigint[] {
  const shares: bigint[] = [];
  let given = 0n;
  rows.forEach((row, n) => {
    const last = rows[n + 1]?.plan_id !== row.plan_id;
    const share = last ? row.fee_units - given : row.plan_units > 0n ? (row.fee_units * row.value_units) / row.plan_units : 0n;
    shares.push(share);
    given = last ? 0n : given + share;
  });
  return shares;
}
