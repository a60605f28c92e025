import type { ExecutionContext } from 'ava';
import type { CliRun } from '@gw/testing';

/** Where a payout batch is made from: the project, its network and coin, and the operator account that pays. */
export interface BatchSource {
  readonly projectId: string;
  readonly chain: string;
  readonly network: string;
  readonly coin: string;
  readonly source: string;
}

/**
 * Approves each payout item with the operator CLI as the administrator `admin`, then batches the
 * approved items of `from` into a plan (`payout batch --json`); each run is asserted to exit 0.
 * Answers the batch run (its `json` holds `plan_id` and the items).
 */
export async function approveAndBatch(
  t: ExecutionContext,
  cli: (...argv: string[]) => Promise<CliRun>,
  admin: string,
  items: readonly { readonly id: string }[],
  from: BatchSource,
): Promise<CliRun> {
  for (const item of items) {
    const approved = await cli('payout', 'approve', '--id', item.id, '--as', admin, '--json');
    t.is(approved.code, 0, approved.stdout + approved.stderr);
  }
  const { projectId, chain, network, coin, source } = from;
  const batch = await cli('payout', 'batch', '--project', projectId, '--chain', chain, '--network', network, '--coin', coin, '--source', source, '--json');
  t.is(batch.code, 0, batch.stdout + batch.stderr);
  return batch;
}
