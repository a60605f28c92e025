/**
 * Public providers: the endpoints a chain's data lists for each of its networks, usable with no
 * key, so that a fresh install watches every chain without configuring one (issue 40). Plain data,
 * in each chain's own definition (`NetworkDefinition.publicProviders`); the watchers plugin turns
 * them into provider endpoints when a network has no configuration of its own.
 */

/**
 * A provider's request limits as its operator documents them. The watchers send at most
 * `plugins.watchers.publicLimitShare` of them (the rest is left to other users of the same
 * address), paced across every instance of the gateway.
 */
export interface ProviderRateLimit {
  /** Sustained requests per second (a fraction for slower limits: toncenter without a key allows 1). */
  readonly requestsPerSecond: number;
  /** Requests per UTC day, where the provider also caps the day. */
  readonly requestsPerDay?: number;
}

/** One public provider of one network. */
export interface PublicProvider {
  /** Label in logs, metrics, `doctor` and the dashboard (`mempool.space`, `publicnode`). */
  readonly name: string;
  /**
   * Who runs it. Providers with the same operator are one source for the quorum (issue 40): two
   * endpoints of one company can serve the same lie.
   */
  readonly operator: string;
  /** Base URL, as a configured provider's `url`. */
  readonly url: string;
  /** The API it speaks, where the chain's watcher reads several (btc `esplora`, ada `koios`). */
  readonly kind?: string;
  readonly limit: ProviderRateLimit;
  /**
   * Whose limit `limit` is, where its operator applies it wider than this URL's host: every
   * provider of the same scope, whatever its network, draws on one budget (PublicNode's
   * `publicnode.com`: one limit for a client across the hosts of every chain it serves). Absent:
   * the URL's host, so that the networks one host serves (mempool.space's mainnet and signet)
   * share its limit.
   */
  readonly limitScope?: string;
  /** Where the limit (or the lack of a published one, and the figure chosen) is documented. */
  readonly source: string;
}

/**
 * One operator's public provider, its facts (name, operator, kind, limit and where the limit is
 * documented) written once: the function gives its entry at each network's URL
 * (`mempoolSpace('https://mempool.space/signet/api')`).
 */
export function publicProviderAt(facts: Omit<PublicProvider, 'url'>): (url: string) => PublicProvider {
  return (url) => ({ ...facts, url });
}
