import { groupBy, newId, ProviderError, sql, sqlQuery, type AuditLog, type ObservedTransfer, type Sql, type WatchedAddresses } from '@gw/kernel';
import type { InvoiceLifecycle } from '@gw/plugin-invoices/contract';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { WatchersConfig } from '../config.js';
import type { WatcherMetrics } from '../metrics.js';
import type { Attestor, ScanTarget } from './chain-scanner.js';
import { WATCHER_ACTOR } from './payment-matcher.js';

/**
 * What one provider said of one transfer: `reported` (the transfer is in the block of the same hash
 * at that height), `denied` (that block, without it), `other_branch` (another block at that
 * height), `lagging` (its tip is not at the threshold depth yet), `unavailable` (it failed).
 * Only `reported` counts toward the quorum; `denied` and `other_branch` contradict; the last two
 * are never held against anyone.
 */
export type AttestationAnswer = 'reported' | 'denied' | 'other_branch' | 'lagging' | 'unavailable';

/** What one verification did. */
export interface VerifyReport {
  /** Transfers at their threshold that the providers were asked about. */
  readonly asked: number;
  /** Of those, attested by the quorum now. */
  readonly attested: number;
  /** Disagreements opened or still open after this verification. */
  readonly disagreements: number;
  /** Providers marked now. */
  readonly marked: readonly string[];
}

/** An in-block transfer waiting for its attestation, at (or past) its threshold. */
interface Waiting {
  readonly id: string;
  readonly project_id: string;
  readonly invoice_id: string | null;
  readonly coin: string;
  readonly tx_hash: string;
  readonly output_index: number;
  readonly to_address: string;
  readonly amount_units: string;
  readonly block_height: number;
  readonly block_hash: string;
  /** Its open disagreement, if any, and what each provider said when last asked. */
  readonly disagreement_id: string | null;
  readonly last: Readonly<Record<Exclude<AttestationAnswer, 'unavailable'>, readonly string[]>>;
  /** Confirmations that make it count (the invoice's threshold, at least 1). */
  readonly depth: number;
}

/** The longest a disagreement waits between two checks (its backoff doubles from the scan interval). */
const MAX_RECHECK_SECONDS = 3600;

/**
 * The trust rule (issue 40; docs/watchers.md, "The quorum"): on a network whose quorum is above 1, a
 * transfer counts toward paid only once `quorum` providers of different operators report the same
 * transaction output (hash, index, address, coin, amount) in the block of the same hash, each with
 * its own tip at the transfer's threshold depth. Until then the confirmation counter holds it one
 * confirmation short of its threshold.
 *
 * Runs in the scan pass's transaction, after the pass's transfers are recorded and before
 * confirmations are counted, so a payment found already deep settles in the pass that attests it.
 * Each unmarked provider is asked on its own (its `Attestor`): its tip once per verification, then,
 * when deep enough, the transfer's block with only the transfers' addresses watched (one `scan` of
 * one block per height). Providers of an operator that already reported are not asked, nor anyone
 * once the quorum is reached.
 *
 * A `denied` or `other_branch` answer while the quorum is not reached opens a disagreement (or
 * updates the open one): the invoice waits, asked again at each pass with a backoff doubling from
 * the scan interval up to an hour, and the disagreement closes `resolved` if the quorum is reached
 * later. Once every unmarked operator has answered one way or the other (none lagging or failing)
 * and none but the reporters has the transfer, the reporters are marked: passed over by the scan
 * pool, not asked and not counted, until the operator clears the mark. A provider that denies
 * what others report can only delay a payment, never credit one (safety over liveness).
 *
 * On a network whose quorum is 1, in-block transfers are attested `single` without any request.
 */
export class QuorumVerifier {
  constructor(
    private readonly deps: {
      logger: Logger;
      audit: AuditLog;
      watchersConfig: WatchersConfig;
      watchersMetrics: WatcherMetrics;
      invoicesLifecycle: InvoiceLifecycle;
    },
  ) {}

  async verify(trx: Knex.Transaction, target: ScanTarget, head: number): Promise<VerifyReport> {
    const chain = target.adapter.definition.id;
    const { network } = target;
    const quorum = target.quorum ?? 1;
    const none: VerifyReport = { asked: 0, attested: 0, disagreements: 0, marked: [] };
    if (quorum <= 1 || (target.attestors ?? []).length === 0) {
      await sqlQuery(
        trx,
        sql`update watchers_transfers set attestation = 'single', attested_at = now()
             where chain = ${chain} and network = ${network} and status = 'in_block' and attested_at is null`,
      );
      return none;
    }
    const waiting = await this.ripe(trx, target, head);
    if (waiting.length === 0) return none;

    const marked = await markedProviders(trx, chain, network);
    const attestors = target.attestors!.filter((a) => !marked.has(a.endpoint.name));
    const answers = new Map<string, Map<Attestor, AttestationAnswer>>(waiting.map((t) => [t.id, new Map()]));
    const reportingOperators = (t: Waiting) => new Set([...answers.get(t.id)!].filter(([, a]) => a === 'reported').map(([p]) => p.operator));
    for (const attestor of attestors) {
      const asking = waiting.filter((t) => {
        const operators = reportingOperators(t);
        return operators.size < quorum && !operators.has(attestor.operator);
      });
      if (asking.length === 0) continue;
      for (const [id, answer] of await this.ask(attestor, asking)) {
        answers.get(id)!.set(attestor, answer);
        this.deps.watchersMetrics.attestations.inc({ chain, network, provider: attestor.endpoint.name, answer });
      }
    }

    const log = this.deps.logger.child({ component: 'watcher', chain, network });
    let attested = 0;
    let disagreements = 0;
    const markedNow: string[] = [];
    for (const t of waiting) {
      const given = answers.get(t.id)!;
      // A provider not asked this time (marked, or its operator had answered) keeps its last answer on record.
      const asked = new Set([...given.keys()].map((p) => p.endpoint.name));
      const named = (kinds: readonly AttestationAnswer[], before: readonly string[]) => [
        ...before.filter((name) => !asked.has(name)),
        ...[...given].filter(([, a]) => kinds.includes(a)).map(([p]) => p.endpoint.name),
      ];
      const lists = {
        reported: named(['reported'], t.last.reported),
        denied: named(['denied'], t.last.denied),
        otherBranch: named(['other_branch'], t.last.other_branch),
        lagging: named(['lagging', 'unavailable'], t.last.lagging),
      };
      if (reportingOperators(t).size >= quorum) {
        attested++;
        await sqlQuery(
          trx,
          sql`update watchers_transfers set attestation = 'quorum', attested_at = now(), attested_by = ${named(['reported'], [])}::text[], updated_at = now() where id = ${t.id}`,
        );
        if (t.disagreement_id !== null) {
          await sqlQuery(trx, updateLists(t.disagreement_id, lists, sql`status = 'resolved', closed_at = now(),`));
          log.info({ disagreement_id: t.disagreement_id, tx_hash: t.tx_hash, reported_by: lists.reported }, 'providers agree now: disagreement resolved');
        }
        continue;
      }
      const contradicted = lists.denied.length + lists.otherBranch.length > 0;
      if (!contradicted && t.disagreement_id === null) continue;
      disagreements++;
      const backoff = sql`next_check_at = now() + make_interval(secs => least(${MAX_RECHECK_SECONDS}, ${target.scanIntervalSeconds} * power(2, least(checks, 12)))),`;
      let disagreementId = t.disagreement_id;
      if (disagreementId === null) {
        disagreementId = newId();
        await sqlQuery(
          trx,
          sql`insert into watchers_disagreements (id, chain, network, transfer_id, project_id, invoice_id, coin, tx_hash, output_index, to_address, amount_units,
                                                  block_height, block_hash, decide_after, next_check_at)
              values (${disagreementId}, ${chain}, ${network}, ${t.id}, ${t.project_id}, ${t.invoice_id}, ${t.coin}, ${t.tx_hash}, ${t.output_index}, ${t.to_address},
                      ${t.amount_units}::numeric, ${t.block_height}, ${t.block_hash},
                      now() + make_interval(secs => ${this.deps.watchersConfig.disagreementDecisionSeconds}::int), now())`,
        );
        await sqlQuery(trx, updateLists(disagreementId, lists, sql`checks = 1, ${backoff}`));
        log.warn(
          {
            disagreement_id: disagreementId,
            tx_hash: t.tx_hash,
            output_index: t.output_index,
            block_height: t.block_height,
            invoice_id: t.invoice_id,
            ...lists,
          },
          'providers disagree about a transfer at its confirmation threshold: it does not count until they agree or the operator decides',
        );
      } else {
        await sqlQuery(trx, updateLists(disagreementId, lists, sql`checks = checks + 1, ${backoff}`));
      }
      // Every unmarked operator answered (none lagging nor failing), and none but the reporters has it.
      const settled = new Set(attestors.map((a) => a.operator)).size === new Set([...given].filter(([, a]) => isDecisive(a)).map(([p]) => p.operator)).size;
      if (contradicted && settled && lists.reported.length > 0) {
        for (const provider of lists.reported) {
          const reason = `reported ${t.tx_hash}:${t.output_index} (${t.amount_units} ${t.coin} to ${t.to_address}) in block ${t.block_height} ${t.block_hash}, which ${[...lists.denied, ...lists.otherBranch].join(', ')} do not have`;
          const inserted = await sqlQuery<{ provider: string }>(
            trx,
            sql`insert into watchers_provider_marks (chain, network, provider, reason, disagreement_id) values (${chain}, ${network}, ${provider}, ${reason}, ${disagreementId})
                on conflict do nothing returning provider`,
          );
          if (inserted.length === 0) continue;
          markedNow.push(provider);
          await this.deps.audit.record(
            {
              ...WATCHER_ACTOR,
              action: 'watcher.provider_mark',
              projectId: null,
              target: `provider:${chain}:${network}:${provider}`,
              details: { chain, network, provider, reason, disagreement_id: disagreementId },
            },
            trx,
          );
          log.warn(
            { provider, disagreement_id: disagreementId, reason },
            'provider marked: passed over and not counted toward the quorum until the operator clears the mark',
          );
        }
      }
    }
    return { asked: waiting.length, attested, disagreements, marked: markedNow };
  }

  /**
   * The network's in-block transfers that wait for their attestation and have reached their
   * threshold on the scanning provider: those of invoices not yet settled (the invoice's
   * threshold), and unattributed orphan or ambiguous receipts (the chain's default threshold:
   * attribution needs them attested too). An open disagreement is asked about again only once its
   * backoff has passed.
   */
  private async ripe(trx: Knex.Transaction, target: ScanTarget, head: number): Promise<Waiting[]> {
    const chain = target.adapter.definition.id;
    const rows = await sqlQuery<
      Omit<Waiting, 'depth' | 'block_height' | 'last'> & {
        block_height: string;
        match: string;
        due: boolean | null;
        reported_by: string[] | null;
        denied_by: string[] | null;
        other_branch: string[] | null;
        lagging: string[] | null;
      }
    >(
      trx,
      sql`select w.id, w.project_id, w.invoice_id, w.match, w.coin, w.tx_hash, w.output_index, w.to_address, w.amount_units::text as amount_units,
                 w.block_height, w.block_hash, d.id as disagreement_id, d.next_check_at <= now() as due,
                 d.reported_by, d.denied_by, d.other_branch, d.lagging
            from watchers_transfers w
            left join watchers_disagreements d on d.transfer_id = w.id and d.status = 'open'
           where w.chain = ${chain} and w.network = ${target.network} and w.status = 'in_block' and w.attested_at is null and w.block_height <= ${head}
             and (w.invoice_id is not null and w.final_at is null or w.invoice_id is null and w.match in ('orphan', 'ambiguous'))
           order by w.block_height, w.id`,
    );
    const due = rows.filter((r) => r.due !== false);
    const thresholds = await this.deps.invoicesLifecycle.confirmationThresholds(
      trx,
      due.flatMap((r) => (r.invoice_id === null ? [] : [r.invoice_id])),
    );
    const chainDepth = Math.max(target.adapter.definition.defaultConfirmations, 1);
    return due.flatMap(({ match: _match, due: _due, reported_by, denied_by, other_branch, lagging, ...r }) => {
      const depth = r.invoice_id === null ? chainDepth : thresholds.get(r.invoice_id);
      const height = Number(r.block_height);
      const last = { reported: reported_by ?? [], denied: denied_by ?? [], other_branch: other_branch ?? [], lagging: lagging ?? [] };
      return depth !== undefined && head - height + 1 >= depth ? [{ ...r, block_height: height, depth, last }] : [];
    });
  }

  /** One provider's answers about `transfers` (its tip once, then one block per height it is deep enough for). */
  private async ask(attestor: Attestor, transfers: readonly Waiting[]): Promise<Map<string, AttestationAnswer>> {
    const answers = new Map<string, AttestationAnswer>();
    let tip: number;
    try {
      tip = (await attestor.watcher.head()).height;
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      for (const t of transfers) answers.set(t.id, 'unavailable');
      return answers;
    }
    for (const [height, group] of groupBy(transfers, (t) => t.block_height)) {
      const deep = group.filter((t) => tip >= height + t.depth - 1);
      for (const t of group) if (!deep.includes(t)) answers.set(t.id, 'lagging');
      if (deep.length === 0) continue;
      let transfersThere: readonly ObservedTransfer[];
      let hash: string;
      try {
        const block = (await attestor.watcher.scan(height, height, onlyAddresses(deep.map((t) => t.to_address)))).find((b) => b.height === height);
        if (!block) throw new ProviderError('malformed', attestor.endpoint.name, `scan ${height}..${height} returned no block ${height}`);
        hash = block.hash;
        transfersThere = block.transfers;
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        for (const t of deep) answers.set(t.id, 'unavailable');
        continue;
      }
      for (const t of deep) {
        answers.set(t.id, hash !== t.block_hash ? 'other_branch' : transfersThere.some((seen) => sameTransfer(seen, t)) ? 'reported' : 'denied');
      }
    }
    return answers;
  }
}

const isDecisive = (answer: AttestationAnswer) => answer === 'reported' || answer === 'denied' || answer === 'other_branch';

function sameTransfer(seen: ObservedTransfer, t: Waiting): boolean {
  return (
    seen.txHash === t.tx_hash &&
    seen.outputIndex === t.output_index &&
    seen.toAddress === t.to_address &&
    seen.coin === t.coin &&
    seen.amountUnits === BigInt(t.amount_units) &&
    seen.blockHash === t.block_hash
  );
}

/** The watched addresses of one attestation: only the transfers' own (a block read for them reports nothing else). */
function onlyAddresses(addresses: readonly string[]): WatchedAddresses {
  const set = new Set(addresses);
  return {
    filter: async (candidates) => new Set(candidates.filter((a) => set.has(a))),
    active: async () => [...set],
  };
}

/** The providers of a network marked now (read in the pass's transaction). */
export async function markedProviders(db: Knex | Knex.Transaction, chain: string, network: string): Promise<Set<string>> {
  const rows = await sqlQuery<{ provider: string }>(db, sql`select provider from watchers_provider_marks where chain = ${chain} and network = ${network}`);
  return new Set(rows.map((r) => r.provider));
}

function updateLists(
  id: string,
  lists: { reported: readonly string[]; denied: readonly string[]; otherBranch: readonly string[]; lagging: readonly string[] },
  more: Sql,
): Sql {
  return sql`update watchers_disagreements
                set ${more} reported_by = ${lists.reported}::text[], denied_by = ${lists.denied}::text[], other_branch = ${lists.otherBranch}::text[],
                    lagging = ${lists.lagging}::text[], checked_at = now()
              where id = ${id}`;
}
