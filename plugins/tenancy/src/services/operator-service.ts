import { type Actor, type AuditLog, isUniqueViolation, newId, sql, sqlQuery } from '@gw/kernel';
import type { Knex } from 'knex';
import { tenancyErrors } from '../errors.js';
import { Operator } from '../models/operator.js';

export interface OperatorView {
  id: string;
  name: string;
  subscription_status: 'active' | 'expired';
  created_at_iso: string;
}

export function operatorView(operator: Operator): OperatorView {
  return {
    id: operator.id,
    name: operator.name,
    subscription_status: operator.subscription_status,
    created_at_iso: new Date(operator.created_at).toISOString(),
  };
}

/** Operators and their subscription status (billing terms are out of scope; only the status matters). */
export class OperatorService {
  constructor(private readonly deps: { db: Knex; audit: AuditLog }) {}

  async create(name: string, actor: Actor): Promise<OperatorView> {
    try {
      return await this.deps.db.transaction(async (trx) => {
        const existing = await Operator.query(trx).findOne({ name });
        if (existing) throw tenancyErrors.operator_exists();
        const operator = await Operator.query(trx).insertAndFetch({ id: newId(), name, subscription_status: 'active' });
        await this.deps.audit.record({ ...actor, action: 'operator.create', target: `operator:${operator.id}`, details: { name } }, trx);
        return operatorView(operator);
      });
    } catch (error) {
      // A concurrent create of the same name got past the check first.
      if (isUniqueViolation(error, 'name')) throw tenancyErrors.operator_exists();
      throw error;
    }
  }

  async list(): Promise<OperatorView[]> {
    return (await Operator.query(this.deps.db).orderBy('id')).map(operatorView);
  }

  /** Finds by id or name. */
  async find(idOrName: string, trx?: Knex.Transaction): Promise<Operator> {
    const operator = await Operator.query(trx ?? this.deps.db)
      .where('id', idOrName)
      .orWhere('name', idOrName)
      .first();
    if (!operator) throw tenancyErrors.operator_not_found({ message: `No operator "${idOrName}".` });
    return operator;
  }

  /**
   * The operator a new project belongs to: the named one; else the only one; else a `default`
   * operator created on the spot (so a fresh install needs no ceremony).
   */
  async resolveForNewProject(idOrName: string | undefined, trx: Knex.Transaction, actor: Actor): Promise<Operator> {
    if (idOrName) return this.find(idOrName, trx);
    // Concurrent first projects of a fresh install must agree on one implicit operator.
    await sqlQuery(trx, sql`select pg_advisory_xact_lock(hashtextextended(${'tenancy:implicit-operator'}, 0))`);
    const operators = await Operator.query(trx).orderBy('id').limit(2);
    if (operators.length === 1) return operators[0]!;
    if (operators.length > 1) throw tenancyErrors.operator_required();
    const operator = await Operator.query(trx).insertAndFetch({ id: newId(), name: 'default', subscription_status: 'active' });
    await this.deps.audit.record({ ...actor, action: 'operator.create', target: `operator:${operator.id}`, details: { name: 'default', implicit: true } }, trx);
    return operator;
  }

  async setSubscription(idOrName: string, status: 'active' | 'expired', actor: Actor): Promise<OperatorView> {
    return this.deps.db.transaction(async (trx) => {
      const operator = await this.find(idOrName, trx);
      const updated = await Operator.query(trx).patchAndFetchById(operator.id, { subscription_status: status, updated_at: new Date() });
      await this.deps.audit.record({ ...actor, action: 'subscription.set', target: `operator:${operator.id}`, details: { status } }, trx);
      return operatorView(updated);
    });
  }
}
