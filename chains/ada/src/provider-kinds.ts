import type { ProviderEndpoint } from '@gw/chain-api';

/**
 * The provider APIs the Cardano watcher reads (`ProviderEndpoint.kind`): Blockfrost-compatible REST
 * (`blockfrost`, also what an endpoint without a kind speaks, so configurations written before
 * Koios keep their meaning) and Koios API v1 (`koios`). Both can sit in one failover list.
 */
export const ADA_PROVIDER_KINDS = ['blockfrost', 'koios'] as const;

export type AdaProviderKind = (typeof ADA_PROVIDER_KINDS)[number];

/** The API `endpoint` speaks. */
export function adaProviderKind(endpoint: ProviderEndpoint): AdaProviderKind {
  return endpoint.kind === 'koios' ? 'koios' : 'blockfrost';
}

/** Throws, naming the endpoint, when one names a kind the Cardano watcher does not read. */
export function assertAdaProviderKinds(chain: string, endpoints: readonly ProviderEndpoint[]): void {
  for (const endpoint of endpoints) {
    if (endpoint.kind !== undefined && !(ADA_PROVIDER_KINDS as readonly string[]).includes(endpoint.kind)) {
      throw new Error(`${chain} provider ${endpoint.name}: kind ${endpoint.kind} is not one of ${ADA_PROVIDER_KINDS.join(', ')}`);
    }
  }
}
