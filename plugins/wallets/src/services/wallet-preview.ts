import type { ChainId, ChainRegistry, DerivedAddress, NetworkKind } from '@gw/kernel';
import { coreErrors } from '@gw/kernel';

/** The most addresses one preview derives. */
export const PREVIEW_MAX_COUNT = 1000;

export interface WalletPreview {
  readonly chain: ChainId;
  readonly network: NetworkKind;
  readonly canonical_key: string;
  readonly derivation_path_prefix: string;
  readonly addresses: readonly DerivedAddress[];
}

/**
 * Derives the first `count` receive addresses of a key without touching the database, so an
 * operator can compare them with the wallet software before registering the key.
 */
export function previewWallet(chains: ChainRegistry, input: { chain: string; xpub: string; network: NetworkKind; count: number }): WalletPreview {
  if (!Number.isInteger(input.count) || input.count < 1 || input.count > PREVIEW_MAX_COUNT) {
    throw coreErrors.validation_error({ message: `count must be an integer from 1 to ${PREVIEW_MAX_COUNT}`, details: { field: 'count' } });
  }
  const adapter = chains.get(input.chain as ChainId);
  const key = adapter.parseAccountKey(input.xpub, input.network);
  const addresses: DerivedAddress[] = [];
  for (let index = 0; index < input.count; index++) addresses.push(adapter.deriveAddress(key, index));
  return {
    chain: adapter.definition.id,
    network: input.network,
    canonical_key: key.canonical,
    derivation_path_prefix: adapter.definition.accountPath[input.network],
    addresses,
  };
}
