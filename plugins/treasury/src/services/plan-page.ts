import type { Knex } from 'knex';
import { Plan } from '../models/plan.js';
import { PlanAddress } from '../models/plan-address.js';
import { PlanInput } from '../models/plan-input.js';
import type { PlanStatus } from '../plan-status.js';
import type { TreasuryScope } from './treasury-scope.js';

/** Which plans a list asks for: at most `limit`, after the id `after` (the previous page's `next`). */
export interface PlanFilter {
  readonly status?: PlanStatus;
  readonly chain?: string;
  readonly network?: string;
  readonly limit: number;
  readonly after?: string;
}

/** A list request's filter from the query of a plans route (the absent parameters left out). */
export function planFilterOf(query: {
  limit: number;
  status?: PlanStatus | undefined;
  chain?: string | undefined;
  network?: string | undefined;
  after?: string | undefined;
}): PlanFilter {
  return {
    limit: query.limit,
    ...(query.status ? { status: query.status } : {}),
    ...(query.chain ? { chain: query.chain } : {}),
    ...(query.network ? { network: query.network } : {}),
    ...(query.after ? { after: query.after } : {}),
  };
}

/**
 * One page of plans newest first, keyed by id: UTXO plans (no method) or account plans (a
 * method), only those whose every input (UTXO) or address (account) is in the projects of
 * `reach` (null: all); a plan without any (a sweeper deployment) only for its own operator's token,
 * never a project-bound one. `next` continues after the page, null on the last one.
 */
export async function planPage(
  db: Knex,
  kind: 'utxo' | 'account',
  filter: PlanFilter,
  reach: ReadonlySet<string> | null,
  scope: TreasuryScope,
): Promise<{ page: Plan[]; next: string | null }> {
  const query = Plan.query(db)
    .orderBy('id', 'desc')
    .limit(filter.limit + 1);
  if (kind === 'utxo') query.whereNull('method');
  else query.whereNotNull('method');
  if (filter.status) query.where('status', filter.status);
  if (filter.chain) query.where('chain', filter.chain);
  if (filter.network) query.where('network', filter.network);
  if (filter.after) query.where('id', '<', filter.after);
  if (reach) {
    const owners = kind === 'utxo' ? PlanInput.tableName : PlanAddress.tableName;
    query.whereNotExists(
      db(owners)
        .where(`${owners}.plan_id`, db.ref('treasury_plans.id'))
        .whereNotIn(`${owners}.project_id`, [...reach]),
    );
    const owned = db(owners).where(`${owners}.plan_id`, db.ref('treasury_plans.id'));
    if (scope.projectId) query.whereExists(owned);
    else query.where((q) => q.whereExists(owned).orWhere('operator_id', scope.operatorId ?? null));
  }
  const rows = await query;
  const page = rows.slice(0, filter.limit);
  return { page, next: rows.length > filter.limit ? page[page.length - 1]!.id : null };
}
