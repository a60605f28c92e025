import { setTimeout as sleep } from 'node:timers/promises';
import { createFailureLog, sql, sqlQuery, type FailureLog, type PushedHead, type Unsubscribe } from '@gw/kernel';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { WatchersConfig } from '../config.js';
import type { WatcherMetrics } from '../metrics.js';
import type { ChainScanner, ScanTarget } from './chain-scanner.js';
import type { WatcherRegistry } from './watcher-registry.js';

/** Tries of a pushed head's pass while another instance's pass holds the network's lock. */
const LOCKED_TRIES = 100;
const LOCKED_PAUSE_MS = 20;
/**
 * How long pushed transactions gather before their addresses are looked up together. Core pushes
 * `rawtx` for every transaction of a new block, thousands within milliseconds: one lookup for the
 * burst instead of one per transaction competing for the pool.
 */
const TX_BATCH_MS = 25;

/**
 * A pass wanted for the mempool. `since` is the network's pass stamp (`passStamp`) read after
 * pushed transactions 1..`upTo` arrived: a pass of any instance that commits after that read
 * begins its mempool step after them, so this instance need not run one. Transactions arriving
 * later are not looked up while the want waits (`stale`): the stamp is then read again when the
 * pass is due, and only a pass committing after that covers them.
 */
interface MempoolWant {
  readonly since: string | null;
  readonly upTo: number;
  stale: boolean;
}

interface Subscription {
  readonly target: ScanTarget;
  readonly unsubscribe: Unsubscribe;
  /** The newest head pushed and not yet handled (coalesced: a burst of heads is one pass). */
  wanted: PushedHead | undefined;
  /** A pushed transaction to a watched address not yet followed by a pass (its mempool step reads it). */
  mempoolWanted: MempoolWant | undefined;
  /** Pushed transactions so far (numbers their arrival, for `MempoolWant.upTo`). */
  arrivals: number;
  /** The running drain, while there is one. */
  running: Promise<void> | undefined;
  /** Output addresses of pushed transactions not looked up yet (one batched lookup per `TX_BATCH_MS`). */
  pushed: Set<string>;
  /** A pushed transaction that did not decode is among them (a possible hit). */
  undecoded: boolean;
  /** The running lookup of pushed transactions, while there is one. */
  lookingUp: Promise<void> | undefined;
  /** Whether the subscription has been up once (a later connect is a reconnect). */
  everConnected: boolean;
}

/**
 * Detection by push (decision "Watchers: push-triggered passes" in docs/decisions.md): every
 * worker process subscribes to the new heads of each network whose watcher offers push (EVM with a
 * provider `wsUrl`, Bitcoin Core with a `zmqUrl`) and runs a scan pass as soon as a head arrives,
 * or a pushed transaction pays a watched address (Core's `rawtx`: the pass's mempool step finds it), through the same
 * `ChainScanner.pass` as the job loop, so under the same advisory lock: one pass per network at a
 * time across all instances, and a block is neither skipped nor counted twice whichever instance
 * scans it. A head already stored (same height and hash, or the hash alone where the push gives
 * no height: another instance's pass took it) costs one query. Pushed transactions are gathered
 * for `TX_BATCH_MS` and their addresses looked up together (one lookup per batch, at most one
 * running per network), none while a pass that will read the mempool is already wanted; a hit
 * asks for a pass, which is skipped when a pass of any instance committed after the hit (its
 * mempool step came later: one pass per network for a transaction every worker was pushed).
 * While another instance's pass holds the lock the pass is tried again shortly, and after
 * `LOCKED_TRIES` it is left to the next poll.
 *
 * The job loop keeps polling every scan interval beside it: a dropped socket, a missed
 * notification or a worker without push delays a block by at most one interval. Connects, drops
 * and reconnects are logged and counted (`gateway_watcher_push_connected`,
 * `gateway_watcher_push_reconnects_total`). Nothing here matters for correctness: it only decides
 * when a pass runs.
 */
export class HeadPush {
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly drops: FailureLog;
  private stopped = false;
  /** Ends the pauses of running passes when `stop` is called. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly deps: {
      db: Knex;
      logger: Logger;
      watchersConfig: WatchersConfig;
      watchersMetrics: WatcherMetrics;
      watchersRegistry: WatcherRegistry;
      watchersScanner: ChainScanner;
    },
  ) {
    this.drops = createFailureLog(deps.logger, {
      failed: 'push connection down; new blocks are found by polling (every scan_interval_seconds) until it reconnects',
      stillFailing: 'push connection still down',
      recovered: 'push connection restored',
    });
  }

  /** Subscribes every network whose watcher offers push (worker processes). */
  start(): void {
    for (const target of this.deps.watchersRegistry.list()) {
      const subscribe = target.watcher.subscribeHeads?.bind(target.watcher);
      if (!subscribe) continue;
      const chain = target.adapter.definition.id;
      const { network } = target;
      const labels = { chain, network };
      const fields = { component: 'watcher', chain, network };
      const key = `${chain}:${network}`;
      this.deps.watchersMetrics.pushConnected.set(labels, 0);
      const state: Subscription = {
        target,
        wanted: undefined,
        mempoolWanted: undefined,
        arrivals: 0,
        running: undefined,
        pushed: new Set(),
        undecoded: false,
        lookingUp: undefined,
        everConnected: false,
        unsubscribe: subscribe({
          onHead: (head) => {
            if (this.stopped) return;
            this.deps.watchersMetrics.pushHeads.inc(labels);
            if (!state.wanted || head.height === undefined || state.wanted.height === undefined || head.height >= state.wanted.height) state.wanted = head;
            this.run(state);
          },
          onTransaction: (tx) => {
            if (this.stopped) return;
            this.deps.watchersMetrics.pushTransactions.inc(labels);
            state.arrivals += 1;
            // A pass that will read the mempool is asked for and not started: it finds this one too.
            if (state.mempoolWanted) {
              state.mempoolWanted.stale = true;
              return;
            }
            if (tx.addresses === undefined) state.undecoded = true;
            else for (const address of tx.addresses) state.pushed.add(address);
            this.lookUp(state);
          },
          onConnection: ({ connected, provider, error }) => {
            if (this.stopped) return;
            this.deps.watchersMetrics.pushConnected.set(labels, connected ? 1 : 0);
            if (connected) {
              if (state.everConnected) this.deps.watchersMetrics.pushReconnects.inc(labels);
              else this.deps.logger.info({ ...fields, provider }, 'push connected: new blocks start a scan pass at once');
              state.everConnected = true;
              this.drops.succeeded(key, { ...fields, provider });
            } else {
              this.drops.failed(key, new Error(error ?? 'connection lost'), { ...fields, provider, scan_interval_seconds: target.scanIntervalSeconds });
            }
          },
        }),
      };
      this.subscriptions.set(key, state);
    }
  }

  /** Closes the subscriptions and waits for passes they started. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    for (const state of this.subscriptions.values()) state.unsubscribe();
    await Promise.all([...this.subscriptions.values()].flatMap((s) => [s.lookingUp, s.running]));
    this.subscriptions.clear();
  }

  private run(state: Subscription): void {
    state.running ??= this.drain(state).finally(() => (state.running = undefined));
  }

  private lookUp(state: Subscription): void {
    state.lookingUp ??= this.lookUpPushed(state).finally(() => {
      state.lookingUp = undefined;
      // Pushed between the loop's last check and here.
      if (!this.stopped && (state.pushed.size > 0 || state.undecoded)) this.lookUp(state);
    });
  }

  /** Looks the gathered pushed transactions up in batches, and asks for a pass on a hit. */
  private async lookUpPushed(state: Subscription): Promise<void> {
    const { target } = state;
    while (!this.stopped && (state.pushed.size > 0 || state.undecoded)) {
      await new Promise((resolve) => setTimeout(resolve, TX_BATCH_MS));
      const addresses = [...state.pushed];
      const undecoded = state.undecoded;
      const last = state.arrivals;
      state.pushed = new Set();
      state.undecoded = false;
      if (this.stopped) return;
      if (state.mempoolWanted) {
        if (last > state.mempoolWanted.upTo) state.mempoolWanted.stale = true;
        continue;
      }
      try {
        // A transaction that did not decode may pay a watched address: no lookup needed.
        if (!undecoded && (addresses.length === 0 || (await target.watched.lookup(addresses)).size === 0)) continue;
        const upTo = state.arrivals;
        const since = await this.passStamp(target);
        if (this.stopped) return;
        // Another batch's hit may have asked first (`mempoolWanted` changes across the awaits).
        const asked = state.mempoolWanted as MempoolWant | undefined;
        if (asked) asked.stale = true;
        else state.mempoolWanted = { since, upTo, stale: false };
        this.run(state);
      } catch (error) {
        this.deps.logger.warn(
          { component: 'watcher', chain: target.adapter.definition.id, network: target.network, err: error, addresses: addresses.length },
          'pushed transactions not looked up; the next poll reads the mempool',
        );
      }
    }
  }

  private async drain(state: Subscription): Promise<void> {
    while ((state.wanted || state.mempoolWanted) && !this.stopped) {
      const head = state.wanted;
      const mempool = state.mempoolWanted;
      state.wanted = undefined;
      state.mempoolWanted = undefined;
      try {
        await this.passFor(state.target, head, mempool);
      } catch (error) {
        this.deps.logger.warn(
          { component: 'watcher', chain: state.target.adapter.definition.id, network: state.target.network, err: error },
          'push-triggered pass failed; the next poll scans the block',
        );
      }
    }
  }

  /**
   * Passes until `head` is stored, the pass fails (its backoff applies), or the lock stays taken.
   * A pass that finds the network backing off (a failed pass before it: a pushed transaction's
   * pass during an `invalidateblock`, whose tip is below the cursor, or a node restarting) is run
   * again when the backoff ends: with hourly polling the head would otherwise wait an hour, and a
   * reorg's new branch (whose first `hashblock` is all Core announces) would go unscanned.
   * With `want` (a pushed transaction to a watched address) one pass runs unless a pass of any
   * instance committed after its stamp was read (every pass ends with the mempool step, which
   * that one began after the transactions arrived); without a head, that one pass is all.
   */
  private async passFor(target: ScanTarget, wantedHead: PushedHead | undefined, want: MempoolWant | undefined): Promise<void> {
    const chain = target.adapter.definition.id;
    let head = wantedHead;
    let mempool = want !== undefined;
    const since = want && (want.stale ? await this.passStamp(target) : want.since);
    for (let tries = 0; tries < LOCKED_TRIES && !this.stopped;) {
      if (head && (await this.stored(chain, target.network, head))) head = undefined;
      if (mempool && (await this.passStamp(target)) !== since) mempool = false;
      if (!head && !mempool) return;
      const report = await this.deps.watchersScanner.pass(target);
      if (!report.ran || report.backoffUntil !== undefined) {
        tries += 1;
        await this.pause(report.backoffUntil ? report.backoffUntil.getTime() - Date.now() : LOCKED_PAUSE_MS);
        continue;
      }
      mempool = false;
      if (report.error !== undefined || !report.behind || !head) return;
    }
  }

  /**
   * When the network's last successful block pass began (`watchers_cursors.updated_at`, to the
   * microsecond, as text), or null before the first. A different value later means a pass
   * committed in between, and its mempool step starts after its commit.
   */
  private async passStamp(target: ScanTarget): Promise<string | null> {
    const [row] = await sqlQuery<{ stamp: string }>(
      this.deps.db,
      sql`select updated_at::text as stamp from watchers_cursors where chain = ${target.adapter.definition.id} and network = ${target.network}`,
    );
    return row?.stamp ?? null;
  }

  /** Waits `ms`, or until `stop`. */
  private async pause(ms: number): Promise<void> {
    await sleep(Math.max(ms, LOCKED_PAUSE_MS), undefined, { signal: this.stopping.signal }).catch(() => undefined);
  }

  private async stored(chain: string, network: string, head: PushedHead): Promise<boolean> {
    const match = head.height === undefined ? sql`hash = ${head.hash}` : sql`height = ${head.height}`;
    const [stored] = await sqlQuery<{ hash: string }>(
      this.deps.db,
      sql`select hash from watchers_blocks where chain = ${chain} and network = ${network} and ${match} limit 1`,
    );
    return stored?.hash === head.hash;
  }
}
