import type { Disagreement, DisagreementStatus } from './disagreement-desk.js';

/** A disagreement between providers as the CLI prints it (`--json`) and the dashboard reads it: snake_case, instants as ISO text. */
export interface DisagreementView {
  readonly id: string;
  readonly status: DisagreementStatus;
  /** Open, and `decide_after` has passed: the operator may accept or reject it now. */
  readonly ripe: boolean;
  readonly chain: string;
  readonly network: string;
  readonly coin: string;
  readonly tx_hash: string;
  readonly output_index: number;
  readonly to_address: string;
  /** Base units, as a decimal string. */
  readonly amount_units: string;
  readonly invoice_id: string | null;
  /** The project of the pool address paid. */
  readonly project_id: string;
  readonly block_height: number;
  readonly block_hash: string;
  readonly reported_by: readonly string[];
  readonly denied_by: readonly string[];
  readonly other_branch: readonly string[];
  readonly lagging: readonly string[];
  readonly opened_at: string;
  readonly decide_after: string;
  readonly decided_at: string | null;
  readonly decided_by: string | null;
  readonly reason: string | null;
}

/** Whether the operator may decide `d` at `now`: it is open and its waiting time is over. */
export function isRipe(d: Pick<Disagreement, 'status' | 'decideAfter'>, now = new Date()): boolean {
  return d.status === 'open' && d.decideAfter.getTime() <= now.getTime();
}

export function disagreementView(d: Disagreement, now = new Date()): DisagreementView {
  return {
    id: d.id,
    status: d.status,
    ripe: isRipe(d, now),
    chain: d.chain,
    network: d.network,
    coin: d.coin,
    tx_hash: d.txHash,
    output_index: d.outputIndex,
    to_address: d.toAddress,
    amount_units: d.amountUnits,
    invoice_id: d.invoiceId,
    project_id: d.projectId,
    block_height: d.blockHeight,
    block_hash: d.blockHash,
    reported_by: d.reportedBy,
    denied_by: d.deniedBy,
    other_branch: d.otherBranch,
    lagging: d.lagging,
    opened_at: d.openedAt.toISOString(),
    decide_after: d.decideAfter.toISOString(),
    decided_at: d.decidedAt?.toISOString() ?? null,
    decided_by: d.decidedBy,
    reason: d.reason,
  };
}

/** The longest reason an operator gives for a decision (the CLI's `--reason`, the dashboard's field): the desk keeps at most as much. */
export const DECISION_REASON_MAX = 1000;
