import type { ChainId } from '@gw/kernel';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { BalanceRow, ReceivedOutput, ReceivedOutputs } from '@gw/plugin-watchers/contract';
import type { TreasuryPlans } from './treasury-plans.js';
import { scopeProjects, type TreasuryScope } from './treasury-scope.js';

/** A balance row at the edge: base units as decimal strings. */
export interface BalanceView {
  readonly chain: string;
  readonly network: string;
  readonly coin: string;
  readonly project_id: string | null;
  readonly address: string | null;
  readonly confirmed_units: string;
  readonly unconfirmed_units: string;
  readonly outputs: number;
  /** Orphans and late payments among them: money that belongs to no paid invoice. */
  readonly unclaimed_units: string;
}

/** An output behind a balance. */
export interface OutputView {
  readonly tx_hash: string;
  readonly output_index: number;
  readonly chain: string;
  readonly network: string;
  readonly coin: string;
  readonly project_id: string;
  readonly address: string;
  readonly amount_units: string;
  readonly block_height: number | null;
  readonly invoice_id: string | null;
  /** `invoice | late | orphan | ambiguous`; anything but `invoice` is money no paid invoice claims. */
  readonly match: string;
  readonly unclaimed: boolean;
  readonly received_at_iso: string;
  readonly spent_by: string | null;
  /** The open plan that holds it, if any. */
  readonly plan_id: string | null;
}

/**
 * Balances (issue 35 item 1) over the watchers' received outputs, confined to the projects the
 * caller reaches: per address, per project or per chain network, with the outputs behind them.
 */
export class TreasuryBalances {
  constructor(private readonly deps: { watchersOutputs: ReceivedOutputs; tenancyProjects: ProjectService; treasuryPlans: TreasuryPlans }) {}

  async balances(
    query: { groupBy: 'address' | 'project' | 'network'; chain?: ChainId; network?: string; projectId?: string; limit: number; after?: string },
    scope: TreasuryScope,
  ): Promise<{ rows: BalanceView[]; next: string | null }> {
    const reach = await scopeProjects(this.deps.tenancyProjects, scope);
    if (query.projectId && reach && !reach.has(query.projectId)) return { rows: [], next: null };
    const base = {
      ...(query.chain ? { chain: query.chain } : {}),
      ...(query.network ? { network: query.network } : {}),
      ...(query.projectId ? { projectId: query.projectId } : {}),
    };
    // A caller that reaches some projects only reads them in one grouped query, so a page is full
    // and a sum per network costs one read whatever the number of projects.
    const page = await this.deps.watchersOutputs.balances({
      ...base,
      ...(reach && !query.projectId ? { projectIds: [...reach] } : {}),
      groupBy: query.groupBy,
      limit: query.limit,
      ...(query.after ? { after: query.after } : {}),
    });
    return { rows: page.rows.map(balanceView), next: page.next };
  }

  /** The unspent outputs of a network (optionally one project or address), oldest first, with the plan holding each. */
  async outputs(
    query: { chain: ChainId; network: string; projectId?: string; address?: string; limit: number; after?: string },
    scope: TreasuryScope,
  ): Promise<{ outputs: OutputView[]; next: string | null }> {
    const reach = await scopeProjects(this.deps.tenancyProjects, scope);
    if (query.projectId && reach && !reach.has(query.projectId)) return { outputs: [], next: null };
    const page = await this.deps.watchersOutputs.list({
      chain: query.chain,
      network: query.network,
      ...(query.projectId ? { projectId: query.projectId } : {}),
      ...(query.address ? { addresses: [query.address] } : {}),
      limit: query.limit,
      ...(query.after ? { after: query.after } : {}),
    });
    const visible = page.outputs.filter((o) => !reach || reach.has(o.projectId));
    const held = await this.deps.treasuryPlans.heldBy(query, visible);
    return { outputs: visible.map((o) => outputView(o, held.get(`${o.txHash}:${o.outputIndex}`) ?? null)), next: page.next };
  }
}

function balanceView(row: BalanceRow): BalanceView {
  return {
    chain: row.chain,
    network: row.network,
    coin: row.coin,
    project_id: row.projectId ?? null,
    address: row.address ?? null,
    confirmed_units: row.confirmedUnits.toString(),
    unconfirmed_units: row.unconfirmedUnits.toString(),
    outputs: row.outputs,
    unclaimed_units: row.unclaimedUnits.toString(),
  };
}

export function outputView(o: ReceivedOutput, planId: string | null): OutputView {
  return {
    tx_hash: o.txHash,
    output_index: o.outputIndex,
    chain: o.chain,
    network: o.network,
    coin: o.coin,
    project_id: o.projectId,
    address: o.address,
    amount_units: o.amountUnits.toString(),
    block_height: o.blockHeight,
    invoice_id: o.invoiceId,
    match: o.match,
    unclaimed: o.match !== 'invoice',
    received_at_iso: o.receivedAt.toISOString(),
    spent_by: o.spentBy,
    plan_id: planId,
  };
}
