import { setTimeout as sleep } from 'node:timers/promises';
import { sql, sqlQuery, type ProviderBudget, type ProviderEndpoint } from '@gw/kernel';
import type { Knex } from 'knex';
import type { WatchersConfig } from '../config.js';
import type { ProviderUsage, ProviderUsageReads } from './provider-usage.js';

/** First rest after a 429 without `Retry-After`; it doubles with each further 429 in a row, up to `maxBackoffSeconds`. */
export const FIRST_REST_MS = 1000;

/** Longest rest a `Retry-After` is obeyed for: a header asking for more is taken as a day. */
export const LONGEST_RETRY_AFTER_MS = 86_400_000;

/** Longest wait for a turn under the pace: a request that would wait longer goes to the next provider. */
export const LONGEST_TURN_WAIT_MS = 30_000;

/** The figures one endpoint's requests are paced by. */
export interface ProviderPace {
  /** Requests per second allowed: the limit's, times `publicLimitShare` for a public provider. */
  readonly requestsPerSecond: number;
  /** Requests allowed per UTC day, likewise; undefined: no cap. */
  readonly requestsPerDay: number | undefined;
}

/**
 * The budget `endpoint`'s requests draw on: its `limitScope` where the chain data names one (an
 * operator's limit across its hosts), else a public provider's URL host (every network one host
 * serves shares its limit), else, for a configured provider, its own on this network.
 */
export function budgetScopeOf(chain: string, network: string, endpoint: ProviderEndpoint): string {
  if (endpoint.limitScope !== undefined) return endpoint.limitScope;
  if (endpoint.origin === 'public') return new URL(endpoint.url).host;
  return `${chain}/${network}/${endpoint.name}`;
}

/** The pace of `endpoint` (one with a `limit`): its own limit when configured, `share` of it when public. */
export function paceOf(endpoint: ProviderEndpoint, share: number): ProviderPace {
  const limit = endpoint.limit;
  if (limit === undefined) throw new Error(`provider ${endpoint.name} has no limit to pace`);
  const factor = endpoint.origin === 'public' ? share : 1;
  return {
    requestsPerSecond: limit.requestsPerSecond * factor,
    requestsPerDay: limit.requestsPerDay === undefined ? undefined : Math.max(1, Math.floor(limit.requestsPerDay * factor)),
  };
}

interface TurnRow {
  readonly granted: boolean;
  readonly wait_ms: number;
  readonly resting_until: Date | null;
  readonly streak: number;
  /** The UTC day and epoch second the request was counted in. */
  readonly day: string;
  readonly second: string;
}

interface UsageRow {
  readonly chain: string;
  readonly network: string;
  readonly provider: string;
  readonly scope: string;
  readonly pace: number;
  readonly day_cap: number | null;
  readonly last_minute: number;
  readonly today: number;
  readonly resting_until: Date | null;
}

/**
 * The request budgets of every provider with a `limit`, kept in PostgreSQL
 * (`watchers_provider_budgets`, one row per limit scope) so that every instance of the gateway
 * paces against the same figures, and the usage reads (`ProviderUsageReads`) from the same rows.
 *
 * - **Scope.** A budget belongs to a limit scope (`budgetScopeOf`), not to one network: a public
 *   provider's host, or the wider scope its chain data names (PublicNode's `publicnode.com`),
 *   is one budget for every network it serves; a configured provider's is its own on its
 *   network. `watchers_provider_budget_users` records which provider of which network draws on
 *   which scope (at its first request in each process), for the usage reads.
 * - **Pace.** Calls within one scope are spaced at least 1 / pace apart across all instances and
 *   networks, pace being the limit's `requestsPerSecond` (times `publicLimitShare` for a public
 *   provider): each request reserves the next free moment in one statement, and waits for it. A
 *   request of N calls (a JSON-RPC batch) takes N moments: it goes at the first, and the next
 *   request waits for the other N − 1. A request whose moment is further away than the pool's
 *   timeout (at most 30 s) is not sent: the pool asks the next provider.
 * - **Day cap.** A provider whose limit has `requestsPerDay` (times the share, when public) is
 *   asked no more that UTC day once a request would pass the cap; it rests until 00:00 UTC.
 * - **429.** A provider that answers 429 rests for its `Retry-After` (at most a day), or without
 *   one for 1 s doubling with each 429 in a row up to `maxBackoffSeconds`; the next answer ends
 *   the streak. The rest is its scope's: no network sends to that host (or operator) meanwhile. A
 *   resting provider is not asked, and this process's requests that were waiting for their turn
 *   when the 429 came are not sent.
 *
 * Endpoints without a `limit` (an own node) never reach it: the pool asks the budget nothing for
 * them, so they cost no database work.
 */
export class ProviderBudgets implements ProviderUsageReads {
  /**
   * Scopes whose 429 streak may not be 0, as this process last saw it: lets `answered` skip its
   * statement in the usual case. Only an optimisation: the streak itself is in PostgreSQL, and a
   * scope missing here costs at worst a rest that doubles once more than it should.
   */
  private readonly streaking = new Set<string>();

  /** Providers (chain, network, name) this process has recorded as users of their scope, with that scope. */
  private readonly users = new Map<string, string>();

  /**
   * Rests this process learnt of (its own 429s), by scope, numbered in the order they were
   * learnt: a request that waited for its turn is not sent into a rest that began while it
   * waited. The rest itself is in PostgreSQL; a request of another instance already waiting when
   * the 429 came may still go (at most the pool's timeout of requests at the pace).
   */
  private readonly rests = new Map<string, { readonly until: number; readonly seq: number }>();
  private seq = 0;

  constructor(private readonly deps: { db: Knex; watchersConfig: WatchersConfig }) {}

  /** The budget of one chain network's providers, for its `ProviderPool` (and every `single()` pool made from it). */
  forNetwork(chain: string, network: string): ProviderBudget {
    return {
      acquire: (endpoint, calls) => this.acquire(chain, network, endpoint, Math.max(1, Math.ceil(calls ?? 1))),
      rateLimited: (endpoint, retryAfterMs) => this.rateLimited(chain, network, endpoint, retryAfterMs),
      answered: (endpoint) => this.answered(chain, network, endpoint),
    };
  }

  async list(): Promise<ProviderUsage[]> {
    const rows = await sqlQuery<UsageRow>(
      this.deps.db,
      sql`with clock as (
            select clock_timestamp() as now, (clock_timestamp() at time zone 'UTC')::date as today, floor(extract(epoch from clock_timestamp()))::bigint as second
          )
          select u.chain, u.network, u.provider, u.scope, b.pace, b.day_cap,
                 (select coalesce(sum(s.n), 0) from unnest(b.second_counts, b.second_stamps) as s(n, stamp) where s.stamp > clock.second - 60)::int as last_minute,
                 (case when b.day = clock.today then b.day_count else 0 end)::int as today,
                 greatest(
                   case when b.rest_until > clock.now then b.rest_until end,
                   case when b.day = clock.today and b.day_count >= b.day_cap then (clock.today + 1)::timestamp at time zone 'UTC' end
                 ) as resting_until
            from watchers_provider_budget_users u
            join watchers_provider_budgets b on b.scope = u.scope, clock
           order by u.chain, u.network, u.provider`,
    );
    return rows.map((row) => ({
      chain: row.chain,
      network: row.network,
      provider: row.provider,
      scope: row.scope,
      lastMinute: row.last_minute,
      today: row.today,
      shareOfLimit: Math.max(row.last_minute / (row.pace * 60), row.day_cap === null ? 0 : row.today / row.day_cap),
      restingUntil: row.resting_until,
    }));
  }

  private async acquire(chain: string, network: string, endpoint: ProviderEndpoint, calls: number): Promise<{ readonly restingUntil?: Date }> {
    const scope = budgetScopeOf(chain, network, endpoint);
    const asked = this.seq;
    const pace = paceOf(endpoint, this.deps.watchersConfig.publicLimitShare);
    const maxWaitMs = Math.min(this.deps.watchersConfig.providerTimeoutMs, LONGEST_TURN_WAIT_MS);
    const user = keyOf(chain, network, endpoint.name);
    if (this.users.get(user) !== scope) {
      // The provider's first request in this process: its scope's row (another instance or network
      // may have made it), and the record that this network's provider draws on it.
      await sqlQuery(
        this.deps.db,
        sql`insert into watchers_provider_budgets (scope, pace, day_cap, day)
            values (${scope}, ${pace.requestsPerSecond}, ${pace.requestsPerDay ?? null}, (clock_timestamp() at time zone 'UTC')::date)
            on conflict do nothing`,
      );
      await sqlQuery(
        this.deps.db,
        sql`insert into watchers_provider_budget_users (chain, network, provider, scope) values (${chain}, ${network}, ${endpoint.name}, ${scope})
            on conflict (chain, network, provider) do update set scope = excluded.scope where watchers_provider_budget_users.scope <> excluded.scope`,
      );
      this.users.set(user, scope);
    }
    const turn = await this.takeTurn(scope, pace, maxWaitMs, calls);
    if (turn === undefined) throw new Error(`the budget row of ${scope} (${chain}/${network}/${endpoint.name}) vanished`);
    if (turn.streak > 0) this.streaking.add(scope);
    if (!turn.granted) return { restingUntil: turn.resting_until! };
    if (turn.wait_ms > 0) {
      await sleep(turn.wait_ms);
      const rest = this.rests.get(scope);
      if (rest !== undefined && rest.seq > asked && rest.until > Date.now()) {
        await this.giveBack(scope, turn, calls);
        return { restingUntil: new Date(rest.until) };
      }
    }
    return {};
  }

  /**
   * One statement: locks the scope's row, decides whether a request of `calls` calls may go (not
   * resting, the day's cap not passed by it, its moment within `maxWaitMs`), and if so reserves
   * that moment and the `calls` − 1 after it and counts the calls. Undefined when the scope has no
   * row.
   */
  private async takeTurn(scope: string, pace: ProviderPace, maxWaitMs: number, calls: number): Promise<TurnRow | undefined> {
    const [row] = await sqlQuery<TurnRow>(
      this.deps.db,
      sql`with held as (
            select b.scope, b.next_at, b.rest_until, b.day, b.day_count, b.streak,
                   c.now, (c.now at time zone 'UTC')::date as today, floor(extract(epoch from c.now))::bigint as second
              from watchers_provider_budgets b, (select clock_timestamp() as now) c
             where b.scope = ${scope}
               for update of b
          ),
          decided as (
            select held.*, greatest(held.next_at, held.now) as slot,
                   coalesce(held.rest_until > held.now, false) as resting,
                   coalesce((case when held.day = held.today then held.day_count else 0 end) + ${calls}::int > ${pace.requestsPerDay ?? null}::int, false) as spent,
                   (held.second % 60 + 1)::int as ring
              from held
          ),
          turn as (
            select decided.*, not decided.resting and not decided.spent
                   and decided.slot <= decided.now + ${maxWaitMs}::float8 * interval '1 millisecond' as granted
              from decided
          ),
          taken as (
            update watchers_provider_budgets b
               set next_at = turn.slot + interval '1 second' * (${calls}::float8 / ${pace.requestsPerSecond}::float8),
                   day = turn.today,
                   day_count = case when b.day = turn.today then b.day_count + ${calls}::int else ${calls}::int end,
                   second_counts[turn.ring] = case when b.second_stamps[turn.ring] = turn.second then b.second_counts[turn.ring] + ${calls}::int else ${calls}::int end,
                   second_stamps[turn.ring] = turn.second,
                   pace = ${pace.requestsPerSecond}::float8,
                   day_cap = ${pace.requestsPerDay ?? null}::int
              from turn
             where turn.granted and b.scope = turn.scope
          )
          select turn.granted,
                 greatest(0, extract(epoch from turn.slot - turn.now) * 1000)::float8 as wait_ms,
                 case when turn.resting then turn.rest_until
                      when turn.spent then (turn.today + 1)::timestamp at time zone 'UTC'
                      when not turn.granted then turn.slot end as resting_until,
                 turn.streak, turn.today::text as day, turn.second::text as second
            from turn`,
    );
    return row;
  }

  /**
   * A turn taken but not used (a rest began while it waited): its calls are not counted as sent.
   * Its moments stay taken: the pace only gets slower for it. Rare, so a statement of its own.
   */
  private async giveBack(scope: string, turn: TurnRow, calls: number): Promise<void> {
    await sqlQuery(
      this.deps.db,
      sql`update watchers_provider_budgets b
             set day_count = case when b.day = ${turn.day}::date then greatest(b.day_count - ${calls}::int, 0) else b.day_count end,
                 second_counts[r.ring] = case when b.second_stamps[r.ring] = r.second then greatest(b.second_counts[r.ring] - ${calls}::int, 0) else b.second_counts[r.ring] end
            from (select ${turn.second}::bigint as second, (${turn.second}::bigint % 60 + 1)::int as ring) r
           where b.scope = ${scope}`,
    );
  }

  private async rateLimited(chain: string, network: string, endpoint: ProviderEndpoint, retryAfterMs: number | undefined): Promise<void> {
    const longestBackoffMs = this.deps.watchersConfig.maxBackoffSeconds * 1000;
    const scope = budgetScopeOf(chain, network, endpoint);
    this.streaking.add(scope);
    // Known at once to this process's waiting requests, before PostgreSQL has it; then its figure.
    this.rests.set(scope, { until: Date.now() + Math.min(retryAfterMs ?? FIRST_REST_MS, LONGEST_RETRY_AFTER_MS), seq: ++this.seq });
    const [rested] = await sqlQuery<{ rest_until: Date }>(
      this.deps.db,
      sql`update watchers_provider_budgets b
             set rest_until = greatest(b.rest_until, c.now + interval '1 millisecond' * coalesce(
                   least(${retryAfterMs ?? null}::float8, ${LONGEST_RETRY_AFTER_MS}::float8),
                   least(${FIRST_REST_MS}::float8 * power(2, least(b.streak, 30)), ${longestBackoffMs}::float8))),
                 streak = b.streak + 1
            from (select clock_timestamp() as now) c
           where b.scope = ${scope}
          returning b.rest_until`,
    );
    if (rested !== undefined) this.rests.set(scope, { until: rested.rest_until.getTime(), seq: ++this.seq });
  }

  private async answered(chain: string, network: string, endpoint: ProviderEndpoint): Promise<void> {
    const scope = budgetScopeOf(chain, network, endpoint);
    if (!this.streaking.has(scope)) return;
    this.streaking.delete(scope);
    await sqlQuery(this.deps.db, sql`update watchers_provider_budgets set streak = 0 where scope = ${scope} and streak > 0`);
  }
}

const keyOf = (chain: string, network: string, provider: string) => `${chain}\u0000${network}\u0000${provider}`;
