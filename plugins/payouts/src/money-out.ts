import { fromBaseUnits, sql, sqlQuery, toBaseUnits, withUnitsColumns, type Cradle } from '@gw/kernel';
import type { MoneyOutRow } from './contract.js';

/** One project's books for a period: what came in, what went out. */
export interface MoneyOutRange {
  readonly projectId: string;
  /** At or after. */
  readonly from: Date;
  /** Before. */
  readonly to: Date;
}

/** A sum per kind and coin (decimal and base units). */
export interface MoneyTotal {
  readonly kind: string;
  readonly chain: string;
  readonly coin: string;
  readonly amount: string;
  readonly amount_units: string;
}

/** Money in (confirmed received by the project's invoices created in the period) beside money out (by kind). */
export interface MoneyBooks {
  readonly money_in: readonly MoneyTotal[];
  readonly money_out: readonly MoneyTotal[];
}

const COLUMNS: readonly (keyof MoneyOutRow)[] = [
  'at_iso',
  'kind',
  'project_id',
  'chain',
  'network',
  'coin',
  'amount',
  'amount_units',
  'item_id',
  'plan_id',
  'txid',
];

interface CompletedItem {
  id: string;
  project_id: string;
  kind: 'refund' | 'payout';
  chain: string;
  network: string;
  coin: string;
  amount_units: bigint;
  plan_id: string | null;
  txid: string | null;
  completed_at: Date;
}

/**
 * Money out of one project for accounting (issue 37 item 8), beside the invoices' money in:
 * refunds and payouts (completed items, with their plan and transaction), and from the treasury's
 * export of confirmed plans (`treasuryMovedOut`), sweeps and other plans' moves (what they spent of
 * the project's outputs less the fee share paid from it) and every plan's network fee share, the
 * payout plans' included (their value is the items', not repeated, and their change to the
 * project's own change address, listed as a sweep). Sweeps to an own address are listed too: they
 * leave the pool addresses the books count as held. So one project's books
 * balance: received = held + refunds + payouts + sweeps + network fees.
 */
export class MoneyOut {
  constructor(private readonly deps: Pick<Cradle, 'db' | 'chains' | 'treasuryMovedOut' | 'invoicesExporter'>) {}

  /** Every row of money out in the range, oldest first. */
  async rows(range: MoneyOutRange): Promise<MoneyOutRow[]> {
    const items = (
      await sqlQuery<object>(
        this.deps.db,
        sql`select id, project_id, kind, chain, network, coin, amount_units, plan_id, txid, completed_at
              from payouts_items
             where project_id = ${range.projectId} and status = 'completed' and completed_at >= ${range.from} and completed_at < ${range.to}
             order by completed_at, id`,
      )
    ).map((r) => withUnitsColumns<CompletedItem>(r, ['amount_units']));
    const rows: MoneyOutRow[] = items.map((item) =>
      this.row(item.kind, item.project_id, item.chain, item.network, item.coin, item.amount_units, item.completed_at, item.id, item.plan_id, item.txid),
    );
    for (const moved of await this.deps.treasuryMovedOut.rows(range, { projectId: range.projectId })) {
      const at = new Date(moved.confirmed_at_iso);
      const txid = moved.txid === '' ? null : moved.txid;
      const fee = BigInt(moved.fee_units);
      const feeCoin = this.feeCoin(moved.chain, moved.coin);
      // What a plan spent of the project's outputs pays its fee share too (when the fee is in the same coin): the sweep is the rest.
      let moves = BigInt(moved.value_units) - (feeCoin === moved.coin ? fee : 0n);
      // A payout plan's value is its items' (listed above) and its change, back to the project's own change address: a move like a sweep's to `own`.
      if (moved.kind === 'payout') moves -= await this.paidBy(moved.plan_id, moved.project_id);
      if (moves > 0n) {
        rows.push(this.row('sweep', moved.project_id, moved.chain, moved.network, moved.coin, moves, at, null, moved.plan_id, txid));
      }
      if (fee > 0n) rows.push(this.row('network_fee', moved.project_id, moved.chain, moved.network, feeCoin, fee, at, null, moved.plan_id, txid));
    }
    return rows.sort((a, b) => (a.at_iso === b.at_iso ? 0 : a.at_iso < b.at_iso ? -1 : 1));
  }

  /** The books of the range: money in per coin, money out per kind and coin. */
  async books(range: MoneyOutRange): Promise<MoneyBooks> {
    const moneyIn = new Map<string, { chain: string; coin: string; units: bigint }>();
    for await (const invoice of this.deps.invoicesExporter.invoices({ projectId: range.projectId, from: range.from, to: new Date(range.to.getTime() - 1) })) {
      const decimals = this.deps.chains.storedCoin(invoice.coin).decimals;
      const units = toBaseUnits(invoice.received_crypto, decimals);
      if (units === 0n) continue;
      const sum = moneyIn.get(invoice.coin) ?? { chain: invoice.chain, coin: invoice.coin, units: 0n };
      sum.units += units;
      moneyIn.set(invoice.coin, sum);
    }
    const moneyOut = new Map<string, { kind: string; chain: string; coin: string; units: bigint }>();
    for (const row of await this.rows(range)) {
      const key = `${row.kind} ${row.coin}`;
      const sum = moneyOut.get(key) ?? { kind: row.kind, chain: row.chain, coin: row.coin, units: 0n };
      sum.units += BigInt(row.amount_units);
      moneyOut.set(key, sum);
    }
    const total = (kind: string, s: { chain: string; coin: string; units: bigint }): MoneyTotal => ({
      kind,
      chain: s.chain,
      coin: s.coin,
      amount: fromBaseUnits(s.units, this.deps.chains.storedCoin(s.coin).decimals),
      amount_units: s.units.toString(),
    });
    return {
      money_in: [...moneyIn.values()].map((s) => total('received', s)),
      money_out: [...moneyOut.values()].map((s) => total(s.kind, s)),
    };
  }

  /** The rows as CSV (RFC 4180, a header line). */
  static csv(rows: readonly MoneyOutRow[]): string {
    const cell = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
    return [COLUMNS.join(','), ...rows.map((row) => COLUMNS.map((c) => cell(String(row[c] ?? ''))).join(','))].join('\r\n') + '\r\n';
  }

  private row(
    kind: MoneyOutRow['kind'],
    projectId: string,
    chain: string,
    network: string,
    coin: string,
    units: bigint,
    at: Date,
    itemId: string | null,
    planId: string | null,
    txid: string | null,
  ): MoneyOutRow {
    return {
      kind,
      project_id: projectId,
      chain,
      network,
      coin,
      amount: fromBaseUnits(units, this.deps.chains.storedCoin(coin).decimals),
      amount_units: units.toString(),
      item_id: itemId,
      plan_id: planId,
      txid,
      at_iso: new Date(at).toISOString(),
    };
  }

  /** What the items a payout plan pays for a project amount to. */
  private async paidBy(planId: string, projectId: string): Promise<bigint> {
    const [row] = await sqlQuery<{ paid: string | null }>(
      this.deps.db,
      sql`select sum(amount_units)::text as paid from payouts_items where plan_id = ${planId} and project_id = ${projectId}`,
    );
    return BigInt(row?.paid ?? '0');
  }

  /** A plan's fee is paid in its chain's native coin (a token plan's too); the plan's coin when the chain is not enabled. */
  private feeCoin(chain: string, coin: string): string {
    if (!this.deps.chains.has(chain)) return coin;
    return this.deps.chains.get(chain).definition.coins.find((c) => c.contracts === undefined)?.id ?? coin;
  }
}

declare module '@gw/kernel' {
  interface Cradle {
    /** Money out beside money in, per project and period (the accounting export). */
    readonly payoutsMoneyOut: MoneyOut;
  }
}
