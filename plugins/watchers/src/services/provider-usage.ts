/**
 * How close the gateway runs to its providers' limits (issue 40): the contract `doctor`, the
 * dashboard and the CLI read. Implemented by the PostgreSQL budget that paces the requests of
 * every instance (`ProviderBudget`), from the same rows.
 */
export interface ProviderUsage {
  readonly chain: string;
  readonly network: string;
  readonly provider: string;
  /** Requests sent in the last 60 s, by every instance. */
  readonly lastMinute: number;
  /** Requests sent since 00:00 UTC. */
  readonly today: number;
  /** Of the pace the gateway allows itself (limit × `publicLimitShare` for public providers): the larger of the per-second and per-day shares, 0..1 (above 1 only in a burst). */
  readonly shareOfLimit: number;
  /** Resting after a 429, or the day's requests used up: asked again after it. */
  readonly restingUntil: Date | null;
}

export interface ProviderUsageReads {
  /** Every provider with a `limit` that has been asked at least once. */
  list(): Promise<ProviderUsage[]>;
}
