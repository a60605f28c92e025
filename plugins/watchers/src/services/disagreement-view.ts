import type { Disagreement } from './disagreement-desk.js';

/** `txHash` → `tx_hash`: a camelCase name in snake_case. */
type SnakeCase<Name extends string> = Name extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : Name;

/**
 * A disagreement between providers as the CLI prints it (`--json`) and the dashboard reads it:
 * the fields of {@link Disagreement} in snake_case, instants as ISO text, and whether it is ripe.
 */
export type DisagreementView = {
  readonly [Field in keyof Disagreement as SnakeCase<Field>]: Disagreement[Field] extends Date
    ? string
    : Disagreement[Field] extends Date | null
      ? string | null
      : Disagreement[Field];
} & {
  /** Open, and `decide_after` has passed: the operator may accept or reject it now. */
  readonly ripe: boolean;
};

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
    kind: d.kind,
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
