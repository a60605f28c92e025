import type { ProviderOutcome } from '@gw/kernel';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The watchers' Prometheus metrics: per chain and network, and per provider. */
export interface WatcherMetrics {
  readonly head: Gauge<'chain' | 'network'>;
  readonly cursor: Gauge<'chain' | 'network'>;
  readonly lag: Gauge<'chain' | 'network'>;
  readonly transfers: Counter<'chain' | 'network'>;
  readonly reorgs: Counter<'chain' | 'network'>;
  readonly scanFailures: Counter<'chain' | 'network' | 'kind'>;
  readonly mempoolFailures: Counter<'chain' | 'network' | 'kind'>;
  readonly mempoolDropped: Counter<'chain' | 'network'>;
  readonly providerRequests: Counter<'chain' | 'network' | 'provider' | 'operation' | 'outcome'>;
  readonly providerDuration: Histogram<'chain' | 'network' | 'provider'>;
  /** The pool's `onOutcome` for one network. */
  outcomeRecorder(chain: string, network: string): (outcome: ProviderOutcome) => void;
}

export function createWatcherMetrics(registry: Registry): WatcherMetrics {
  const registers = [registry];
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
    head: new Gauge({ name: 'gateway_watcher_head_height', help: 'Chain tip as the provider reports it.', labelNames: ['chain', 'network'], registers }),
    cursor: new Gauge({ name: 'gateway_watcher_cursor_height', help: 'Last block fully processed.', labelNames: ['chain', 'network'], registers }),
    lag: new Gauge({ name: 'gateway_watcher_lag_blocks', help: 'Blocks between the tip and the last processed block.', labelNames: ['chain', 'network'], registers }),
    transfers: new Counter({ name: 'gateway_watcher_transfers_total', help: 'New transfers to pool addresses recorded.', labelNames: ['chain', 'network'], registers }),
    reorgs: new Counter({ name: 'gateway_watcher_reorgs_total', help: 'Chain reorganisations followed.', labelNames: ['chain', 'network'], registers }),
    scanFailures: new Counter({ name: 'gateway_watcher_scan_failures_total', help: 'Scan passes rolled back, by failure kind.', labelNames: ['chain', 'network', 'kind'], registers }),
    mempoolFailures: new Counter({
      name: 'gateway_watcher_mempool_failures_total',
      help: 'Mempool probes that failed (block scanning is unaffected), by failure kind.',
      labelNames: ['chain', 'network', 'kind'],
      registers,
    }),
    mempoolDropped: new Counter({ name: 'gateway_watcher_mempool_dropped_total', help: 'Transfers dropped after the mempool timeout without a block.', labelNames: ['chain', 'network'], registers }),
    providerRequests,
    providerDuration,
    outcomeRecorder: (chain, network) => (outcome) => {
      providerRequests.inc({ chain, network, provider: outcome.provider, operation: outcome.operation, outcome: outcome.outcome });
      providerDuration.observe({ chain, network, provider: outcome.provider }, outcome.durationMs / 1000);
    },
  };
}
