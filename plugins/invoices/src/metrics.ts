import { Counter, type Registry } from 'prom-client';
import type { Knex } from 'knex';

/**
 * `gateway_invoice_transitions_total{from,to}`: invoice status changes committed by this process
 * (`new` → `pending` for a creation), counted once their transaction commits: a rolled-back change
 * is not counted. Statuses are a closed set, so the series stay bounded.
 */
export type TransitionCounter = Counter<'from' | 'to'>;

export function createTransitionCounter(registry: Registry): TransitionCounter {
  return new Counter({
    name: 'gateway_invoice_transitions_total',
    help: 'Invoice status changes committed by this process, by from and to status (from "new" for a creation).',
    labelNames: ['from', 'to'],
    registers: [registry],
  });
}

/** Counts `changes` when `trx` commits (knex's `executionPromise`), at once without one. */
export function countWhenCommitted(counter: TransitionCounter, trx: Knex.Transaction | undefined, changes: readonly { from: string; to: string }[]): void {
  if (changes.length === 0) return;
  const record = () => {
    for (const change of changes) counter.inc(change);
  };
  const committed = (trx as (Knex.Transaction & { executionPromise?: Promise<unknown> }) | undefined)?.executionPromise;
  if (committed) committed.then(record, () => undefined);
  else record();
}
