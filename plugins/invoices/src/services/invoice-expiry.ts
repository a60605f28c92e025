import type { Knex } from 'knex';
import type { Actor } from '@gw/plugin-tenancy';
import { Invoice } from '../models/invoice.js';
import type { InvoiceStatus } from '../invoice-status.js';
import type { InvoiceTransitions } from './invoice-transitions.js';

/** Statuses an invoice leaves for `expired` once `expires_at` passes (decisions.md, "Watchers"). */
export const EXPIRING_STATUSES: readonly InvoiceStatus[] = ['pending', 'partial', 'ambiguous'];

const SYSTEM_ACTOR: Actor = { actor: 'invoice-expiry', channel: 'system' };

/**
 * Time-based expiry: invoices still waiting for money (pending, partial, ambiguous) whose
 * `expires_at` has passed become `expired` with `invoice.expired`, through the transition seam (the
 * address goes into cooldown). A `detected` invoice is left alone: its payment was seen and is
 * counted when it confirms; a payment after expiry is a late payment.
 */
export class InvoiceExpiry {
  constructor(private readonly deps: { db: Knex; invoicesTransitions: InvoiceTransitions }) {}

  /** Expires up to `limit` due invoices, oldest deadline first; returns how many. Safe to run on several instances. */
  async expireDue(now: Date = new Date(), limit = 500): Promise<number> {
    const due = await Invoice.query(this.deps.db).whereIn('status', EXPIRING_STATUSES).where('expires_at', '<=', now).orderBy('expires_at').limit(limit).select('id', 'project_id', 'status');
    let expired = 0;
    for (const invoice of due) {
      const applied = await this.deps.db.transaction(async (trx) => {
        // Another instance (or a payment) may have moved it since the select: recheck under the lock.
        const current = await Invoice.query(trx).findById(invoice.id).forUpdate().select('status', 'expires_at');
        if (!current || !EXPIRING_STATUSES.includes(current.status) || current.expires_at > now) return false;
        await this.deps.invoicesTransitions.apply({ projectId: invoice.project_id, invoiceId: invoice.id, from: EXPIRING_STATUSES, to: 'expired', event: 'invoice.expired', actor: SYSTEM_ACTOR, details: { expires_at: current.expires_at } }, trx);
        return true;
      });
      if (applied) expired++;
    }
    return expired;
  }
}
