import { createCoalescer, networkGauge, type ProviderOutcome } from '@gw/kernel';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { ProviderUsage, ProviderUsageReads } from './services/provider-usage.js';

/** The watchers' Prometheus metrics: per chain and network, and per provider. */
export interface WatcherMetrics {
  /** `gateway_watcher_pass_duration_seconds{chain,network,outcome}`: one block pass, ok or failed. */
  readonly passDuration: Histogram<'chain' | 'network' | 'outcome'>;
  readonly transfers: Counter<'chain' | 'network'>;
  /** `gateway_watcher_dust_transfers_total{chain,network}`: new transfers below the coin's dust floor (recorded, given to no invoice). */
  readonly dustTransfers: Counter<'chain' | 'network'>;
  readonly reorgs: Counter<'chain' | 'network'>;
  readonly scanFailures: Counter<'chain' | 'network' | 'kind'>;
  readonly mempoolFailures: Counter<'chain' | 'network' | 'kind'>;
  readonly mempoolDropped: Counter<'chain' | 'network'>;
  /** `gateway_watcher_push_connected{chain,network}`: 1 while this process's push subscription is up, 0 while it is down (polling only). */
  readonly pushConnected: Gauge<'chain' | 'network'>;
  /** Push connections re-established after a drop. */
  readonly pushReconnects: Counter<'chain' | 'network'>;
  /** New heads pushed by the provider. */
  readonly pushHeads: Counter<'chain' | 'network'>;
  /** Mempool transactions pushed by the provider (Bitcoin Core ZMQ `rawtx`). */
  readonly pushTransactions: Counter<'chain' | 'network'>;
  readonly providerRequests: Counter<'chain' | 'network' | 'provider' | 'operation' | 'outcome'>;
  readonly providerDuration: Histogram<'chain' | 'network' | 'provider'>;
  /**
   * `gateway_watcher_attestations_total{chain,network,provider,answer}`: what a provider answered
   * when the quorum asked it about a transfer (`reported`, `denied`, `other_branch`, `lagging`,
   * `unavailable`; issue 40).
   */
  readonly attestations: Counter<'chain' | 'network' | 'provider' | 'answer'>;
  /** The pool's `onOutcome` for one network. */
  outcomeRecorder(chain: string, network: string): (outcome: ProviderOutcome) => void;
}

export function createWatcherMetrics(registry: Registry): WatcherMetrics {
  const registers = [registry];
  /** A counter per chain and network (and, for failures, per kind). */
  const perNetwork = (name: string, help: string) => new Counter({ name, help, labelNames: ['chain', 'network'], registers });
  const perNetworkAndKind = (name: string, help: string) => new Counter({ name, help, labelNames: ['chain', 'network', 'kind'], registers });
  const providerRequests = new Counter({
    name: 'gateway_watcher_provider_requests_total',
    help: 'Provider calls by outcome (ok, timeout, rate_limited, http_error, network, malformed).',
    labelNames: ['chain', 'network', 'provider', 'operation', 'outcome'],
    registers,
  });
  const providerDuration = new Histogram({
    name: 'gateway_watcher_provider_duration_seconds',
    help: 'Provider call latency.',
    labelNames: ['chain', 'network', 'provider'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  return {
    passDuration: new Histogram({
      name: 'gateway_watcher_pass_duration_seconds',
      help: 'Duration of one block pass of a network by this process (outcome ok or failed; passes another instance held the lock for are not counted).',
      labelNames: ['chain', 'network', 'outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    transfers: perNetwork('gateway_watcher_transfers_total', 'New transfers to pool addresses recorded.'),
    dustTransfers: perNetwork(
      'gateway_watcher_dust_transfers_total',
      "New transfers to pool addresses below their coin's dust floor: recorded, never given to an invoice nor to the orphan inbox (a rising rate is a dust flood).",
    ),
    reorgs: perNetwork('gateway_watcher_reorgs_total', 'Chain reorganisations followed.'),
    scanFailures: perNetworkAndKind('gateway_watcher_scan_failures_total', 'Scan passes rolled back, by failure kind.'),
    mempoolFailures: perNetworkAndKind('gateway_watcher_mempool_failures_total', 'Mempool probes that failed (block scanning is unaffected), by failure kind.'),
    mempoolDropped: perNetwork('gateway_watcher_mempool_dropped_total', 'Transfers dropped after the mempool timeout without a block.'),
    pushConnected: new Gauge({
      name: 'gateway_watcher_push_connected',
      help: 'Whether this process has its push subscription (EVM newHeads over WebSocket, Bitcoin Core ZMQ) up: 1, or 0 while it is down and new blocks are found by polling only. No series for networks without push.',
      labelNames: ['chain', 'network'],
      registers,
    }),
    pushReconnects: perNetwork('gateway_watcher_push_reconnects_total', 'Push connections re-established after a drop.'),
    pushHeads: perNetwork('gateway_watcher_push_heads_total', 'New heads pushed by the provider (each starts a scan pass unless already scanned).'),
    pushTransactions: perNetwork(
      'gateway_watcher_push_transactions_total',
      'Mempool transactions pushed by the provider (Bitcoin Core ZMQ rawtx); those paying a watched address start a scan pass.',
    ),
    providerRequests,
    providerDuration,
    attestations: new Counter({
      name: 'gateway_watcher_attestations_total',
      help: 'Answers of providers asked by the quorum about a transfer at its confirmation threshold: reported, denied (the same block without it), other_branch (another block at that height), lagging (not that deep yet), unavailable (failed).',
      labelNames: ['chain', 'network', 'provider', 'answer'],
      registers,
    }),
    outcomeRecorder: (chain, network) => (outcome) => {
      providerRequests.inc({ chain, network, provider: outcome.provider, operation: outcome.operation, outcome: outcome.outcome });
      providerDuration.observe({ chain, network, provider: outcome.provider }, outcome.durationMs / 1000);
    },
  };
}

interface CursorRow {
  chain: string;
  network: string;
  height: string;
  head_height: string | null;
  consecutive_failures: number;
  since_success: string;
}

/**
 * Per network, read from `watchers_cursors` at scrape time, so every process (gateway or worker,
 * whichever ran the pass) reports the same state: the tip at the last pass
 * (`gateway_watcher_head_height`), the last block fully processed (`gateway_watcher_cursor_height`),
 * the blocks between them (`gateway_watcher_lag_blocks`), the seconds since the last successful pass
 * (`gateway_watcher_lag_seconds`; a healthy watcher stays near its network's scan interval, a failing or
 * stuck one grows without bound) and the failed passes in a row
 * (`gateway_watcher_consecutive_failures`). A network never scanned yet has no series.
 */
export function registerCursorGauges(registry: Registry, deps: { db: Knex; logger: Logger }): void {
  const read = scrapeRead(deps.logger, 'watcher cursor gauges', () =>
    deps.db
      .raw<{ rows: CursorRow[] }>(
        `select chain, network, height, head_height, consecutive_failures, extract(epoch from now() - updated_at) as since_success from watchers_cursors`,
      )
      .then((result) => result.rows),
  );
  const gauge = (name: string, help: string, value: (row: CursorRow) => number | undefined) => networkGauge(registry, name, help, read, value);
  gauge('gateway_watcher_head_height', 'Chain tip as the provider reported it at the last successful pass.', (row) =>
    row.head_height === null ? undefined : Number(row.head_height),
  );
  gauge('gateway_watcher_cursor_height', 'Last block fully processed (scanned height).', (row) => Number(row.height));
  gauge('gateway_watcher_lag_blocks', 'Blocks between the tip and the last processed block.', (row) =>
    row.head_height === null ? undefined : Math.max(0, Number(row.head_height) - Number(row.height)),
  );
  gauge('gateway_watcher_lag_seconds', 'Seconds since the last successful pass of the network (healthy: about the network`s scan interval).', (row) =>
    Number(row.since_success),
  );
  gauge('gateway_watcher_consecutive_failures', 'Failed passes in a row (provider errors); 0 after a successful pass.', (row) => row.consecutive_failures);
}

/** A network watched with a quorum, and its providers: their series are 0 rather than absent. */
export interface QuorumNetwork {
  readonly chain: string;
  readonly network: string;
  readonly quorum: number;
  readonly providers: readonly string[];
}

/**
 * The quorum's state, read from PostgreSQL at scrape time (the same on every process, issue 40):
 * `gateway_watcher_disagreements{chain,network,state}`, the open disagreements between providers
 * still within their decision time (`open`) and past it, waiting for the operator
 * (`awaiting_decision`); `gateway_watcher_provider_marked{chain,network,provider}`, 1 for a provider
 * marked for reporting what the others do not have (passed over and not counted), 0 for the
 * others; `gateway_watcher_unattested_transfers{chain,network}`, the in-block transfers at their
 * threshold that the quorum has not attested yet, and
 * `gateway_watcher_unattested_oldest_seconds{chain,network}`, how long the oldest of them has
 * waited since the providers were first asked (past `disagreementDecisionSeconds` it is on the
 * operator's desk as an `unattested` disagreement). Networks with a quorum above 1 have every series
 * at 0 when nothing is wrong.
 */
export function registerQuorumGauges(registry: Registry, deps: { db: Knex; logger: Logger; networks: () => readonly QuorumNetwork[] }): void {
  const read = scrapeRead(deps.logger, 'watcher quorum gauges', () =>
    Promise.all([
      deps.db.raw<{ rows: { chain: string; network: string; state: string; count: string }[] }>(
        `select chain, network, case when decide_after <= now() then 'awaiting_decision' else 'open' end as state, count(*) as count
           from watchers_disagreements where status = 'open' group by 1, 2, 3`,
      ),
      deps.db.raw<{ rows: { chain: string; network: string; provider: string }[] }>(`select chain, network, provider from watchers_provider_marks`),
      deps.db.raw<{ rows: { chain: string; network: string; count: string; oldest: string }[] }>(
        `select chain, network, count(*) as count, extract(epoch from now() - min(attestation_asked_at)) as oldest
           from watchers_transfers where status = 'in_block' and attested_at is null and attestation_asked_at is not null group by 1, 2`,
      ),
    ]).then(([disagreements, marks, unattested]): QuorumRows => ({ disagreements: disagreements.rows, marks: marks.rows, unattested: unattested.rows })),
  );
  /** A gauge by chain, network and `label`: 0 for each of `zeros` on networks with a quorum above 1, then the rows' values. */
  const gauge = (
    name: string,
    help: string,
    label: 'state' | 'provider',
    zeros: (network: QuorumNetwork) => readonly string[],
    values: (rows: QuorumRows) => readonly { chain: string; network: string; label: string; value: number }[],
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ['chain', 'network', label],
      registers: [registry],
      async collect() {
        const rows = await read();
        this.reset();
        if (!rows) return;
        for (const n of deps.networks()) {
          if (n.quorum < 2) continue;
          for (const zero of zeros(n)) this.set({ chain: n.chain, network: n.network, [label]: zero }, 0);
        }
        for (const row of values(rows)) this.set({ chain: row.chain, network: row.network, [label]: row.label }, row.value);
      },
    });
  gauge(
    'gateway_watcher_disagreements',
    'Open disagreements between providers about a transfer (its invoice waits): state open within the decision time, awaiting_decision past it (the operator decides: gateway watcher decide).',
    'state',
    () => ['open', 'awaiting_decision'],
    (rows) => rows.disagreements.map((row) => ({ chain: row.chain, network: row.network, label: row.state, value: Number(row.count) })),
  );
  gauge(
    'gateway_watcher_provider_marked',
    'A provider caught reporting a transfer the other providers do not have: 1 while marked (passed over, its word not counted toward the quorum) until the operator clears the mark (gateway watcher unmark).',
    'provider',
    (n) => n.providers,
    (rows) => rows.marks.map((row) => ({ chain: row.chain, network: row.network, label: row.provider, value: 1 })),
  );
  /** A gauge by chain and network: 0 on networks with a quorum above 1, then the unattested rows' values. */
  const waitingGauge = (name: string, help: string, value: (row: QuorumRows['unattested'][number]) => number) =>
    networkGauge(
      registry,
      name,
      help,
      async () => {
        const rows = await read();
        if (!rows) return undefined;
        const zeros = deps.networks().filter((n) => n.quorum >= 2);
        return [
          ...zeros.map((n) => ({ chain: n.chain, network: n.network, value: 0 })),
          ...rows.unattested.map((row) => ({ chain: row.chain, network: row.network, value: value(row) })),
        ];
      },
      (row) => row.value,
    );
  waitingGauge(
    'gateway_watcher_unattested_transfers',
    'In-block transfers at their confirmation threshold that the quorum of providers has not attested yet (they do not count toward paid, nor as confirmed for the treasury).',
    (row) => Number(row.count),
  );
  waitingGauge(
    'gateway_watcher_unattested_oldest_seconds',
    'How long the oldest unattested transfer has waited since the providers were first asked about it; past plugins.watchers.disagreementDecisionSeconds it awaits the operator as an unattested disagreement.',
    (row) => Math.round(Number(row.oldest)),
  );
}

interface QuorumRows {
  readonly disagreements: readonly { chain: string; network: string; state: string; count: string }[];
  readonly marks: readonly { chain: string; network: string; provider: string }[];
  readonly unattested: readonly { chain: string; network: string; count: string; oldest: string }[];
}

/**
 * Per provider with a limit, read from `watchers_provider_budgets` at scrape time (the same on
 * every process): `gateway_watcher_provider_limit_share{chain,network,provider}`, how much of
 * the pace the gateway allows itself it used (the larger of the last minute's and the day's
 * share, 0..1), and `gateway_watcher_provider_resting{chain,network,provider}`, 1 while the
 * provider rests (after a 429, or its day's requests used up) and is not asked, else 0. A
 * provider never asked yet has no series.
 */
export function registerBudgetGauges(registry: Registry, deps: { usage: ProviderUsageReads; logger: Logger }): void {
  const read = scrapeRead(deps.logger, 'watcher provider budget gauges', () => deps.usage.list());
  const gauge = (name: string, help: string, value: (row: ProviderUsage) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['chain', 'network', 'provider'],
      registers: [registry],
      async collect() {
        const rows = await read();
        this.reset();
        for (const row of rows ?? []) this.set({ chain: row.chain, network: row.network, provider: row.provider }, value(row));
      },
    });
  gauge(
    'gateway_watcher_provider_limit_share',
    'Share of the pace the gateway allows itself with a provider (its limit, times publicLimitShare for a public one) used: the larger of the last minute and the UTC day, by every instance.',
    (row) => row.shareOfLimit,
  );
  gauge(
    'gateway_watcher_provider_resting',
    'Whether a provider rests (1) after a 429 or with its day`s requests used up, and is not asked until then; else 0.',
    (row) => (row.restingUntil === null ? 0 : 1),
  );
}

/**
 * The read that the gauges of one family share at a scrape (prom-client collects them
 * concurrently): one load in flight at a time; a failure is logged (`<what> unavailable`) and
 * reads as nothing, so the scrape still answers.
 */
function scrapeRead<T>(logger: Logger, what: string, load: () => Promise<T>): () => Promise<T | undefined> {
  const shared = createCoalescer<T | undefined>();
  return () =>
    shared(what, () =>
      load().then(
        (rows) => rows,
        (error: unknown) => {
          logger.warn({ err: error }, `${what} unavailable`);
          return undefined;
        },
      ),
    );
}
