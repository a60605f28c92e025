import type { Knex } from 'knex';
import { PAID_STATUSES } from '../lifecycle/status-traits.js';

/** One bucket of the activity series (an hour or a UTC day). */
export interface ActivityBucket {
  readonly start_iso: string;
  /** Invoices created in the bucket. */
  readonly invoices: number;
  /** Invoices that reached a paid status (paid, overpaid, expired_paid_late) in the bucket. */
  readonly paid: number;
  /** USD of those payments, 2 decimals: the invoice's amount_usd, else its crypto amount at the rate recorded when paid. */
  readonly paid_usd: string;
}

/** A series and its totals. */
export interface ActivitySeries {
  readonly buckets: readonly ActivityBucket[];
  readonly invoices: number;
  readonly paid: number;
  readonly paid_usd: string;
}

/** What a paid invoice counts for in the paid volume, and the rate behind it. */
export interface PaidValue {
  /** USD, 2 decimals, as the activity sums it: amount_usd, else the crypto amount at the rate recorded when paid. */
  readonly usd: string;
  /** The USD rate recorded when the invoice was first paid; null for an invoice priced in USD without one. */
  readonly rate: string | null;
  readonly source: string | null;
}

/** A project's invoices and paid volume over the last day (hourly) and week (by UTC day). */
export interface InvoiceActivity {
  readonly last_day: ActivitySeries;
  readonly last_week: ActivitySeries;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The activity aggregate of the dashboard's overview: counts and sums in PostgreSQL over the
 * indexes (project_id, created_at) and (project_id, paid_at), so its cost follows the invoices of
 * the window, not of the project. Money stays decimal (numeric in SQL, strings here).
 */
export class InvoiceActivityReads {
  constructor(private readonly deps: { db: Knex }) {}

  /** The last 24 hours by hour and the last 7 UTC days (today included) by day, as of `now`. */
  async activity(projectId: string, now: Date = new Date()): Promise<InvoiceActivity> {
    const hourStart = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - 23 * HOUR_MS);
    const dayStart = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - 6 * DAY_MS);
    const [lastDay, lastWeek] = await Promise.all([this.series(projectId, 'hour', hourStart, 24, HOUR_MS), this.series(projectId, 'day', dayStart, 7, DAY_MS)]);
    return { last_day: lastDay, last_week: lastWeek };
  }

  /**
   * What each of the given paid invoices of the project counts for in the paid volume, by id (one
   * statement, the same sum as `activity`); invoices not paid, or paid without a recorded rate and
   * priced in crypto, are absent.
   */
  async paidValues(projectId: string, invoiceIds: readonly string[]): Promise<Map<string, PaidValue>> {
    if (invoiceIds.length === 0) return new Map();
    const { rows } = await this.deps.db.raw<{ rows: { id: string; usd: string; rate: string | null; source: string | null }[] }>(
      `select id, round(coalesce(amount_usd, amount_crypto::numeric * paid_usd_rate), 2)::text as usd, paid_usd_rate::text as rate, paid_rate_source as source
         from invoices_invoices
        where project_id = :projectId and id = any(:ids) and paid_at is not null and status = any(:paidStatuses)
          and (amount_usd is not null or paid_usd_rate is not null)`,
      { projectId, ids: [...invoiceIds], paidStatuses: [...PAID_STATUSES] },
    );
    return new Map(rows.map((r) => [r.id, { usd: r.usd, rate: r.rate, source: r.source }]));
  }

  private async series(projectId: string, unit: 'hour' | 'day', since: Date, count: number, stepMs: number): Promise<ActivitySeries> {
    // ROLLUP adds the totals as the row whose bucket is null.
    const { rows } = await this.deps.db.raw<{ rows: { bucket: Date | null; invoices: number; paid: number; paid_usd: string }[] }>(
      `with created as (
         select date_trunc(:unit, created_at at time zone 'UTC') as bucket, count(*)::int as n
           from invoices_invoices where project_id = :projectId and created_at >= :since group by 1),
       paid as (
         select date_trunc(:unit, paid_at at time zone 'UTC') as bucket, count(*)::int as n,
                sum(coalesce(amount_usd, amount_crypto::numeric * paid_usd_rate, 0)) as usd
           from invoices_invoices
          where project_id = :projectId and paid_at is not null and paid_at >= :since and status = any(:paidStatuses)
          group by 1),
       joined as (
         select coalesce(c.bucket, p.bucket) as bucket, coalesce(c.n, 0) as invoices, coalesce(p.n, 0) as paid, coalesce(p.usd, 0) as usd
           from created c full join paid p on p.bucket = c.bucket)
       select bucket at time zone 'UTC' as bucket, sum(invoices)::int as invoices, sum(paid)::int as paid, round(sum(usd), 2)::text as paid_usd
         from joined group by rollup(bucket)`,
      { unit, projectId, since, paidStatuses: [...PAID_STATUSES] },
    );
    const byStart = new Map(rows.filter((r) => r.bucket !== null).map((r) => [new Date(r.bucket!).getTime(), r]));
    const total = rows.find((r) => r.bucket === null);
    const buckets: ActivityBucket[] = [];
    for (let i = 0; i < count; i++) {
      const start = since.getTime() + i * stepMs;
      const row = byStart.get(start);
      buckets.push({ start_iso: new Date(start).toISOString(), invoices: row?.invoices ?? 0, paid: row?.paid ?? 0, paid_usd: row?.paid_usd ?? '0.00' });
    }
    return { buckets, invoices: total?.invoices ?? 0, paid: total?.paid ?? 0, paid_usd: total?.paid_usd ?? '0.00' };
  }
}
