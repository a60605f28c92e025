import { groupBy, newId, ProviderError, sql, sqlQuery, type AuditLog, type ObservedTransfer, type Sql, type WatchedAddresses } from '@gw/kernel';
import type { InvoiceLifecycle, PolicyService } from '@gw/plugin-invoices/contract';
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
  /** Its open disagreement, if any, what each provider said when last asked, and the last check's answers if they would mark the reporters. */
  readonly disagreement_id: string | null;
  readonly last: Readonly<Record<Exclude<AttestationAnswer, 'unavailable'>, readonly string[]>>;
  readonly mark_verdict: string | null;
  /** Never asked before: this verification is the first at its threshold. */
  readonly unasked: boolean;
  /** Asked first more than `disagreementDecisionSeconds` ago. */
  readonly overdue: boolean;
  /** Confirmations that make it count (its invoice's threshold, else its project's for the chain; at least 1). */
  readonly depth: number;
}

/** Why a disagreement opened (`watchers_disagreements.kind`; see `Disagreement.kind`). */
type DisagreementKind = 'contradiction' | 'out_of_reach' | 'unattested';

/** The longest a disagreement waits between two checks (its backoff doubles from the scan interval). */
const MAX_RECHECK_SECONDS = 3600;

/**
 * The trust rule (issue 40; docs/watchers.md, "The quorum"): on a network whose quorum is above 1, a
 * transfer counts toward paid only once `quorum` providers of different operators report the same
 * transaction output (hash, index, address, coin, amount) in the block of the same hash, each with
 * its own tip at the transfer's threshold depth. Until then the confirmation counter holds it one
 * confirmation short of its threshold, and the treasury does not count it as confirmed.
 *
 * Runs in the scan pass's transaction, after the pass's transfers are recorded and before
 * confirmations are counted, so a payment found already deep settles in the pass that attests it.
 * Every in-block transfer of the network is attested, whatever matching made of it (invoice, late,
 * orphan, ambiguous, dust: the treasury may spend each). Each unmarked provider is asked on its
 * own (its `Attestor`): its tip once per verification, then, when deep enough, the transfer
 * (`transactionIn`) or its block with only the transfers' addresses watched. Providers of an
 * operator that already reported are not asked, nor anyone once the quorum is reached.
 *
 * Only what the unmarked providers answer now decides: a `denied` or `other_branch` answer while
 * the quorum is not reached opens a disagreement (`contradiction`), or updates the open one; so
 * does a transfer that cannot reach the quorum because marked providers leave fewer operators than
 * it (`out_of_reach`), and one that waited `disagreementDecisionSeconds` since it was first asked
 * without reaching it (`unattested`: a provider lagging or failing for good). The invoice waits,
 * asked again at each pass with a backoff doubling from the scan interval up to an hour; the
 * disagreement closes `resolved` if the quorum is reached later, and is the operator's to decide
 * once the transfer has waited `disagreementDecisionSeconds` since it was first asked.
 *
 * Reporters are marked (passed over by the scan pool, not asked and not counted, until the operator
 * clears the mark) when two checks in a row give the same answers, each with every unmarked operator
 * answering (none lagging nor failing), somebody denying, none but the reporters having the
 * transfer, and the denying operators at least as many as the reporting ones. A provider that
 * denies what others report can only delay a payment, never credit one (safety over liveness);
 * with two operators it can get an honest reporter marked, which the operator sees and clears.
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
      invoicesPolicies: PolicyService;
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
    const firstAsked = waiting.filter((t) => t.unasked).map((t) => t.id);
    if (firstAsked.length > 0) {
      await sqlQuery(trx, sql`update watchers_transfers set attestation_asked_at = now() where id = any(${firstAsked}::text[])`);
    }

    const marked = await markedProviders(trx, chain, network);
    const attestors = target.attestors!.filter((a) => !marked.has(a.endpoint.name));
    const operators = new Set(attestors.map((a) => a.operator));
    // Marks leave fewer operators than the quorum: no transfer can be attested until a mark is cleared, and each waits on the operator's desk.
    const unreachable = operators.size < quorum;
    const answers = new Map<string, Map<Attestor, AttestationAnswer>>(waiting.map((t) => [t.id, new Map()]));
    const operatorsAnswering = (t: Waiting, kinds: readonly AttestationAnswer[]) =>
      new Set([...answers.get(t.id)!].filter(([, a]) => kinds.includes(a)).map(([p]) => p.operator));
    for (const attestor of attestors) {
      const asking = waiting.filter((t) => {
        const reporting = operatorsAnswering(t, ['reported']);
        return reporting.size < quorum && !reporting.has(attestor.operator);
      });
      if (asking.length === 0) continue;
      for (const [id, answer] of await this.ask(attestor, asking)) {
        answers.get(id)!.set(attestor, answer);
        this.deps.watchersMetrics.attestations.inc({ chain, network, provider: attestor.endpoint.name, answer });
      }
    }

    const log = this.deps.logger.child({ component: 'watcher', chain, network });
    const decisionSeconds = this.deps.watchersConfig.disagreementDecisionSeconds;
    let attested = 0;
    let disagreements = 0;
    const markedNow: string[] = [];
    for (const t of waiting) {
      const given = answers.get(t.id)!;
      // What the unmarked providers answered now: the only answers that decide anything.
      const now = (kinds: readonly AttestationAnswer[]) => [...given].filter(([, a]) => kinds.includes(a)).map(([p]) => p.endpoint.name);
      const fresh = { reported: now(['reported']), denied: now(['denied']), otherBranch: now(['other_branch']) };
      // On record for the operator: those answers, and the last one of each provider not asked now (a marked one's too).
      const asked = new Set([...given.keys()].map((p) => p.endpoint.name));
      const kept = (before: readonly string[]) => before.filter((name) => !asked.has(name));
      const lists = {
        reported: [...kept(t.last.reported), ...fresh.reported],
        denied: [...kept(t.last.denied), ...fresh.denied],
        otherBranch: [...kept(t.last.other_branch), ...fresh.otherBranch],
        lagging: [...kept(t.last.lagging), ...now(['lagging', 'unavailable'])],
      };
      const reporting = operatorsAnswering(t, ['reported']);
      if (reporting.size >= quorum) {
        attested++;
        await sqlQuery(
          trx,
          sql`update watchers_transfers set attestation = 'quorum', attested_at = now(), attested_by = ${fresh.reported}::text[], updated_at = now() where id = ${t.id}`,
        );
        if (t.disagreement_id !== null) {
          await sqlQuery(trx, updateLists(t.disagreement_id, lists, sql`status = 'resolved', closed_at = now(),`));
          log.info({ disagreement_id: t.disagreement_id, tx_hash: t.tx_hash, reported_by: lists.reported }, 'providers agree now: disagreement resolved');
        }
        continue;
      }
      const contradicted = fresh.denied.length + fresh.otherBranch.length > 0;
      if (!contradicted && !unreachable && !t.overdue && t.disagreement_id === null) continue;
      disagreements++;
      // Every unmarked operator answered (none lagging nor failing), somebody denies, none but the reporters has it, and
      // the deniers are at least as many operators as the reporters: what marks the reporters if the next check says it again.
      const settled = operators.size === operatorsAnswering(t, ['reported', 'denied', 'other_branch']).size;
      const markable = contradicted && settled && reporting.size > 0 && operatorsAnswering(t, ['denied', 'other_branch']).size >= reporting.size;
      const verdict = markable ? verdictOf(fresh) : null;
      const backoff = sql`next_check_at = now() + make_interval(secs => least(${MAX_RECHECK_SECONDS}, ${target.scanIntervalSeconds} * power(2, least(checks, 12)))),`;
      const progress = sql`${backoff} mark_verdict = ${verdict},`;
      let disagreementId = t.disagreement_id;
      if (disagreementId === null) {
        disagreementId = newId();
        const kind: DisagreementKind = contradicted ? 'contradiction' : unreachable ? 'out_of_reach' : 'unattested';
        // The operator decides once the transfer has waited the decision time since it was first asked: at once for `unattested`.
        await sqlQuery(
          trx,
          sql`insert into watchers_disagreements (id, chain, network, transfer_id, project_id, invoice_id, coin, tx_hash, output_index, to_address, amount_units,
                                                  block_height, block_hash, kind, decide_after, next_check_at)
              select ${disagreementId}, ${chain}, ${network}, ${t.id}, ${t.project_id}, ${t.invoice_id}, ${t.coin}, ${t.tx_hash}, ${t.output_index}, ${t.to_address},
                     ${t.amount_units}::numeric, ${t.block_height}, ${t.block_hash}, ${kind},
                     greatest(now(), w.attestation_asked_at + make_interval(secs => ${decisionSeconds}::int)), now()
                from watchers_transfers w where w.id = ${t.id}`,
        );
        await sqlQuery(trx, updateLists(disagreementId, lists, sql`checks = 1, ${progress}`));
        log.warn(
          {
            disagreement_id: disagreementId,
            kind,
            tx_hash: t.tx_hash,
            output_index: t.output_index,
            block_height: t.block_height,
            invoice_id: t.invoice_id,
            ...lists,
            ...(unreachable ? { marked: [...marked] } : {}),
          },
          kind === 'contradiction'
            ? 'providers disagree about a transfer at its confirmation threshold: it does not count until they agree or the operator decides'
            : kind === 'out_of_reach'
              ? 'marked providers leave fewer operators than the quorum: the transfer does not count until a mark is cleared or the operator decides'
              : 'the quorum has not attested a transfer within the decision time (a provider lagging or failing): it does not count until it does or the operator decides',
        );
      } else {
        await sqlQuery(trx, updateLists(disagreementId, lists, sql`checks = checks + 1, ${progress}`));
      }
      // One check never marks anyone: the same answers again, after the backoff, do.
      if (verdict === null || verdict !== t.mark_verdict) continue;
      for (const provider of fresh.reported) {
        const reason = `reported ${t.tx_hash}:${t.output_index} (${t.amount_units} ${t.coin} to ${t.to_address}) in block ${t.block_height} ${t.block_hash}, which ${[...fresh.denied, ...fresh.otherBranch].join(', ')} do not have`;
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
    return { asked: waiting.length, attested, disagreements, marked: markedNow };
  }

  /**
   * The network's in-block transfers that wait for their attestation and have reached their
   * threshold on the scanning provider, whatever matching made of them: an invoice's payment (early
   * or late) at its invoice's threshold, an orphan, ambiguous or dust receipt at its project's
   * threshold for the chain (the chain's default unless the project set one; for an orphan, the
   * one attribution asks for). An open disagreement is asked about again only once its backoff has
   * passed.
   */
  private async ripe(trx: Knex.Transaction, target: ScanTarget, head: number): Promise<Waiting[]> {
    const chain = target.adapter.definition.id;
    const rows = await sqlQuery<
      Omit<Waiting, 'depth' | 'block_height' | 'last'> & {
        block_height: string;
        due: boolean | null;
        reported_by: string[] | null;
        denied_by: string[] | null;
        other_branch: string[] | null;
        lagging: string[] | null;
      }
    >(
      trx,
      sql`select w.id, w.project_id, w.invoice_id, w.coin, w.tx_hash, w.output_index, w.to_address, w.amount_units::text as amount_units,
                 w.block_height, w.block_hash, w.attestation_asked_at is null as unasked,
                 coalesce(w.attestation_asked_at <= now() - make_interval(secs => ${this.deps.watchersConfig.disagreementDecisionSeconds}::int), false) as overdue,
                 d.id as disagreement_id, d.next_check_at <= now() as due, d.mark_verdict,
                 d.reported_by, d.denied_by, d.other_branch, d.lagging
            from watchers_transfers w
            left join watchers_disagreements d on d.transfer_id = w.id and d.status = 'open'
           where w.chain = ${chain} and w.network = ${target.network} and w.status = 'in_block' and w.attested_at is null and w.block_height <= ${head}
           order by w.block_height, w.id`,
    );
    const due = rows.filter((r) => r.due !== false);
    const thresholds = await this.deps.invoicesLifecycle.confirmationThresholds(
      trx,
      due.flatMap((r) => (r.invoice_id === null ? [] : [r.invoice_id])),
    );
    const projects = [...new Set(due.filter((r) => r.invoice_id === null || !thresholds.has(r.invoice_id)).map((r) => r.project_id))];
    const policies = projects.length === 0 ? new Map() : await this.deps.invoicesPolicies.getMany(projects, trx);
    const projectDepth = (projectId: string) => Math.max(policies.get(projectId)?.confirmations[chain] ?? target.adapter.definition.defaultConfirmations, 1);
    return due.flatMap(({ due: _due, reported_by, denied_by, other_branch, lagging, ...r }) => {
      const depth = (r.invoice_id === null ? undefined : thresholds.get(r.invoice_id)) ?? projectDepth(r.project_id);
      const height = Number(r.block_height);
      const last = { reported: reported_by ?? [], denied: denied_by ?? [], other_branch: other_branch ?? [], lagging: lagging ?? [] };
      return head - height + 1 >= depth ? [{ ...r, block_height: height, depth, last }] : [];
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
      try {
        const found = attestor.watcher.transactionIn ? await this.byTransaction(attestor, height, deep) : await this.byBlock(attestor, height, deep);
        for (const [id, answer] of found) answers.set(id, answer);
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        for (const t of deep) answers.set(t.id, 'unavailable');
      }
    }
    return answers;
  }

  /** The provider's answers from the block at `height` read through it alone, restricted to the transfers' addresses. */
  private async byBlock(attestor: Attestor, height: number, deep: readonly Waiting[]): Promise<Map<string, AttestationAnswer>> {
    const block = (await attestor.watcher.scan(height, height, onlyAddresses(deep.map((t) => t.to_address)))).find((b) => b.height === height);
    if (!block) throw new ProviderError('malformed', attestor.endpoint.name, `scan ${height}..${height} returned no block ${height}`);
    return new Map(
      deep.map(
        (t) => [t.id, block.hash !== t.block_hash ? 'other_branch' : block.transfers.some((seen) => sameTransfer(seen, t)) ? 'reported' : 'denied'] as const,
      ),
    );
  }

  /**
   * The provider's answers from each transaction asked on its own (`transactionIn`: one Esplora
   * request instead of a whole block's pages). A transaction it has in no block is a denial where
   * its block at `height` is ours, and another branch where it is not.
   */
  private async byTransaction(attestor: Attestor, height: number, deep: readonly Waiting[]): Promise<Map<string, AttestationAnswer>> {
    const answers = new Map<string, AttestationAnswer>();
    let ours: boolean | undefined;
    for (const [txHash, ofTx] of groupBy(deep, (t) => t.tx_hash)) {
      const found = await attestor.watcher.transactionIn!(txHash, ofTx[0]!.block_hash, onlyAddresses(ofTx.map((t) => t.to_address)));
      if (found && (found.height !== height || found.blockHash !== ofTx[0]!.block_hash)) {
        for (const t of ofTx) answers.set(t.id, 'other_branch');
        continue;
      }
      if (!found) ours ??= (await attestor.watcher.blockHash(height)) === ofTx[0]!.block_hash;
      for (const t of ofTx) {
        answers.set(t.id, found ? (found.transfers.some((seen) => sameTransfer(seen, t)) ? 'reported' : 'denied') : ours ? 'denied' : 'other_branch');
      }
    }
    return answers;
  }
}

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

/** The answers of one check that would mark the reporters, as one comparable text (`watchers_disagreements.mark_verdict`). */
function verdictOf(answers: { readonly reported: readonly string[]; readonly denied: readonly string[]; readonly otherBranch: readonly string[] }): string {
  const names = (list: readonly string[]) => [...list].sort().join(',');
  return `reported:${names(answers.reported)};denied:${names(answers.denied)};other_branch:${names(answers.otherBranch)}`;
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
