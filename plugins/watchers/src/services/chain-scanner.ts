import {
  createFailureLog,
  expectShape,
  ProviderError,
  sql,
  sqlQuery,
  type ChainAdapter,
  type Sql,
  type ChainWatcher,
  type FailureLog,
  type ObservedTransfer,
  type ProviderEndpoint,
  type ProviderPool,
  type ScannedBlock,
  type SpentOutput,
  type WatchedAddresses,
} from '@gw/kernel';
import { newPass, type InvoiceLifecycle, type PassMemory } from '@gw/plugin-invoices/contract';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { WatchersConfig } from '../config.js';
import type { WatcherMetrics } from '../metrics.js';
import type { ActivationDetector } from './activation-detector.js';
import type { ConfirmationCounter } from './confirmation-counter.js';
import { invoiceTransferKeys } from './invoice-transfer-keys.js';
import { WATCHER_ACTOR, type PaymentMatcher } from './payment-matcher.js';
import { markedProviders, type QuorumVerifier } from './quorum-verifier.js';
import type { ReorgRewinder } from './reorg-rewinder.js';
import type { PoolWatchedAddresses } from './watched-addresses.js';

/** What one scan pass did. */
export interface ScanReport {
  /** False when another instance holds this network's scan lock (nothing was done). */
  readonly ran: boolean;
  readonly from?: number;
  readonly to?: number;
  readonly head?: number;
  readonly transfers: number;
  /** Recorded outputs the pass's blocks spent (UTXO chains; absent when none). */
  readonly spent?: number;
  readonly reorgedTo?: number;
  /** More blocks wait beyond what this pass covered: the next pass should follow at once. */
  readonly behind: boolean;
  readonly error?: string;
  /** The mempool step after the blocks (chains whose providers show a mempool). */
  readonly mempool?: MempoolReport;
  /** Set when the pass did nothing because the network is watched through its public providers only once a pool address waits there, and none does yet. */
  readonly idle?: boolean;
  /**
   * Set when the pass did nothing because the network backs off after failed passes: no pass
   * scans it before this time (`next_scan_at`).
   */
  readonly backoffUntil?: Date;
}

/** What the mempool step of a pass did; its failures never touch block scanning. */
export interface MempoolReport {
  /** Watched addresses asked about (a rotating window for per-address providers). */
  readonly probed: number;
  /** New transfers recorded from the mempool. */
  readonly transfers: number;
  /** Transfers dropped after the mempool timeout. */
  readonly dropped: number;
  readonly error?: string;
}

/** One chain network the scanner works on. */
export interface ScanTarget {
  readonly adapter: ChainAdapter;
  readonly network: string;
  readonly watcher: ChainWatcher;
  /** The watcher's providers: one found behind is passed over, so the next pass asks another. */
  readonly providers?: ProviderPool;
  /**
   * Each provider on its own, for the quorum (issue 40): a transfer counts toward paid once
   * `quorum` of them, of different operators, report it in the same block at the threshold.
   * Absent (tests that build a target by hand): the quorum is 1 and nothing is asked twice.
   */
  readonly attestors?: readonly Attestor[];
  /** Independent providers that must agree before a transfer counts toward paid (1: the scanning provider's word suffices). */
  readonly quorum?: number;
  /** Where the providers come from: the chain's public ones, the config's, or both (`publicProviders: "join"`). */
  readonly origin?: 'public' | 'configured' | 'joined';
  /**
   * Watched through public defaults the config does not name: scanned only once a pool address
   * waits on the network. Until then (no cursor) a pass does nothing (`ScanReport.idle`) and the
   * loop looks again after {@link idlePassSeconds}; the first real pass starts
   * {@link idleLookbackBlocks} below the tip. From then on the network is scanned like any other.
   */
  readonly idleUntilUsed?: boolean;
  /**
   * Which addresses the mempool step asks a per-address provider about: `expecting` (the default)
   * every address an invoice waits on or that is in cooldown after one; `awaiting` only the
   * former, where the providers' requests are budgeted (a `limit`): an address is then probed for
   * the invoice's lifetime instead of its cooldown too, and a late payment is found in its block.
   */
  readonly mempoolScope?: 'expecting' | 'awaiting';
  readonly watched: PoolWatchedAddresses;
  readonly startHeight?: number | undefined;
  /** Pause between two passes once caught up, and the first backoff step (`WatcherRegistry` resolves it). */
  readonly scanIntervalSeconds: number;
}

/** One provider asked on its own: its endpoint, its operator (independence) and a watcher reading through it alone. */
export interface Attestor {
  readonly endpoint: ProviderEndpoint;
  readonly operator: string;
  readonly watcher: ChainWatcher;
}

/** Blocks one pass covers at most (several `scan` calls), so a pass and its transaction stay short. */
const BLOCKS_PER_PASS = 200;

/** Seconds between two looks at an idle network (see {@link idlePassSeconds}). */
export const IDLE_PASS_SECONDS = 60;

/**
 * How often an idle network (`ScanTarget.idleUntilUsed`, no cursor yet, no pool address waiting)
 * is looked at: a fresh install's default networks cost the database one small read a minute each
 * instead of one every scan interval (1 s on bsc). The scan interval where that is longer.
 */
export function idlePassSeconds(target: Pick<ScanTarget, 'scanIntervalSeconds'>): number {
  return Math.max(IDLE_PASS_SECONDS, target.scanIntervalSeconds);
}

/**
 * The blocks an idle network's first pass reads below the tip, the tip included: those the chain
 * makes, at its block time, while the idle loop waits for its next look. A pool address may start
 * waiting, and be paid, just after a look: its first pass then still reads the payment's block.
 */
export function idleLookbackBlocks(target: Pick<ScanTarget, 'adapter' | 'scanIntervalSeconds'>): number {
  return Math.max(1, Math.ceil(idlePassSeconds(target) / (target.adapter.definition.blockTimeSeconds ?? 5)));
}

/** Whether `target`'s requests are paced under a limit (some provider has one): its passes are then capped by time too. */
const isPaced = (target: ScanTarget): boolean => target.providers?.endpoints.some((e) => e.limit !== undefined) ?? false;

/**
 * How many blocks the next scan of a pass reads, and whether the pass has run its time: without a
 * cap (`capMs` Infinity: providers not paced) every scan reads `maxBlocksPerScan` and the pass runs
 * to its block limit. With one, the first scan reads one block (a paced Bitcoin block alone takes
 * minutes), and each later one as many as fit in the time left at the pace the scans so far took,
 * one at least; the pass stops taking scans once `capMs` has passed since it began.
 */
class PassPacing {
  private readonly started = performance.now();
  private blocks = 0;
  private scanMs = 0;

  constructor(
    private readonly capMs: number,
    private readonly maxBlocksPerScan: number,
  ) {}

  nextScanSize(): number {
    if (this.capMs === Infinity) return this.maxBlocksPerScan;
    if (this.blocks === 0) return 1;
    const left = this.capMs - (performance.now() - this.started);
    return Math.max(1, Math.min(this.maxBlocksPerScan, Math.floor((left * this.blocks) / Math.max(this.scanMs, 1))));
  }

  scanned(blocks: number, ms: number): void {
    this.blocks += blocks;
    this.scanMs += ms;
  }

  over(): boolean {
    return performance.now() - this.started >= this.capMs;
  }
}

/**
 * One scan pass of one chain network, in one database transaction under the network's advisory
 * lock (so one scanner per network runs across all instances, and a pass either commits its
 * cursor, blocks, transfers and invoice changes together or not at all: a block is never skipped
 * nor a transfer counted twice).
 *
 * 1. The stored hash at the cursor is compared with the provider's; a difference, or a new
 *    block whose parent is not the stored hash, is a reorg: the common ancestor is searched
 *    downwards (never below the provider's finalized height or `reorgDepth`) and the rewinder
 *    undoes everything above it.
 * 2. Blocks from the cursor up to the head are scanned and their hashes stored; then all their
 *    transfers are matched at once. The outputs each block spends (UTXO chains) are marked spent
 *    in one statement per block (`spent_by`, `spent_height`), and those that the pass itself
 *    found are marked once its transfers are recorded, so an output paid and spent within one
 *    block or pass is spent too.
 * 3. Where the network's quorum is above 1, the transfers that reached their threshold are put to
 *    the providers one by one (`QuorumVerifier`, issue 40); providers marked for reporting what the
 *    others do not have are passed over from the pass's start (read from PostgreSQL, so every
 *    instance passes them over) and are not asked.
 * 4. Confirmations are counted against the head (a transfer not yet attested counts one short of
 *    its threshold), and the invoice changes of 2 to 4 are written together (one
 *    `invoice.partial` per invoice per pass; `PassMemory`).
 *
 * Where the providers are paced (a `limit`), step 2 stops taking further scans once the pass has
 * run `pacedPassSeconds` (after at least one scan): the pass goes on with the blocks it read, commits
 * them and reports itself behind, and the next pass continues from its cursor at once. A paced
 * provider answers a block of Bitcoin in minutes, and the pass's transaction holds the network's
 * lock (an operator's decision waits for it) and is lost whole on a failure: short passes keep
 * both small. No block is skipped: the cursor is the last block read.
 *
 * Provider failures roll the pass back and are counted; the next pass is put off with backoff. A
 * provider whose tip is below the cursor, or that lacks a block it served before, is behind (or
 * lying): a failure too, never a reorg, so a lie undoes no payment and moves no count backwards.
 *
 * Then, after that transaction committed, the mempool step (chains whose providers show one): unmined
 * transfers older than `mempoolTimeoutSeconds` are dropped (their invoices go back to pending), and
 * the mempool is asked about at most `mempoolAddressesPerPass` watched addresses (a window that
 * rotates from pass to pass), whose new transfers are recorded in a short transaction of their own.
 * A failing or rate-limited mempool provider is counted and logged, and never holds up blocks or
 * confirmations.
 */
export class ChainScanner {
  constructor(
    private readonly deps: {
      db: Knex;
      logger: Logger;
      watchersConfig: WatchersConfig;
      watchersMetrics: WatcherMetrics;
      watchersMatcher: PaymentMatcher;
      watchersCounter: ConfirmationCounter;
      watchersRewinder: ReorgRewinder;
      watchersActivation: ActivationDetector;
      watchersQuorum: QuorumVerifier;
      invoicesLifecycle: InvoiceLifecycle;
    },
  ) {
    // A node that stays down fails every pass: logged once with its error, then as counts, then
    // its recovery (the cursor row keeps the authoritative consecutive_failures for the backoff).
    this.scanFailures = createFailureLog(deps.logger, {
      failed: 'scan failed; the same blocks are scanned again after a backoff',
      stillFailing: 'scan still failing',
      recovered: 'scan recovered',
    });
    this.mempoolFailures = createFailureLog(deps.logger, {
      failed: 'mempool probe failed; blocks are scanned regardless, the mempool is asked again next pass',
      stillFailing: 'mempool probe still failing',
      recovered: 'mempool probe recovered',
    });
  }

  private readonly scanFailures: FailureLog;
  private readonly mempoolFailures: FailureLog;

  async pass(target: ScanTarget): Promise<ScanReport> {
    target.watched.forget();
    // An invoice hears at most one invoice.partial for further payments per pass (issue 33,
    // finding 11), whichever of the pass's two steps brings them.
    const memory = newPass();
    const report = await this.blockPass(target, memory).finally(() => target.watched.forget());
    if (!report.ran || report.error !== undefined || report.head === undefined) return report;
    return { ...report, mempool: await this.mempoolPass(target, report.head, memory) };
  }

  private async blockPass(target: ScanTarget, memory: PassMemory): Promise<ScanReport> {
    const chain = target.adapter.definition.id;
    const { network } = target;
    const log = this.deps.logger.child({ component: 'watcher', chain, network });
    const labels = { chain, network };
    let endTimer: ((labels: { outcome: string }) => number) | undefined;
    try {
      const report: ScanReport = await this.deps.db.transaction(async (trx) => {
        const [locked] = await sqlQuery<{ ok: boolean }>(
          trx,
          sql`select pg_try_advisory_xact_lock(hashtextextended(${`watchers:${chain}:${network}`}, 0)) as ok`,
        );
        if (!locked!.ok) return { ran: false, transfers: 0, behind: false };
        const [cursor] = await sqlQuery<{ height: string | number; next_scan_at: Date | null }>(
          trx,
          sql`select height, next_scan_at from watchers_cursors where chain = ${chain} and network = ${network}`,
        );
        if (cursor?.next_scan_at && new Date(cursor.next_scan_at) > new Date())
          return { ran: true, transfers: 0, behind: false, backoffUntil: new Date(cursor.next_scan_at) };
        // A network watched by default costs its public providers nothing until a payment may come;
        // once scanned (a cursor) it stays followed: its pool's outputs are spent, and paid late, there.
        if (!cursor && target.idleUntilUsed && (await target.watched.active()).length === 0) return { ran: true, transfers: 0, behind: false, idle: true };
        endTimer = this.deps.watchersMetrics.passDuration.startTimer(labels);
        // Timed from here: the tip and the reorg check are part of the pass's time.
        const pacing = new PassPacing(isPaced(target) ? this.deps.watchersConfig.pacedPassSeconds * 1000 : Infinity, target.watcher.maxBlocksPerScan);
        // Marked providers come last in the pool from this pass on, on every instance (the marks are in PostgreSQL).
        if (target.providers && target.providers.endpoints.length > 1) target.providers.passOverMarked(await markedProviders(trx, chain, network));

        const head = await target.watcher.head();
        const touched = target.watcher.coverage === 'touched';
        let height: number;
        /** The cursor a network's first pass starts from (the block before `startHeight`, or the tip). */
        let firstCursor: number | undefined;
        let reorgedTo: number | undefined;
        if (!cursor) {
          // Idle until now: the blocks made since the last idle look are read too (idleLookbackBlocks).
          const first = target.startHeight ?? (target.idleUntilUsed ? Math.max(0, head.height - idleLookbackBlocks(target) + 1) : head.height);
          height = Math.min(first, head.height + 1) - 1;
          firstCursor = height;
          await sqlQuery(
            trx,
            sql`insert into watchers_cursors (chain, network, height, head_height, finalized_height) values (${chain}, ${network}, ${height}, ${head.height}, ${head.finalized ?? null})`,
          );
        } else {
          height = Number(cursor.height);
          // A tip below what this network was scanned to is a provider behind (a lagging node
          // behind a balancer) or lying, not a chain that shrank: a reorg replaces blocks, and a
          // shorter branch that wins grows past the cursor, where its different hash is found.
          // Using it would count confirmations backwards; the pass fails and backs off instead.
          if (head.height < height) {
            target.providers?.passOver();
            throw new ProviderError('malformed', '', `provider tip ${head.height} is below the scanned height ${height}: the provider is behind`);
          }
          // A watcher whose head is final (`touched` coverage) has nothing at or below the cursor to reorganise.
          const stored = touched ? undefined : await this.storedHash(trx, chain, network, height);
          if (stored !== undefined && stored !== (await this.providerHash(target, height))) {
            reorgedTo = await this.rewind(trx, target, height, log);
            height = reorgedTo;
          }
        }

        const last = Math.min(head.height, height + BLOCKS_PER_PASS);
        // The pass's transfers are matched together once its blocks are in (one lifecycle command:
        // an invoice paid many times in the pass hears one announcement with the final totals).
        let found: ObservedTransfer[] = [];
        // Spends of outputs the pass itself found (their rows are written with the pass's
        // transfers, below): marked once those are in. Spends of rows stored before are marked block by block.
        let spentInPass: BlockSpend[] = [];
        const foundOutputs = new Set<string>();
        let spent = 0;
        let from = height + 1;
        while (from <= last) {
          const to = Math.min(last, from + pacing.nextScanSize() - 1);
          const scanStarted = performance.now();
          const blocks = await target.watcher.scan(from, to, target.watched);
          pacing.scanned(to - from + 1, performance.now() - scanStarted);
          let expectedParent = touched ? undefined : await this.storedHash(trx, chain, network, from - 1);
          let reorged = false;
          if (touched) checkTouchedBlocks(blocks, from, to);
          for (const block of blocks) {
            if (!touched && expectedParent !== undefined && block.parentHash !== expectedParent) {
              reorgedTo = await this.rewind(trx, target, block.height - 1, log);
              // The provider still has our block below but names another parent: it contradicts
              // itself (e.g. nodes behind a balancer). Rescanning would loop; fail and back off.
              if (reorgedTo >= block.height - 1) {
                throw new ProviderError(
                  'malformed',
                  '',
                  `block ${block.height} names parent ${block.parentHash}, but block ${block.height - 1} is ${expectedParent}`,
                );
              }
              reorged = true;
              // Transfers of the blocks undone were never recorded: they are dropped here and found again in the new branch.
              found = found.filter((t) => t.blockHeight !== null && t.blockHeight <= reorgedTo!);
              spentInPass = spentInPass.filter((s) => s.height <= reorgedTo!);
              foundOutputs.clear();
              for (const t of found) foundOutputs.add(outpointKey(t));
              break;
            }
            await this.recordBlock(trx, target, block);
            found.push(...block.transfers);
            for (const t of block.transfers) foundOutputs.add(outpointKey(t));
            if (block.spends && block.spends.length > 0) {
              const spends = block.spends.map((spend) => ({ ...spend, height: block.height }));
              spent += await markSpends(trx, chain, network, spends);
              // A transaction that pays and one that spends in the same block (or pass) both count.
              spentInPass.push(...spends.filter((spend) => foundOutputs.has(outpointKey(spend))));
            }
            expectedParent = block.hash;
            height = block.height;
          }
          if (reorged) {
            height = reorgedTo!;
            from = height + 1;
            continue;
          }
          if (touched) height = to;
          else expectShape(blocks.length === to - from + 1, `scan ${from}..${to} returned ${blocks.length} blocks`);
          from = to + 1;
          // Paced: what was read is committed now, and the next pass goes on from it.
          if (pacing.over()) break;
        }
        const { recorded: transfers, dust } = await this.match(trx, target, found, head.height, memory);
        if (spentInPass.length > 0) spent += await markSpends(trx, chain, network, spentInPass);
        await this.deps.watchersQuorum.verify(trx, target, head.height);
        await this.deps.watchersCounter.count(trx, chain, network, head.height, memory, target.quorum ?? 1);
        // The step's invoice changes are written together: payments and the counts they reached.
        await this.deps.invoicesLifecycle.flush(trx, memory, WATCHER_ACTOR);
        await sqlQuery(
          trx,
          sql`delete from watchers_blocks where chain = ${chain} and network = ${network} and height < ${height - this.deps.watchersConfig.reorgDepth}`,
        );
        await sqlQuery(
          trx,
          sql`update watchers_cursors
                 set height = ${height}, head_height = ${head.height}, finalized_height = ${head.finalized ?? null}, consecutive_failures = 0, next_scan_at = null, updated_at = now()
               where chain = ${chain} and network = ${network}`,
        );
        if (transfers > 0) this.deps.watchersMetrics.transfers.inc(labels, transfers);
        if (dust > 0) this.deps.watchersMetrics.dustTransfers.inc(labels, dust);
        return {
          ran: true,
          from: Number(cursor?.height ?? firstCursor) + 1,
          to: height,
          head: head.height,
          transfers,
          ...(spent > 0 ? { spent } : {}),
          behind: height < head.height,
          ...(reorgedTo !== undefined ? { reorgedTo } : {}),
        };
      });
      endTimer?.({ outcome: 'ok' });
      if (report.ran && report.head !== undefined) this.scanFailures.succeeded(`${chain}:${network}`, { component: 'watcher', chain, network });
      return report;
    } catch (error) {
      endTimer?.({ outcome: 'failed' });
      const message = error instanceof Error ? error.message : String(error);
      const failures = await this.recordFailure(target, message);
      this.deps.watchersMetrics.scanFailures.inc({ ...labels, kind: error instanceof ProviderError ? error.failure : 'internal' });
      this.scanFailures.failed(`${chain}:${network}`, error, { component: 'watcher', chain, network, consecutive_failures: failures });
      return { ran: true, transfers: 0, behind: false, error: message };
    }
  }

  /** The mempool step (see the class comment); never throws. */
  private async mempoolPass(target: ScanTarget, head: number, memory: PassMemory): Promise<MempoolReport> {
    const chain = target.adapter.definition.id;
    const { network } = target;
    const labels = { chain, network };
    const log = this.deps.logger.child({ component: 'watcher', chain, network });
    let dropped = 0;
    try {
      dropped = await this.dropStaleMempool(chain, network, memory, target.adapter.definition.pendingTimeoutSeconds);
      if (dropped > 0) this.deps.watchersMetrics.mempoolDropped.inc(labels, dropped);
    } catch (error) {
      this.deps.watchersMetrics.mempoolFailures.inc({ ...labels, kind: 'internal' });
      log.warn({ err: error }, 'dropping stale mempool transfers failed; tried again next pass');
    }
    if (!target.watcher.mempool) return { probed: 0, transfers: 0, dropped };
    let window: BoundedWatched | undefined;
    let pending: ObservedTransfer[];
    try {
      window = await BoundedWatched.next(this.deps.db, target, this.deps.watchersConfig.mempoolAddressesPerPass);
      pending = await target.watcher.mempool(window);
    } catch (error) {
      const kind = error instanceof ProviderError ? error.failure : 'internal';
      this.deps.watchersMetrics.mempoolFailures.inc({ ...labels, kind });
      this.mempoolFailures.failed(`${chain}:${network}`, error, { component: 'watcher', chain, network });
      // The rotation moves on all the same: one address the provider chokes on never starves the others.
      if (window) await sqlQuery(this.deps.db, setMempoolOffset(chain, network, window.nextOffset)).catch(() => undefined);
      return { probed: 0, transfers: 0, dropped, error: error instanceof Error ? error.message : String(error) };
    }
    try {
      this.mempoolFailures.succeeded(`${chain}:${network}`, { component: 'watcher', chain, network });
      const transfers = await this.deps.db.transaction(async (trx) => {
        // Waits for a block pass of this network instead of racing it over the same transfers.
        await sqlQuery(trx, networkLock(chain, network));
        const counts = await this.match(trx, target, pending, head, memory);
        await this.deps.invoicesLifecycle.flush(trx, memory, WATCHER_ACTOR);
        await sqlQuery(trx, setMempoolOffset(chain, network, window!.nextOffset));
        return counts;
      });
      if (transfers.recorded > 0) this.deps.watchersMetrics.transfers.inc(labels, transfers.recorded);
      if (transfers.dust > 0) this.deps.watchersMetrics.dustTransfers.inc(labels, transfers.dust);
      return { probed: window!.size, transfers: transfers.recorded, dropped };
    } catch (error) {
      this.deps.watchersMetrics.mempoolFailures.inc({ ...labels, kind: 'internal' });
      log.warn({ err: error }, 'recording mempool transfers failed; they are found again next pass');
      return { probed: window!.size, transfers: 0, dropped, error: error instanceof Error ? error.message : String(error) };
    }
  }

  /**
   * Drops the network's unmined transfers first seen more than `mempoolTimeoutSeconds` ago, or the
   * chain's `pendingTimeoutSeconds` where that is shorter (a Solana transaction confirmed on a fork
   * that died; issue 43) (their invoices hear `payment_dropped`); returns how many. Each pass runs
   * it; safe on any instance.
   */
  async dropStaleMempool(chain: string, network: string, memory: PassMemory = newPass(), chainTimeoutSeconds?: number): Promise<number> {
    const timeoutSeconds = Math.min(this.deps.watchersConfig.mempoolTimeoutSeconds, chainTimeoutSeconds ?? Infinity);
    return this.deps.db.transaction(async (trx) => {
      await sqlQuery(trx, networkLock(chain, network));
      const gone = await sqlQuery<{ invoice_id: string | null; tx_hash: string; output_index: number }>(
        trx,
        sql`delete from watchers_transfers
             where chain = ${chain} and network = ${network} and status = 'mempool'
               and received_at < now() - make_interval(secs => ${timeoutSeconds}::int)
         returning invoice_id, tx_hash, output_index`,
      );
      await this.deps.invoicesLifecycle.revertPayments(
        trx,
        invoiceTransferKeys(gone),
        'dropped',
        WATCHER_ACTOR,
        { reason: 'not mined within the mempool timeout', mempool_timeout_seconds: timeoutSeconds },
        memory,
      );
      await this.deps.invoicesLifecycle.flush(trx, memory, WATCHER_ACTOR);
      return gone.length;
    });
  }

  private async recordBlock(trx: Knex.Transaction, target: ScanTarget, block: ScannedBlock): Promise<void> {
    const chain = target.adapter.definition.id;
    await sqlQuery(
      trx,
      sql`insert into watchers_blocks (chain, network, height, hash, parent_hash) values (${chain}, ${target.network}, ${block.height}, ${block.hash}, ${block.parentHash})
          on conflict (chain, network, height) do update set hash = excluded.hash, parent_hash = excluded.parent_hash`,
    );
  }

  /** Records the transfers to watched pool addresses; returns how many were new, and how many of those were dust. */
  private async match(
    trx: Knex.Transaction,
    target: ScanTarget,
    transfers: readonly ObservedTransfer[],
    head: number,
    memory: PassMemory,
  ): Promise<{ recorded: number; dust: number }> {
    if (transfers.length === 0) return { recorded: 0, dust: 0 };
    const owners = await target.watched.lookup(
      transfers.map((t) => t.toAddress),
      trx,
    );
    const items = transfers.flatMap((transfer) => {
      const at = owners.get(transfer.toAddress);
      return at ? [{ transfer, at }] : [];
    });
    const outcomes = await this.deps.watchersMatcher.recordMany(trx, items, head, memory, target.quorum ?? 1);
    // TRX arriving at a pool address created its account: activated, without asking the chain.
    await this.deps.watchersActivation.fromTransfers(
      trx,
      target,
      items.map((item) => item.transfer),
    );
    return { recorded: outcomes.filter((outcome) => outcome !== 'known').length, dust: outcomes.filter((outcome) => outcome === 'dust').length };
  }

  /**
   * Finds the highest stored block the provider still agrees on, at or below `from` (at most
   * `reorgDepth` down), and rewinds to it. The provider's finalized height is no floor: a stored
   * hash that differs from a finalized block means we kept a branch that lost before it finalized.
   */
  private async rewind(trx: Knex.Transaction, target: ScanTarget, from: number, log: Logger): Promise<number> {
    const chain = target.adapter.definition.id;
    const floor = Math.max(0, from - this.deps.watchersConfig.reorgDepth);
    let ancestor = from;
    while (ancestor > floor) {
      const stored = await this.storedHash(trx, chain, target.network, ancestor);
      if (stored === undefined || stored === (await this.providerHash(target, ancestor))) break;
      ancestor--;
    }
    const undone = await this.deps.watchersRewinder.rewind(trx, chain, target.network, ancestor);
    this.deps.watchersMetrics.reorgs.inc({ chain, network: target.network });
    log.warn({ ancestor, depth: from - ancestor + 1, ...undone }, 'chain reorganisation: blocks above the common ancestor undone');
    return ancestor;
  }

  /**
   * The provider's hash at `height`, a stored height at or below its tip. A provider without the
   * block is behind or lying, never a reorg (a reorg replaces a block, it does not remove it): the
   * pass fails rather than undo payments for a block that only seemed to vanish.
   */
  private async providerHash(target: ScanTarget, height: number): Promise<string> {
    const hash = await target.watcher.blockHash(height);
    if (hash === null) {
      target.providers?.passOver();
      throw new ProviderError('malformed', '', `provider does not have block ${height}, which was scanned before: the provider is behind`);
    }
    return hash;
  }

  private async storedHash(trx: Knex.Transaction, chain: string, network: string, height: number): Promise<string | undefined> {
    const [row] = await sqlQuery<{ hash: string }>(
      trx,
      sql`select hash from watchers_blocks where chain = ${chain} and network = ${network} and height = ${height}`,
    );
    return row?.hash;
  }

  private async recordFailure(target: ScanTarget, message: string): Promise<number> {
    const { maxBackoffSeconds } = this.deps.watchersConfig;
    const { scanIntervalSeconds } = target;
    const row = await sqlQuery<{ consecutive_failures: number }>(
      this.deps.db,
      sql`update watchers_cursors
             set consecutive_failures = consecutive_failures + 1, last_error = ${message.slice(0, 1000)}, last_error_at = now(),
                 next_scan_at = now() + make_interval(secs => least(${maxBackoffSeconds}, ${scanIntervalSeconds} * power(2, least(consecutive_failures, 20))))
           where chain = ${target.adapter.definition.id} and network = ${target.network}
       returning consecutive_failures`,
    );
    return Number(row[0]?.consecutive_failures ?? 0);
  }
}

/**
 * The watched addresses of one mempool probe: `active()` answers a window of at most `size`
 * addresses, starting where the previous pass stopped (the offset is stored in the cursor row, so
 * any instance continues the rotation); `filter` is the network's own.
 */
class BoundedWatched implements WatchedAddresses {
  private constructor(
    private readonly watched: WatchedAddresses,
    private readonly window: string[],
    readonly nextOffset: number,
    private readonly referenceWindow: string[],
  ) {}

  static async next(db: Knex, target: ScanTarget, size: number): Promise<BoundedWatched> {
    const addresses = [...new Set(await (target.mempoolScope === 'awaiting' ? target.watched.awaiting() : target.watched.active()))].sort();
    // Chains with payment references (issue 43): the references rotate through the same window, after the recipients.
    const references = [...new Set((await target.watched.references?.()) ?? [])].sort().map((r) => `${REFERENCE_MARK}${r}`);
    const all = [...addresses, ...references];
    const [cursor] = await sqlQuery<{ mempool_offset: number | null }>(
      db,
      sql`select mempool_offset from watchers_cursors where chain = ${target.adapter.definition.id} and network = ${target.network}`,
    );
    const start = all.length === 0 ? 0 : Number(cursor?.mempool_offset ?? 0) % all.length;
    const window = all.length <= size ? all : [...all.slice(start, start + size), ...all.slice(0, Math.max(0, start + size - all.length))];
    return new BoundedWatched(
      target.watched,
      window.filter((a) => !a.startsWith(REFERENCE_MARK)),
      all.length <= size ? 0 : (start + size) % all.length,
      window.filter((a) => a.startsWith(REFERENCE_MARK)).map((r) => r.slice(REFERENCE_MARK.length)),
    );
  }

  get size(): number {
    return this.window.length + this.referenceWindow.length;
  }

  filter(addresses: readonly string[]): Promise<Set<string>> {
    return this.watched.filter(addresses);
  }

  async active(): Promise<string[]> {
    return this.window;
  }

  async references(): Promise<string[]> {
    return this.referenceWindow;
  }
}

/** Tells a reference from an address in one rotating window (no address of any chain starts with a NUL). */
const REFERENCE_MARK = '\u0000';

/**
 * What a `touched` scan of `from`..`to` must be (see `ChainWatcher.coverage`): blocks within the
 * range, in strictly ascending order. Anything else is a provider's (or watcher's) malformed answer.
 */
function checkTouchedBlocks(blocks: readonly ScannedBlock[], from: number, to: number): void {
  let last = from - 1;
  for (const block of blocks) {
    expectShape(block.height > last && block.height <= to, `scan ${from}..${to} returned block ${block.height} out of order or range`);
    last = block.height;
  }
}

/** A spend of a scanned block, with the block's height. */
interface BlockSpend extends SpentOutput {
  readonly height: number;
}

const outpointKey = (o: { readonly txHash: string; readonly outputIndex: number }) => `${o.txHash}:${o.outputIndex}`;

/**
 * Marks the recorded outputs among `spends` spent, in one statement whatever their number (a
 * mainnet block spends thousands of outputs, nearly all of them someone else's): the spends go in
 * as arrays, joined on the transfers' unique key. Returns how many rows it marked.
 */
async function markSpends(trx: Knex.Transaction, chain: string, network: string, spends: readonly BlockSpend[]): Promise<number> {
  const rows = await sqlQuery<{ id: string }>(
    trx,
    sql`update watchers_transfers w
           set spent_by = s.spent_by, spent_height = s.height, updated_at = now()
          from unnest(${spends.map((s) => s.txHash)}::text[], ${spends.map((s) => s.outputIndex)}::int[],
                      ${spends.map((s) => s.spentBy)}::text[], ${spends.map((s) => s.height)}::bigint[]) as s(tx_hash, output_index, spent_by, height)
         where w.chain = ${chain} and w.network = ${network} and w.tx_hash = s.tx_hash and w.output_index = s.output_index
     returning w.id`,
  );
  return rows.length;
}

/** Waits for the network's scan lock (held by a block pass) for the rest of the transaction. */
function networkLock(chain: string, network: string): Sql {
  return sql`select pg_advisory_xact_lock(hashtextextended(${`watchers:${chain}:${network}`}, 0))`;
}

/** Stores where the next mempool probe of the network starts. */
function setMempoolOffset(chain: string, network: string, offset: number): Sql {
  return sql`update watchers_cursors set mempool_offset = ${offset} where chain = ${chain} and network = ${network}`;
}
