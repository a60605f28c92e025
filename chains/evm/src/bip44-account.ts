import {
  assertAddressIndex,
  chainErrors,
  type AddressSignatureProof,
  assertKeyOfChain,
  type AccountKey,
  type ChainAdapter,
  type ChainDefinition,
  type NetworkKind,
  type OwnershipProof,
} from '@gw/chain-api';
import type { Signature } from 'ethers';
import { recoverSigner } from './recoverable-signature.js';
import { generateAccountXpub, parseAccountXpub } from './xpub.js';

/** What a chain that derives from a BIP32 `xpub` at m/44'/coinType'/account' does its own way. */
export interface Bip44AccountChain {
  readonly coinType: number;
  /** Receive address `index` of a canonical account xpub, with its full path. */
  readonly derive: (canonicalXpub: string, index: number) => { address: string; path: string };
  /** Whether a string is an address of the chain (one form on every network). */
  readonly isAddress: (address: string) => boolean;
  /**
   * The one form of a valid address that `signerOf` returns, to compare a claimed address with
   * (EVM: EIP-55 checksummed, so a lower-case address matches; TRON: the base58 address as is).
   */
  readonly canonicalAddress: (address: string) => string;
  /** The message-signing standard of the chain's wallets, named in errors (`EIP-191 personal_sign`). */
  readonly signingStandard: string;
  /** The address whose key signed `message` with `signature`, as the chain's wallets sign. */
  readonly signerOf: (message: string, signature: Signature) => string;
}

/**
 * The half of an adapter that the chains deriving from a BIP32 `xpub` (the EVM chains and TRON)
 * share: key parsing, derivation of receive index `i`, generation of a fresh key, address validity,
 * ownership proofs, which hold when the signature's signer is the key's receive address 0, and
 * address signatures, which hold when it is the claimed address.
 * Payment URIs and the watcher are the chain's own.
 */
export function bip44AdapterBase(
  definition: ChainDefinition,
  chain: Bip44AccountChain,
): Pick<ChainAdapter, 'parseAccountKey' | 'deriveAddress' | 'generateAccountKey' | 'isValidAddress' | 'verifyOwnership' | 'verifyAddressSignature'> {
  const deriveAddress = (key: AccountKey, index: number) => {
    assertKeyOfChain(definition, key);
    assertAddressIndex(definition, index);
    return { index, ...chain.derive(key.canonical, index) };
  };
  const signerOf = (message: string, signature: string): string => recoverSigner(signature, chain.signingStandard, (parsed) => chain.signerOf(message, parsed));
  return {
    parseAccountKey(input: string, network: NetworkKind): AccountKey {
      const trimmed = input.trim();
      const { canonical } = parseAccountXpub(trimmed, network, chain.coinType);
      return { chain: definition.id, network, input: trimmed, canonical };
    },
    deriveAddress,
    generateAccountKey(network: NetworkKind): string {
      return generateAccountXpub(definition.accountPath[network]);
    },
    isValidAddress(address: string, _network: NetworkKind): boolean {
      return chain.isAddress(address);
    },
    async verifyOwnership(proof: OwnershipProof): Promise<boolean> {
      const expected = deriveAddress(proof.key, 0).address;
      return signerOf(proof.message, proof.signature) === expected;
    },
    async verifyAddressSignature(proof: AddressSignatureProof): Promise<boolean> {
      if (!chain.isAddress(proof.address)) throw chainErrors.validation_error({ message: `Not a valid ${definition.name} address.` });
      return signerOf(proof.message, proof.signature) === chain.canonicalAddress(proof.address);
    },
  };
}
