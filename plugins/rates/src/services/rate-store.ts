import { jsonRecords, sql, sqlQuery, toPlainDecimal } from '@gw/kernel';
import type { Knex } from 'knex';
import type { Asset } from '../assets.js';
import type { ProviderRate } from '../providers/provider.js';

/** One cached quote: the latest price of `asset` from `source`. */
export interface StoredQuote {
  readonly asset: Asset;
  readonly source: string;
  readonly rate: string;
  readonly fetchedAt: Date;
}

/** The `rates_quotes` table: one row per (asset, source), shared by every process. */
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

  /**
   * Stores a provider's answer. A row is only replaced by a quote at least as recent, so an instance
   * finishing a slow fetch cannot overwrite a newer quote another instance stored meanwhile.
   */
  async write(source: string, rates: ReadonlyMap<Asset, ProviderRate>): Promise<void> {
    if (rates.size === 0) return;
    const rows = [...rates].map(([asset, { rate, at }]) => ({ asset, rate, fetched_at: at.toISOString() }));
    await sqlQuery(
      this.db,
      sql`insert into rates_quotes (asset, source, rate, fetched_at, updated_at)
          select q.asset, ${source}, q.rate::numeric, q.fetched_at, now() from ${jsonRecords(rows)} as q(asset text, rate text, fetched_at timestamptz)
          on conflict (asset, source) do update set rate = excluded.rate, fetched_at = excluded.fetched_at, updated_at = excluded.updated_at
          where rates_quotes.fetched_at <= excluded.fetched_at`,
    );
  }
}
