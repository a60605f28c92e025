import { createFailureLog, sql, sqlQuery, type FailureLog, type PushedHead, type PushedTransaction, type Unsubscribe } from '@gw/kernel';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { WatchersConfig } from '../config.js';
import type { WatcherMetrics } from '../metrics.js';
import type { ChainScanner, ScanTarget } from './chain-scanner.js';
import type { WatcherRegistry } from './watcher-registry.js';

/** Tries of a pushed head's pass while another instance's pass holds the network's lock. */
const LOCKED_TRIES = 100;
const LOCKED_PAUSE_MS = 20;

interface Subscription {
  readonly target: ScanTarget;
  readonly unsubscribe: Unsubscribe;
  /** The newest head pushed and not yet handled (coalesced: a burst of heads is one pass). */
  wanted: PushedHead | undefined;
  /** A pushed transaction to a watched address not yet followed by a pass (its mempool step reads it). */
  mempoolWanted: boolean;
  /** The running drain, while there is one. */
  running: Promise<void> | undefined;
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
 * no height: another instance's pass took it) costs one query; a pushed transaction costs one
 * watched-address lookup, and a pass only when it pays a watched address; while another instance's pass holds the lock the head is tried again shortly, and
 * after `LOCKED_TRIES` it is left to the next poll.
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

  constructor(
    private readonly deps: { db: Knex; logger: Logger; watchersConfig: WatchersConfig; watchersMetrics: WatcherMetrics; watchersRegistry: WatcherRegistry; watchersScanner: ChainScanner },
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
        mempoolWanted: false,
        running: undefined,
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
            this.concerns(target, tx).then(
              (ours) => {
                if (!ours || this.stopped) return;
                state.mempoolWanted = true;
                this.run(state);
              },
              (error: unknown) => this.deps.logger.warn({ ...fields, err: error, txid: tx.txid }, 'pushed transaction not looked up; the next poll reads the mempool'),
            );
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
    for (const state of this.subscriptions.values()) state.unsubscribe();
    await Promise.all([...this.subscriptions.values()].map((s) => s.running));
    this.subscriptions.clear();
  }

  private run(state: Subscription): void {
    state.running ??= this.drain(state).finally(() => (state.running = undefined));
  }

  /** Whether a pushed transaction pays a watched address of the network (or could not be decoded). */
  private async concerns(target: ScanTarget, tx: PushedTransaction): Promise<boolean> {
    if (tx.addresses === undefined) return true;
    if (tx.addresses.length === 0) return false;
    return (await target.watched.lookup([...new Set(tx.addresses)])).size > 0;
  }

  private async drain(state: Subscription): Promise<void> {
    while ((state.wanted || state.mempoolWanted) && !this.stopped) {
      const head = state.wanted;
      const mempool = state.mempoolWanted;
      state.wanted = undefined;
      state.mempoolWanted = false;
      try {
        await this.passFor(state.target, head, mempool);
      } catch (error) {
        this.deps.logger.warn({ component: 'watcher', chain: state.target.adapter.definition.id, network: state.target.network, err: error }, 'push-triggered pass failed; the next poll scans the block');
      }
    }
  }

  /**
   * Passes until `head` is stored, the pass fails (its backoff applies), or the lock stays taken.
   * With `mempool` (a pushed transaction to a watched address) at least one pass runs, since every
   * pass ends with the mempool step; without a head, that one pass is all.
   */
  private async passFor(target: ScanTarget, wantedHead: PushedHead | undefined, mempool: boolean): Promise<void> {
    const chain = target.adapter.definition.id;
    let head = wantedHead;
    for (let tries = 0; tries < LOCKED_TRIES && !this.stopped; ) {
      if (head && (await this.stored(chain, target.network, head))) {
        if (!mempool) return;
        head = undefined;
      }
      const report = await this.deps.watchersScanner.pass(target);
      if (!report.ran) {
        tries += 1;
        await new Promise((resolve) => setTimeout(resolve, LOCKED_PAUSE_MS));
        continue;
      }
      mempool = false;
      if (report.error !== undefined || !report.behind || !head) return;
    }
  }

  private async stored(chain: string, network: string, head: PushedHead): Promise<boolean> {
    const match = head.height === undefined ? sql`hash = ${head.hash}` : sql`height = ${head.height}`;
    const [stored] = await sqlQuery<{ hash: string }>(this.deps.db, sql`select hash from watchers_blocks where chain = ${chain} and network = ${network} and ${match} limit 1`);
    return stored?.hash === head.hash;
  }
}
