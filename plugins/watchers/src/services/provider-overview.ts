import { operatorOf, type ProviderRateLimit } from '@gw/kernel';
import type { WatchersConfig } from '../config.js';
import type { DisagreementDesk } from './disagreement-desk.js';
import { paceOf, type ProviderPace } from './provider-budget.js';
import type { ProviderUsageReads } from './provider-usage.js';
import type { WatcherStatusReads } from './watcher-status.js';
import type { WatcherRegistry } from './watcher-registry.js';

/** Requests per second and per UTC day, as the CLI and the dashboard show a limit. */
export interface RateLimitView {
  readonly requests_per_second: number;
  /** Null where the provider caps no day. */
  readonly requests_per_day: number | null;
}

/** One provider of a watched network, as the operator reads it (`gateway watcher providers`, the dashboard's Watchers page). */
export interface ProviderView {
  readonly name: string;
  /** Who runs it: providers of one operator are one source for the quorum. */
  readonly operator: string;
  /** The API it speaks, where the chain's watcher reads several; null where it reads one. */
  readonly kind: string | null;
  /** `public`: from the chain's data; `configured`: from the config file. */
  readonly origin: 'public' | 'configured';
  /** The public provider's address; null for a configured one (its URL may carry a key). */
  readonly url: string | null;
  /** The limits it documents (public) or the config gives it; null: unlimited (an own node). */
  readonly limit: RateLimitView | null;
  /** The pace the gateway keeps to: `limit` × `publicLimitShare` for a public provider, `limit` for a configured one. */
  readonly paced_at: RateLimitView | null;
  /** Calls of every instance, from the shared budget; null until it was first asked (or without a limit). */
  readonly usage: {
    /** The budget it draws on: a public provider's host or operator scope (`publicnode.com`), shared by every network it serves; a configured provider's own. */
    readonly scope: string;
    /** The other watched providers drawing on the same budget, as `chain.network/provider`: the figures are theirs too. */
    readonly shared_with: readonly string[];
    /** Calls to the scope in the last 60 s and since 00:00 UTC (a JSON-RPC batch counts its calls), by every network sharing it. */
    readonly last_minute: number;
    readonly today: number;
    /** Of `paced_at`: the larger of the per-second and per-day shares, 0..1 (above 1 only in a burst). */
    readonly share_of_limit: number;
    /** ISO instant until which it rests (after a 429, or its day used up); null when it does not. */
    readonly resting_until: string | null;
  } | null;
  /** Its mark, when it was caught reporting a transfer the others do not have: passed over, and its word no longer counts. */
  readonly mark: {
    readonly reason: string;
    readonly disagreement_id: string | null;
    readonly marked_at: string;
  } | null;
}

/** One watched chain network: where its providers come from, the quorum, and each provider. */
export interface NetworkProvidersView {
  readonly chain: string;
  readonly network: string;
  /** `public`: the chain's public providers; `configured`: the config's alone; `joined`: the config's, then the public ones. */
  readonly origin: 'public' | 'configured' | 'joined';
  /** Independent providers that must report a transfer in the same block before it counts toward paid. */
  readonly quorum: number;
  /** Distinct operators among the providers. */
  readonly operators: number;
  /** Watched through public defaults the config does not name: not scanned until a pool address waits there. */
  readonly idle_until_used: boolean;
  /** Idle now: `idle_until_used` and never scanned yet (no cursor). Once scanned, a network stays followed. */
  readonly idle: boolean;
  readonly providers: readonly ProviderView[];
}

/** What {@link providerOverview} returns. */
export interface ProviderOverview {
  /** `plugins.watchers.publicLimitShare`: the share of a public provider's limit the gateway uses at most. */
  readonly public_limit_share: number;
  readonly networks: readonly NetworkProvidersView[];
  /** Said when some network is watched through public providers: they suit trials and small volumes. */
  readonly note: string | null;
}

/** Why public providers are a start, not a production set-up (the CLI, the dashboard). */
export const PUBLIC_PROVIDERS_NOTE =
  'Public providers suit trials and small volumes: they are shared with everyone, keep to low limits, and may be slow or down. For production, run your own node (quorum 1), or configure keyed providers (docs/watchers.md).';

/**
 * Every watched chain network with its providers, how close each runs to its limits and its mark
 * (issue 40): the registry says what is watched, the provider budget how much it is used, the
 * disagreement desk which providers are marked, the cursors which networks were scanned. `chain`/`network` narrow it.
 */
export async function providerOverview(
  deps: {
    watchersRegistry: WatcherRegistry;
    watchersConfig: WatchersConfig;
    watchersProviderUsage: ProviderUsageReads;
    watchersDisagreements: DisagreementDesk;
    watchersStatus: WatcherStatusReads;
  },
  filter: { readonly chain?: string | undefined; readonly network?: string | undefined } = {},
): Promise<ProviderOverview> {
  const targets = deps.watchersRegistry
    .list()
    .filter((t) => (filter.chain === undefined || t.adapter.definition.id === filter.chain) && (filter.network === undefined || t.network === filter.network));
  const [usage, marks, status] = await Promise.all([deps.watchersProviderUsage.list(), deps.watchersDisagreements.marks(), deps.watchersStatus.status()]);
  // A network with a cursor has been scanned (last_pass_iso is its row's).
  const scanned = new Set(status.filter((s) => s.last_pass_iso !== null).map((s) => JSON.stringify([s.chain, s.network])));
  const key = (chain: string, network: string, provider: string) => JSON.stringify([chain, network, provider]);
  const usageOf = new Map(usage.map((u) => [key(u.chain, u.network, u.provider), u]));
  const markOf = new Map(marks.map((m) => [key(m.chain, m.network, m.provider), m]));
  const share = deps.watchersConfig.publicLimitShare;
  const watched = new Set(deps.watchersRegistry.list().map((t) => `${t.adapter.definition.id}.${t.network}`));
  const networks = targets.map((target): NetworkProvidersView => {
    const chain = target.adapter.definition.id;
    const endpoints = target.attestors?.map((a) => a.endpoint) ?? [];
    return {
      chain,
      network: target.network,
      origin: target.origin ?? 'configured',
      quorum: target.quorum ?? 1,
      operators: new Set(endpoints.map(operatorOf)).size,
      idle_until_used: target.idleUntilUsed ?? false,
      idle: (target.idleUntilUsed ?? false) && !scanned.has(JSON.stringify([chain, target.network])),
      providers: endpoints.map((endpoint): ProviderView => {
        const origin = endpoint.origin ?? 'configured';
        const used = usageOf.get(key(chain, target.network, endpoint.name));
        const mark = markOf.get(key(chain, target.network, endpoint.name));
        return {
          name: endpoint.name,
          operator: operatorOf(endpoint),
          kind: endpoint.kind ?? null,
          origin,
          url: origin === 'public' ? endpoint.url : null,
          limit: endpoint.limit ? limitView(endpoint.limit) : null,
          paced_at: endpoint.limit ? limitView(paceOf(endpoint, share)) : null,
          usage: used
            ? {
                scope: used.scope,
                shared_with: usage
                  .filter((u) => u.scope === used.scope && u !== used && watched.has(`${u.chain}.${u.network}`))
                  .map((u) => `${u.chain}.${u.network}/${u.provider}`),
                last_minute: used.lastMinute,
                today: used.today,
                share_of_limit: used.shareOfLimit,
                resting_until: used.restingUntil && used.restingUntil.getTime() > Date.now() ? used.restingUntil.toISOString() : null,
              }
            : null,
          mark: mark ? { reason: mark.reason, disagreement_id: mark.disagreementId, marked_at: mark.markedAt.toISOString() } : null,
        };
      }),
    };
  });
  return {
    public_limit_share: share,
    networks,
    note: networks.some((n) => n.origin !== 'configured') ? PUBLIC_PROVIDERS_NOTE : null,
  };
}

function limitView(limit: ProviderRateLimit | ProviderPace): RateLimitView {
  return {
    // Rounded to what a person reads: 0.5 × 1/3 per second is 0.1667, not 0.16666666666666666.
    requests_per_second: Math.round(limit.requestsPerSecond * 10_000) / 10_000,
    requests_per_day: limit.requestsPerDay ?? null,
  };
}
