import { assertAddressIndex, assertKeyOfChain, type AccountKey, type ChainAdapter, type ChainDefinition, type NetworkKind } from '@gw/chain-api';
import { generateAccountXpub, parseAccountXpub } from './xpub.js';

/**
 * The account-key half of an adapter for chains that derive from a BIP32 `xpub` at
 * m/44'/coinType'/account' (the EVM chains and TRON): parsing, derivation of receive index `i`
 * with `derive`, and generation of a fresh key. The address format is the chain's own.
 */
export function bip44AccountKeys(
  definition: ChainDefinition,
  coinType: number,
  derive: (canonicalXpub: string, index: number) => { address: string; path: string },
): Pick<ChainAdapter, 'parseAccountKey' | 'deriveAddress' | 'generateAccountKey'> {
  return {
    parseAccountKey(input: string, network: NetworkKind): AccountKey {
      const trimmed = input.trim();
      const { canonical } = parseAccountXpub(trimmed, network, coinType);
      return { chain: definition.id, network, input: trimmed, canonical };
    },
    deriveAddress(key: AccountKey, index: number) {
      assertKeyOfChain(definition, key);
      assertAddressIndex(definition, index);
      return { index, ...derive(key.canonical, index) };
    },
    generateAccountKey(network: NetworkKind): string {
      return generateAccountXpub(definition.accountPath[network]);
    },
  };
}
