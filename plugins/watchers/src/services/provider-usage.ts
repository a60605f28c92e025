/**
 * How close the gateway runs to its providers' limits (issue 40): the contract `doctor`, the
 * dashboard and the CLI read. Implemented by the PostgreSQL budget that paces the requests of
 * every instance (`ProviderBudget`), from the same rows.
 *
 * One entry per provider of each network, with the figures of the budget it draws on: a public
 * provider's limit holds per host or operator (`scope`), so every network it serves shows the
 * same figures, those of all of them together.
 */
export interface ProviderUsage {
  readonly chain: string;
  readonly network: string;
  readonly provider: string;
  /**
   * The budget it draws on: a public provider's host (`mempool.space`) or the wider scope its
   * chain data names (`publicnode.com`), shared by every network it serves; a configured
   * provider's own (`<chain>/<network>/<name>`).
   */
  readonly scope: string;
  /** Calls sent to its scope in the last 60 s (a JSON-RPC batch counts its calls), by every instance and network. */
  readonly lastMinute: number;
  /** Calls sent to its scope since 00:00 UTC. */
  readonly today: number;
  /** Of the pace the gateway allows itself (limit × `publicLimitShare` for public providers): the larger of the per-second and per-day shares, 0..1 (above 1 only in a burst). */
  readonly shareOfLimit: number;
  /** Resting after a 429, or the day's requests used up: asked again after it. */
  readonly restingUntil: Date | null;
}

export interface ProviderUsageReads {
  /** Every provider with a `limit` of every network that has asked it at least once. */
  list(): Promise<ProviderUsage[]>;
}
