import type { ChainId } from '@gw/kernel';

/** The pg-boss queue that pre-derives addresses (scheduled every minute, and sent when a pool runs low). */
export const REPLENISH_JOB = 'address-pool.replenish';

/** Payload of a replenish job: one pool, or every verified pool when empty (the schedule). */
export interface ReplenishJobData {
  readonly projectId?: string;
  readonly chain?: ChainId;
}
