import { randomBytes } from 'node:crypto';
import * as ecc from '@bitcoinerlab/secp256k1';
import { BIP32Factory } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import { Verifier } from 'bip322-js';
import {
  assertAddressIndex,
  assertKeyOfChain,
  paymentUriCoin,
  coreErrors,
  fromBaseUnits,
  type AccountKey,
  type ChainAdapter,
  type ChainAdapterDeps,
  type ChainDefinition,
  type DerivedAddress,
  type NetworkKind,
  type OwnershipProof,
  type PaymentUriInput,
} from '@gw/kernel';
import { bitcoinNetworks, deriveBtcAddress, parseBtcAccountKey } from './derive.js';
import { BtcWatcher } from './watcher.js';

bitcoin.initEccLib(ecc);
const bip32 = BIP32Factory(ecc);

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Bitcoin adapter: BIP84 native-segwit (P2WPKH) receive addresses, BIP21 URIs, and ownership proofs
 * by BIP-322 "simple" signatures or legacy BIP-137 message signatures.
 */
export function createBtcAdapter(_deps: ChainAdapterDeps, definition: ChainDefinition): ChainAdapter {
  const parseAccountKey = (input: string, network: NetworkKind): AccountKey => {
    const trimmed = input.trim();
    const { canonical } = parseBtcAccountKey(trimmed, network);
    return { chain: definition.id, network, input: trimmed, canonical };
  };

  const checkKey = (key: AccountKey): void => assertKeyOfChain(definition, key);

  const deriveAddress = (key: AccountKey, index: number): DerivedAddress => {
    checkKey(key);
    assertAddressIndex(definition, index);
    return { index, ...deriveBtcAddress(key.canonical, key.network, index) };
  };

  const isValidAddress = (address: string, network: NetworkKind): boolean => {
    if (typeof address !== 'string' || address.length === 0 || address.length > 100) return false;
    try {
      bitcoin.address.toOutputScript(address, bitcoinNetworks[network]);
      return true;
    } catch {
      return false;
    }
  };

  return {
    definition,
    parseAccountKey,
    deriveAddress,
    isValidAddress,

    createWatcher: (options) => new BtcWatcher(definition, options),

    generateAccountKey(network: NetworkKind): string {
      return bip32.fromSeed(randomBytes(32), bitcoinNetworks[network]).derivePath(definition.accountPath[network]).neutered().toBase58();
    },

    paymentUri(input: PaymentUriInput): string {
      const { coin } = paymentUriCoin(definition, input);
      if (!isValidAddress(input.address, input.network)) {
        throw coreErrors.validation_error({ message: 'Not a valid Bitcoin address for this network.' });
      }
      const params: string[] = [];
      if (input.amountUnits > 0n) params.push(`amount=${fromBaseUnits(input.amountUnits, coin.decimals)}`);
      if (input.label) params.push(`label=${encodeURIComponent(input.label)}`);
      if (input.memo) params.push(`message=${encodeURIComponent(input.memo)}`);
      return `bitcoin:${input.address}${params.length ? `?${params.join('&')}` : ''}`;
    },

    async verifyOwnership(proof: OwnershipProof): Promise<boolean> {
      checkKey(proof.key);
      const signature = proof.signature.trim();
      if (!BASE64.test(signature) || signature.length % 4 !== 0) {
        throw coreErrors.validation_error({ message: 'The signature must be base64 (BIP-322 simple or BIP-137).' });
      }
      const { address } = deriveAddress(proof.key, 0);
      try {
        return Verifier.verifySignature(address, proof.message, signature);
      } catch (cause) {
        throw coreErrors.validation_error({ message: 'The signature could not be parsed as BIP-322 or BIP-137.', cause });
      }
    },
  };
}
