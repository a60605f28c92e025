import { type Actor, type AuditLog, coreErrors, sql, sqlQuery, isoTime } from '@gw/kernel';
import type { InvoiceLifecycle } from '@gw/plugin-invoices/contract';
import type { Knex } from 'knex';
import { watchersErrors } from '../errors.js';
import { scanLockWithin } from './scan-lock.js';
import type { ConfirmationCounter } from './confirmation-counter.js';
import type { Disagreement, DisagreementDesk, DisagreementKind, DisagreementStatus, ProviderMark } from './disagreement-desk.js';
import type { WatcherRegistry } from './watcher-registry.js';

interface DisagreementRow {
  id: string;
  chain: string;
  network: string;
  kind: DisagreementKind;
  transfer_id: string;
  project_id: string;
  invoice_id: string | null;
  coin: string;
  tx_hash: string;
  output_index: number;
  to_address: string;
  amount_units: string;
  block_height: string;
  block_hash: string;
  reported_by: string[];
  denied_by: string[];
  other_branch: string[];
  lagging: string[];
  status: DisagreementStatus;
  opened_at: Date;
  decide_after: Date;
  decided_at: Date | null;
  decided_by: string | null;
  reason: string | null;
}

/** Most disagreements one `list` answers. */
const MAX_LIST = 500;
/** Longest reason kept (the audit log's details stay small). */
const MAX_REASON = 1000;

/**
 * The `DisagreementDesk` over the quorum's tables (issue 40): the disagreements the
 * `QuorumVerifier` opens, the operator's decisions on them, and the provider marks.
 *
 * A decision takes the network's scan lock (every writer of `watchers_transfers` holds it), so it
 * never races a pass over the same transfer; it waits for a running pass a few seconds at most
 * (`scanLockWithin`: `network_scan_busy` after that, a paced pass may take a minute). `accept` attests the transfer `operator` and counts
 * the network's confirmations at once (the invoice settles now if the count allows, as a pass
 * would); `reject` turns the transfer `reverted` for good (`rejected_at`: no rescan revives it, no
 * balance counts it) and its invoice hears `payment_dropped`. Both, and `unmark`, are audited with
 * the operator as actor (`watcher.disagreement_accept`, `watcher.disagreement_reject`,
 * `watcher.provider_unmark`).
 */
export class Disagreements implements DisagreementDesk {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      watchersRegistry: WatcherRegistry;
      watchersCounter: ConfirmationCounter;
      invoicesLifecycle: InvoiceLifecycle;
    },
  ) {}

  async list(
    filter: { readonly status?: DisagreementStatus; readonly chain?: string; readonly network?: string; readonly limit?: number } = {},
  ): Promise<Disagreement[]> {
    const limit = Math.min(Math.max(1, Math.floor(filter.limit ?? 100)), MAX_LIST);
    const rows = await sqlQuery<DisagreementRow>(
      this.deps.db,
      sql`select * from watchers_disagreements
           where true
             ${filter.status === undefined ? sql`` : sql`and status = ${filter.status}`}
             ${filter.chain === undefined ? sql`` : sql`and chain = ${filter.chain}`}
             ${filter.network === undefined ? sql`` : sql`and network = ${filter.network}`}
           order by id desc
           limit ${limit}`,
    );
    return rows.map(view);
  }

  async get(id: string): Promise<Disagreement> {
    const [row] = await sqlQuery<DisagreementRow>(this.deps.db, sql`select * from watchers_disagreements where id = ${id}`);
    if (!row) throw watchersErrors.disagreement_not_found();
    return view(row);
  }

  async decide(id: string, decision: 'accept' | 'reject', actor: Actor, reason: string): Promise<Disagreement> {
    const why = reason.trim();
    if (why === '')
      throw coreErrors.validation_error({ message: 'Give the reason for the decision; it is kept in the audit log.', details: { field: 'reason' } });
    if (why.length > MAX_REASON)
      throw coreErrors.validation_error({ message: `The reason is longer than ${MAX_REASON} characters.`, details: { field: 'reason' } });
    return this.deps.db.transaction(async (trx) => {
      const [found] = await sqlQuery<{ chain: string; network: string }>(trx, sql`select chain, network from watchers_disagreements where id = ${id}`);
      if (!found) throw watchersErrors.disagreement_not_found();
      // The scan lock first, then the row: the order a pass takes them in (the verifier writes the row under the lock).
      await scanLockWithin(trx, found.chain, found.network);
      const [row] = await sqlQuery<DisagreementRow & { ripe: boolean }>(
        trx,
        sql`select *, decide_after <= now() as ripe from watchers_disagreements where id = ${id} for update`,
      );
      if (row!.status !== 'open') throw watchersErrors.disagreement_closed({ details: { status: row!.status } });
      if (!row!.ripe) {
        throw watchersErrors.disagreement_not_ripe({
          message: `The providers may still agree: this disagreement can be decided from ${isoTime(row!.decide_after)} on (plugins.watchers.disagreementDecisionSeconds after it opened).`,
          details: { decide_after_iso: isoTime(row!.decide_after) },
        });
      }
      const d = row!;
      if (decision === 'accept') {
        await sqlQuery(
          trx,
          sql`update watchers_transfers set attestation = 'operator', attested_at = now(), attested_by = ${d.reported_by}::text[], updated_at = now()
               where id = ${d.transfer_id}`,
        );
        const [cursor] = await sqlQuery<{ head_height: string | null }>(
          trx,
          sql`select head_height from watchers_cursors where chain = ${d.chain} and network = ${d.network}`,
        );
        // Counted at once, as the next pass would: the invoice settles now if its count allows.
        if (cursor?.head_height != null) {
          const quorum = Math.max(this.deps.watchersRegistry.get(d.chain, d.network)?.quorum ?? 2, 2);
          await this.deps.watchersCounter.count(trx, d.chain, d.network, Number(cursor.head_height), undefined, quorum);
        }
      } else {
        await sqlQuery(
          trx,
          sql`update watchers_transfers set status = 'reverted', rejected_at = now(), final_at = null, confirmations = 0, updated_at = now() where id = ${d.transfer_id}`,
        );
        if (d.invoice_id !== null) {
          await this.deps.invoicesLifecycle.revertPayments(
            trx,
            [{ invoiceId: d.invoice_id, txHash: d.tx_hash, outputIndex: d.output_index }],
            'dropped',
            actor,
            { reason: why, disagreement_id: d.id },
          );
        }
      }
      const [decided] = await sqlQuery<DisagreementRow>(
        trx,
        sql`update watchers_disagreements
               set status = ${decision === 'accept' ? 'accepted' : 'rejected'}, decided_at = now(), decided_by = ${actor.actor}, reason = ${why}, closed_at = now()
             where id = ${id}
         returning *`,
      );
      await this.deps.audit.record(
        {
          ...actor,
          action: `watcher.disagreement_${decision}`,
          projectId: d.project_id,
          target: `disagreement:${d.id}`,
          details: {
            chain: d.chain,
            network: d.network,
            tx_hash: d.tx_hash,
            output_index: d.output_index,
            to_address: d.to_address,
            amount_units: d.amount_units,
            invoice_id: d.invoice_id,
            block_height: Number(d.block_height),
            reported_by: d.reported_by,
            denied_by: d.denied_by,
            other_branch: d.other_branch,
            reason: why,
          },
        },
        trx,
      );
      return view(decided!);
    });
  }

  async marks(filter: { readonly chain?: string; readonly network?: string } = {}): Promise<ProviderMark[]> {
    const rows = await sqlQuery<{ chain: string; network: string; provider: string; reason: string; disagreement_id: string | null; marked_at: Date }>(
      this.deps.db,
      sql`select * from watchers_provider_marks
           where true
             ${filter.chain === undefined ? sql`` : sql`and chain = ${filter.chain}`}
             ${filter.network === undefined ? sql`` : sql`and network = ${filter.network}`}
           order by marked_at desc, chain, network, provider`,
    );
    return rows.map((r) => ({
      chain: r.chain,
      network: r.network,
      provider: r.provider,
      reason: r.reason,
      disagreementId: r.disagreement_id,
      markedAt: new Date(r.marked_at),
    }));
  }

  async unmark(chain: string, network: string, provider: string, actor: Actor): Promise<void> {
    await this.deps.db.transaction(async (trx) => {
      const [cleared] = await sqlQuery<{ reason: string; disagreement_id: string | null; marked_at: Date }>(
        trx,
        sql`delete from watchers_provider_marks where chain = ${chain} and network = ${network} and provider = ${provider}
         returning reason, disagreement_id, marked_at`,
      );
      if (!cleared) throw watchersErrors.provider_not_marked({ details: { chain, network, provider } });
      await this.deps.audit.record(
        {
          ...actor,
          action: 'watcher.provider_unmark',
          projectId: null,
          target: `provider:${chain}:${network}:${provider}`,
          details: {
            chain,
            network,
            provider,
            reason: cleared.reason,
            disagreement_id: cleared.disagreement_id,
            marked_at_iso: isoTime(cleared.marked_at),
          },
        },
        trx,
      );
    });
  }
}

function view(row: DisagreementRow): Disagreement {
  return {
    id: row.id,
    chain: row.chain,
    network: row.network,
    kind: row.kind,
    coin: row.coin,
    txHash: row.tx_hash,
    outputIndex: row.output_index,
    toAddress: row.to_address,
    amountUnits: String(row.amount_units),
    invoiceId: row.invoice_id,
    projectId: row.project_id,
    blockHeight: Number(row.block_height),
    blockHash: row.block_hash,
    reportedBy: row.reported_by,
    deniedBy: row.denied_by,
    otherBranch: row.other_branch,
    lagging: row.lagging,
    status: row.status,
    openedAt: new Date(row.opened_at),
    decideAfter: new Date(row.decide_after),
    decidedAt: row.decided_at === null ? null : new Date(row.decided_at),
    decidedBy: row.decided_by,
    reason: row.reason,
  };
}
