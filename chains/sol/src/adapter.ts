import { generateKeyPairSync } from 'node:crypto';
import {
  assertAddressIndex,
  assertKeyOfChain,
  chainErrors,
  type AccountKey,
  type ChainAdapter,
  type ChainAdapterDeps,
  type ChainDefinition,
  type DerivedAddress,
  type NetworkKind,
} from '@gw/chain-api';
import { addressOfBytes, isSolAddress } from './address.js';
import { verifyMessageSignature } from './ownership.js';
import { solanaPayUri } from './payment-uri.js';
import { SolTreasury } from './treasury/sol-treasury.js';
import { SolWatcher } from './watcher.js';

/**
 * The Solana adapter. Solana keys are ed25519 with hardened-only derivation (SLIP-10), so no public
 * key derives addresses: the wallet's "key" is the merchant's own address, receive index 0 is that
 * address, and every invoice tells its payment apart by a fresh Solana Pay reference.
 */
export function createSolAdapter(_deps: ChainAdapterDeps, definition: ChainDefinition): ChainAdapter {
  return {
    definition,

    parseAccountKey(input: string, network: NetworkKind): AccountKey {
      const trimmed = typeof input === 'string' ? input.trim() : '';
      if (!isSolAddress(trimmed)) {
        throw chainErrors.invalid_xpub_format({
          message: 'A Solana wallet is registered by its address (base58, 32 bytes), as Phantom or Solflare shows it; Solana has no extended public keys.',
        });
      }
      return { chain: definition.id, network, input: trimmed, canonical: trimmed };
    },

    deriveAddress(key: AccountKey, index: number): DerivedAddress {
      assertKeyOfChain(definition, key);
      assertAddressIndex(definition, index);
      // The path Phantom, Solflare and the Solana CLI derive the first account at (m/44'/501'/0'/0'): where the signer finds its key.
      return { index, address: key.canonical, path: `${definition.accountPath[key.network]}/0'` };
    },

    isValidAddress(address: string, _network: NetworkKind): boolean {
      return isSolAddress(address);
    },

    paymentUri: (input) => solanaPayUri(definition, input),

    async verifyOwnership(proof) {
      assertKeyOfChain(definition, proof.key);
      return verifyMessageSignature(proof.key.canonical, proof.message, proof.signature);
    },

    async verifyAddressSignature(proof) {
      return verifyMessageSignature(proof.address, proof.message, proof.signature);
    },

    newPaymentReference: freshPublicKey,

    // Sandbox keys: the address of a fresh key pair, its private half discarded.
    generateAccountKey: (_network: NetworkKind) => freshPublicKey(),

    createWatcher: (options) => new SolWatcher(definition, options),

    createAccountTreasury: (options) => new SolTreasury(definition, options),
  };
}

/** The base58 public key of a fresh ed25519 key pair whose private half is dropped: nobody holds it. */
function freshPublicKey(): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  // The raw key is the last 32 bytes of the SubjectPublicKeyInfo DER.
  return addressOfBytes(new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32)));
}
