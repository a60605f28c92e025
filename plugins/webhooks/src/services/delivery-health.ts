import { isoTimeOrNull, ulidFloor } from '@gw/kernel';
import type { Knex } from 'knex';

/** A project's webhook health at a glance (the dashboard's overview). */
export interface DeliveryHealth {
  /** Events delivered in the last 24 hours. */
  readonly delivered_last_day: number;
  /** Events waiting for their first or next attempt. */
  readonly retrying: number;
  /** Events whose every attempt failed (dead-lettered), all time. */
  readonly dead_lettered: number;
  /** Creation time of the oldest event still retrying; null when none. */
  readonly oldest_undelivered_iso: string | null;
}

/**
 * Counts of the delivery log for one project, each over the index (project_id, status, id): the
 * retrying and dead-lettered backlogs are bounded by the retry policy, the delivered count by its
 * 24-hour window (event ids are time-ordered ULIDs).
 */
export class DeliveryHealthReads {
  constructor(private readonly deps: { db: Knex }) {}

  async health(projectId: string, now: Date = new Date()): Promise<DeliveryHealth> {
    const since = ulidFloor(now.getTime() - 24 * 3_600_000);
    const { rows } = await this.deps.db.raw<{ rows: { delivered: number; retrying: number; dead: number; oldest: Date | null }[] }>(
      `select
         (select count(*)::int from webhooks_events where project_id = :projectId and status = 'delivered' and id >= :since) as delivered,
         (select count(*)::int from webhooks_events where project_id = :projectId and status = 'retrying') as retrying,
         (select count(*)::int from webhooks_events where project_id = :projectId and status = 'dlq') as dead,
         (select created_at from webhooks_events where project_id = :projectId and status = 'retrying' order by id limit 1) as oldest`,
      { projectId, since },
    );
    const row = rows[0]!;
    return {
      delivered_last_day: row.delivered,
      retrying: row.retrying,
      dead_lettered: row.dead,
      oldest_undelivered_iso: isoTimeOrNull(row.oldest),
    };
  }
}
