import { jsonRecords, sql, sqlQuery, toPlainDecimal } from '@gw/kernel';
import type { Knex } from 'knex';
import type { Asset } from '../assets.js';
import { movedBeyond } from '../jump-check.js';
import type { ProviderRate } from '../providers/provider.js';

/** One cached quote: the latest price of `asset` from `source`. */
export interface StoredQuote {
  readonly asset: Asset;
  readonly source: string;
  readonly rate: string;
  readonly fetchedAt: Date;
}

/** A fetched rate held back by the jump check (`rates_held`, one per asset). */
export interface HeldRate {
  readonly asset: Asset;
  /** The provider that fetched it. */
  readonly source: string;
  readonly rate: string;
  readonly fetchedAt: Date;
  /** The last accepted rate of the asset it was compared with, and that rate's provider. */
  readonly acceptedRate: string;
  readonly acceptedSource: string;
  /** When a rate of the asset was first held back (a later jump replaces the rate, not this). */
  readonly heldAt: Date;
  /**
   * When its provider first gave this rate: its later answers within the share keep this (and
   * replace the rate); a jump elsewhere, or another provider's held rate, starts a new run.
   */
  readonly repeatedSince: Date;
}

/** A held rate a fetch accepted, and what accepted it. */
export interface ConfirmedRate extends HeldRate {
  /** The provider whose answer accepted it: another one than `source`, or `source` itself when `sustained`. */
  readonly confirmedBy: string;
  /** `provider`: another provider agreed; `sustained`: its provider kept giving it for `confirmSeconds`. */
  readonly how: 'provider' | 'sustained';
}

/** How {@link RateStore.record} confirms held rates. */
export interface RecordOptions {
  /** The gateway's clock: when this answer is recorded. */
  readonly now: Date;
  /** How long a provider must keep giving its held rate for it to be accepted without another provider. */
  readonly confirmSeconds: number;
  /** Runs in the transaction that accepts confirmed rates (the audit entries); not called when none is. */
  readonly onConfirmed?: (trx: Knex.Transaction, confirmed: readonly ConfirmedRate[]) => Promise<void>;
}

/** What one provider answer did to the cache. */
export interface RecordOutcome {
  /** The rates stored as accepted: the ones quotes may use. */
  readonly accepted: ReadonlyMap<Asset, ProviderRate>;
  /** The rates this answer had held back. */
  readonly held: readonly HeldRate[];
  /** Held rates the answer confirmed: the move is real, they are accepted now. */
  readonly confirmed: readonly ConfirmedRate[];
  /** Held rates of the same provider that its answer withdrew (it agrees with the accepted rate again). */
  readonly withdrawn: readonly HeldRate[];
}

/**
 * The share a fetched rate may move from the last accepted one of its asset, or undefined when the
 * rate is not checked (operator-set fixed rates, prices too old to be used).
 */
export type JumpShareOf = (asset: Asset, rate: ProviderRate) => string | undefined;

/** Every writer of `rates_quotes` and `rates_held` takes this lock: each check sees the last accepted rate. */
const WRITE_LOCK = sql`select pg_advisory_xact_lock(hashtextextended(${'rates:quotes'}, 0))`;

/**
 * The `rates_quotes` table (one row per (asset, source), shared by every process) and the rates
 * held back from it (`rates_held`).
 */
export class RateStore {
  constructor(private readonly db: Knex) {}

  /** Cached quotes, of one asset or all, ordered by asset then source. */
  async read(asset?: Asset, db: Knex | Knex.Transaction = this.db): Promise<StoredQuote[]> {
    const rows = await sqlQuery<{ asset: Asset; source: string; rate: string; fetched_at: Date }>(
      db,
      sql`select asset, source, rate::text as rate, fetched_at from rates_quotes ${asset ? sql`where asset = ${asset}` : sql``} order by asset, source`,
    );
    return rows.map((row) => ({ asset: row.asset, source: row.source, rate: toPlainDecimal(row.rate), fetchedAt: row.fetched_at }));
  }

  /** Held rates, of the given assets or all, ordered by asset. */
  async held(assets?: readonly Asset[], db: Knex | Knex.Transaction = this.db): Promise<HeldRate[]> {
    const rows = await sqlQuery<HeldRow>(
      db,
      sql`select asset, source, rate::text as rate, fetched_at, accepted_rate::text as accepted_rate, accepted_source, held_at, repeated_since
          from rates_held ${assets ? sql`where asset = any(${[...assets]}::text[])` : sql``} order by asset`,
    );
    return rows.map(heldOf);
  }

  /**
   * Stores a provider's answer through the jump check, in one transaction under the write lock:
   * for each rate with a share (see {@link JumpShareOf}),
   * - another provider's held rate of the asset agrees with it (within the share): the held rate is
   *   confirmed, both are accepted (the held one under its own provider) and the held row goes;
   * - it agrees with the last accepted rate of the asset (any provider but `fixed`, the most
   *   recently fetched), or there is none: accepted; a held rate of the same provider is withdrawn;
   * - this provider's own held rate agrees with it: a repeat, which proves nothing on its own (a
   *   provider can stay wrong): still held, the rate replaced and `repeatedSince` kept, until the
   *   run has lasted `confirmSeconds` (`now` − `repeatedSince`), when it is accepted (`sustained`);
   * - otherwise it is held (replacing an earlier held rate of the asset, a new run) and not stored
   *   as a quote.
   * Rates without a share (fixed ones, stale ones) are accepted and never confirm a held rate.
   * A row is only replaced by a quote at least as recent, so an instance finishing a slow fetch
   * cannot overwrite a newer quote another instance stored meanwhile.
   */
  async record(source: string, rates: ReadonlyMap<Asset, ProviderRate>, shareOf: JumpShareOf, options: RecordOptions): Promise<RecordOutcome> {
    const accepted = new Map<Asset, ProviderRate>();
    const held: HeldRate[] = [];
    const confirmed: ConfirmedRate[] = [];
    const withdrawn: HeldRate[] = [];
    if (rates.size === 0) return { accepted, held, confirmed, withdrawn };
    await this.db.transaction(async (trx) => {
      await sqlQuery(trx, WRITE_LOCK);
      const assets = [...rates.keys()];
      const heldNow = new Map((await this.held(assets, trx)).map((h) => [h.asset, h]));
      const references = await this.lastAccepted(assets, trx);
      const toHold: Omit<HeldRate, 'heldAt'>[] = [];
      for (const [asset, rate] of rates) {
        const share = shareOf(asset, rate);
        const heldRate = heldNow.get(asset);
        const agreesWithHeld = heldRate !== undefined && share !== undefined && !movedBeyond(heldRate.rate, rate.rate, share);
        const reference = references.get(asset);
        if (share === undefined) {
          accepted.set(asset, rate);
        } else if (agreesWithHeld && heldRate.source !== source) {
          accepted.set(asset, rate);
          confirmed.push({ ...heldRate, confirmedBy: source, how: 'provider' });
        } else if (!reference || !movedBeyond(reference.rate, rate.rate, share)) {
          accepted.set(asset, rate);
          if (heldRate?.source === source) withdrawn.push(heldRate);
        } else if (agreesWithHeld && options.now.getTime() - heldRate.repeatedSince.getTime() >= options.confirmSeconds * 1000) {
          accepted.set(asset, rate);
          confirmed.push({ ...heldRate, confirmedBy: source, how: 'sustained' });
        } else {
          toHold.push({
            asset,
            source,
            rate: rate.rate,
            fetchedAt: rate.at,
            acceptedRate: reference.rate,
            acceptedSource: reference.source,
            repeatedSince: agreesWithHeld ? heldRate.repeatedSince : options.now,
          });
        }
      }
      await this.upsert(trx, [
        // A held rate of this same provider is superseded by its newer answer.
        ...confirmed.filter((h) => h.source !== source).map((h) => ({ asset: h.asset, source: h.source, rate: h.rate, fetched_at: h.fetchedAt.toISOString() })),
        ...[...accepted].map(([asset, { rate, at }]) => ({ asset, source, rate, fetched_at: at.toISOString() })),
      ]);
      const cleared = [...confirmed, ...withdrawn].map((h) => h.asset);
      if (cleared.length > 0) await sqlQuery(trx, sql`delete from rates_held where asset = any(${cleared}::text[])`);
      if (toHold.length > 0) held.push(...(await this.hold(trx, toHold, options.now)));
      if (confirmed.length > 0) await options.onConfirmed?.(trx, confirmed);
    });
    return { accepted, held, confirmed, withdrawn };
  }

  /**
   * Accepts the held rate of `asset` at once, as if another provider had confirmed it (the operator's release):
   * stored under its provider, the held row removed, and `within` run in the same transaction (the
   * audit entry). Undefined when nothing is held.
   */
  async release(asset: Asset, within: (trx: Knex.Transaction, held: HeldRate) => Promise<void>): Promise<HeldRate | undefined> {
    return this.db.transaction(async (trx) => {
      await sqlQuery(trx, WRITE_LOCK);
      const [heldRate] = await this.held([asset], trx);
      if (!heldRate) return undefined;
      await within(trx, heldRate);
      await this.upsert(trx, [{ asset, source: heldRate.source, rate: heldRate.rate, fetched_at: heldRate.fetchedAt.toISOString() }]);
      await sqlQuery(trx, sql`delete from rates_held where asset = ${asset}`);
      return heldRate;
    });
  }

  /** The last accepted quote of each asset: the most recently fetched provider row (fixed rates are the operator's, not a reference). */
  private async lastAccepted(assets: readonly Asset[], db: Knex.Transaction): Promise<Map<Asset, { rate: string; source: string }>> {
    const rows = await sqlQuery<{ asset: Asset; source: string; rate: string }>(
      db,
      sql`select distinct on (asset) asset, source, rate::text as rate from rates_quotes
          where asset = any(${[...assets]}::text[]) and source <> 'fixed' order by asset, fetched_at desc, source`,
    );
    return new Map(rows.map((row) => [row.asset, { rate: toPlainDecimal(row.rate), source: row.source }]));
  }

  private async upsert(db: Knex.Transaction, rows: readonly { asset: Asset; source: string; rate: string; fetched_at: string }[]): Promise<void> {
    if (rows.length === 0) return;
    await sqlQuery(
      db,
      sql`insert into rates_quotes (asset, source, rate, fetched_at, updated_at)
          select q.asset, q.source, q.rate::numeric, q.fetched_at, now() from ${jsonRecords(rows)} as q(asset text, source text, rate text, fetched_at timestamptz)
          on conflict (asset, source) do update set rate = excluded.rate, fetched_at = excluded.fetched_at, updated_at = excluded.updated_at
          where rates_quotes.fetched_at <= excluded.fetched_at`,
    );
  }

  private async hold(db: Knex.Transaction, rates: readonly Omit<HeldRate, 'heldAt'>[], now: Date): Promise<HeldRate[]> {
    const rows = await sqlQuery<HeldRow>(
      db,
      sql`insert into rates_held (asset, source, rate, fetched_at, accepted_rate, accepted_source, repeated_since, held_at, updated_at)
          select h.asset, h.source, h.rate::numeric, h.fetched_at, h.accepted_rate::numeric, h.accepted_source, h.repeated_since, ${now.toISOString()}::timestamptz, now()
          from ${jsonRecords(
            rates.map((r) => ({
              asset: r.asset,
              source: r.source,
              rate: r.rate,
              fetched_at: r.fetchedAt.toISOString(),
              accepted_rate: r.acceptedRate,
              accepted_source: r.acceptedSource,
              repeated_since: r.repeatedSince.toISOString(),
            })),
          )} as h(asset text, source text, rate text, fetched_at timestamptz, accepted_rate text, accepted_source text, repeated_since timestamptz)
          on conflict (asset) do update set source = excluded.source, rate = excluded.rate, fetched_at = excluded.fetched_at,
            accepted_rate = excluded.accepted_rate, accepted_source = excluded.accepted_source, repeated_since = excluded.repeated_since,
            updated_at = excluded.updated_at
          returning asset, source, rate::text as rate, fetched_at, accepted_rate::text as accepted_rate, accepted_source, held_at, repeated_since`,
    );
    return rows.map(heldOf);
  }
}

/** A `rates_held` row as read (numerics as text). */
interface HeldRow {
  readonly asset: Asset;
  readonly source: string;
  readonly rate: string;
  readonly fetched_at: Date;
  readonly accepted_rate: string;
  readonly accepted_source: string;
  readonly held_at: Date;
  readonly repeated_since: Date;
}

function heldOf(row: HeldRow): HeldRate {
  return {
    asset: row.asset,
    source: row.source,
    rate: toPlainDecimal(row.rate),
    fetchedAt: row.fetched_at,
    acceptedRate: toPlainDecimal(row.accepted_rate),
    acceptedSource: row.accepted_source,
    heldAt: row.held_at,
    repeatedSince: row.repeated_since,
  };
}
