import type { ChainDefinition } from '@gw/kernel';

/** Highest derivation index a chain supports: its declared limit, else the BIP32 non-hardened 2^31 - 1. */
export function maxAddressIndex(definition: ChainDefinition): number {
  return definition.maxAddressIndex ?? 2_147_483_647;
}
