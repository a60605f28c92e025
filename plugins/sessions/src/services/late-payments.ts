import { type Actor, isAppError, type ProjectKind, ulidFloor } from '@gw/kernel';
import type { InvoiceService } from '@gw/plugin-invoices/contract';
import type { OrphanInbox } from '@gw/plugin-watchers/contract';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { lateExternalId, lateExternalIdPrefix } from './external-ids.js';

/** How long after a pick its abandoned address is still looked at for late payments (the pool's cooldown is shorter). */
export const LATE_PAYMENT_WINDOW_DAYS = 30;

/** How far a block's time may lie before the pick it pays (chains' block times are only roughly the clock's). */
const BLOCK_TIME_SKEW_MS = 2 * 3600 * 1000;

/** Invoices read per page when looking for an address's next allocation. */
const NEXT_PAGE = 100;

/** The actor of the attributions (audit channel `system`). */
const LATE_ACTOR: Actor = { actor: 'checkout-sessions', channel: 'system' };

interface AbandonedAddress {
  readonly invoice_id: string;
  readonly session_id: string;
  readonly project_id: string;
  readonly project_kind: ProjectKind;
  readonly address: string;
  readonly created_at: Date;
}

/**
 * Late payments to abandoned addresses (issue 38): when the payer switched coin, the session's
 * previous invoice was cancelled, and a payment that still reaches its address matches no invoice:
 * the watchers keep it as an orphan receipt. This pass asks the watchers for the unattributed
 * orphans at the addresses of the sessions' cancelled invoices and attributes each to its session
 * (`cs_<session>_late_<n>`): a new paid invoice, which the invoice observer then credits to the
 * session as a late payment. A receipt below its chain's confirmation threshold waits for a later pass.
 *
 * A receipt is the session's only when the gateway first saw it (the orphan's id, a ULID made when
 * the watchers recorded it) at or after the pick that gave out the address, and before the address
 * was given to any later invoice of the project (the invoices at that address, read through the
 * invoices service; the pool hands addresses out only to invoices). Anything else may be someone
 * else's payment and is left in the orphan inbox for the merchant.
 */
export class LatePayments {
  constructor(private readonly deps: { db: Knex; invoicesService: InvoiceService; watchersOrphans: OrphanInbox; logger: Logger }) {}

  /** One pass; answers how many payments were credited. */
  async run(): Promise<number> {
    const abandoned = (await this.deps.db
      .from('sessions_invoices as i')
      .join('sessions_sessions as s', 's.id', 'i.session_id')
      .where('i.status', 'cancelled')
      .where('i.created_at', '>', this.deps.db.raw(`now() - make_interval(days => ?)`, [LATE_PAYMENT_WINDOW_DAYS]))
      .orderBy('i.created_at')
      .select('i.invoice_id', 'i.session_id', 'i.project_id', 's.project_kind', 'i.address', 'i.created_at')) as AbandonedAddress[];
    const byProject = new Map<string, AbandonedAddress[]>();
    for (const row of abandoned) byProject.set(row.project_id, [...(byProject.get(row.project_id) ?? []), row]);
    let credited = 0;
    for (const [projectId, rows] of byProject) {
      const orphans = await this.deps.watchersOrphans.unattributedAt(
        projectId,
        rows.map((r) => r.address),
      );
      const nextAllocations = new Map<string, string | null>();
      for (const orphan of orphans) {
        const paidAt = Date.parse(orphan.received_at_iso) + BLOCK_TIME_SKEW_MS;
        // The pick whose address it was when the gateway first saw the receipt (and its block is not older than the pick).
        const owner = rows
          .filter(
            (r) => r.address === orphan.to_address && orphan.id >= ulidFloor(new Date(r.created_at).getTime()) && new Date(r.created_at).getTime() <= paidAt,
          )
          .pop();
        if (!owner) continue;
        if (!nextAllocations.has(owner.invoice_id)) nextAllocations.set(owner.invoice_id, await this.nextAllocation(owner));
        const next = nextAllocations.get(owner.invoice_id)!;
        if (next !== null && orphan.id >= next) continue;
        if (await this.attribute(owner, orphan)) credited += 1;
      }
    }
    return credited;
  }

  /**
   * The id (ULID, made when it was created) of the first invoice of the project given the
   * abandoned address after the pick, null when none was; the session's own late payments, created
   * at that address by attribution, are not allocations.
   */
  private async nextAllocation(owner: AbandonedAddress): Promise<string | null> {
    const ownLate = lateExternalIdPrefix(owner.session_id);
    let next: string | null = null;
    let cursor: string | undefined;
    for (;;) {
      const page = await this.deps.invoicesService.list(owner.project_id, {
        address: owner.address,
        date_from: new Date(owner.created_at).toISOString(),
        limit: NEXT_PAGE,
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const invoice of page.items) if (invoice.id > owner.invoice_id && !invoice.external_id.startsWith(ownLate)) next = invoice.id;
      if (!page.next_cursor) return next;
      cursor = page.next_cursor;
    }
  }

  private async attribute(owner: AbandonedAddress, orphan: { tx_hash: string; tx_output_index: number; to_address: string }): Promise<boolean> {
    const taken = (await this.deps.db('sessions_invoices').where({ session_id: owner.session_id, kind: 'late' }).max('seq as seq').first()) as
      { seq: number | null } | undefined;
    let seq = (taken?.seq ?? 0) + 1;
    for (let attempt = 0; attempt < 3; attempt++, seq++) {
      try {
        await this.deps.watchersOrphans.attribute(
          { id: owner.project_id, kind: owner.project_kind },
          orphan.tx_hash,
          {
            external_id: lateExternalId(owner.session_id, seq),
            to_address: orphan.to_address,
            tx_output_index: orphan.tx_output_index,
            metadata: { checkout_session_id: owner.session_id },
          },
          LATE_ACTOR,
        );
        return true;
      } catch (error) {
        if (!isAppError(error)) throw error;
        // The number is another late payment's (a concurrent pass, or a partner's attribution): the next one.
        if (error.code === 'external_id_conflict') continue;
        // Not confirmed enough yet (a later pass), or attributed meanwhile by someone else.
        if (['orphan_not_confirmed', 'orphan_already_attributed', 'orphan_not_found'].includes(error.code)) return false;
        throw error;
      }
    }
    this.deps.logger.warn({ session_id: owner.session_id, tx_hash: orphan.tx_hash }, 'sessions: a late payment kept meeting used external ids');
    return false;
  }
}
