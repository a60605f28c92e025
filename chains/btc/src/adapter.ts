import { randomBytes } from 'node:crypto';
import * as ecc from '@bitcoinerlab/secp256k1';
import { BIP32Factory } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import { Verifier } from 'bip322-js';
import {
  assertAddressIndex,
  assertKeyOfChain,
  paymentUriCoin,
  chainErrors,
  fromBaseUnits,
  type AccountKey,
  type AddressSignatureProof,
  type ChainAdapter,
  type ChainAdapterDeps,
  type ChainDefinition,
  type DerivedAddress,
  type NetworkKind,
  type OwnershipProof,
  type PaymentUriInput,
} from '@gw/chain-api';
import { verifyBip137 } from './bip137.js';
import { bitcoinParams, type Bip84Params } from './bip84-params.js';
import { deriveBip84Address, paramsOf, parseBip84AccountKey } from './derive.js';
import { assertAccountOrigin, splitKeyOrigin } from './treasury/key-origin.js';
import { BtcTreasury } from './treasury/btc-treasury.js';
import { BtcWatcher } from './watcher.js';

bitcoin.initEccLib(ecc);
const bip32 = BIP32Factory(ecc);

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The adapter factory of a BIP84 chain driven by `params`: native-segwit (P2WPKH) receive
 * addresses, BIP21-style URIs under `params.uriScheme`, ownership proofs and address signatures by
 * `params.messageSigning`, and the Esplora / Bitcoin Core RPC watcher. Bitcoin is
 * `createBip84Adapter(bitcoinParams)`; Litecoin passes its own parameters. Every network of the
 * definition needs an entry in `params.networks` (checked when the adapter is built).
 */
export function createBip84Adapter(params: Bip84Params): (deps: ChainAdapterDeps, definition: ChainDefinition) => ChainAdapter {
  return (_deps, definition) => {
    for (const network of [definition.networks.mainnet, ...definition.networks.testnets]) {
      if (!params.networks[network.id]) throw new Error(`chain ${definition.id}: no BIP84 network parameters for network ${network.id}`);
    }
    const networkIds: Readonly<Record<NetworkKind, string>> = { mainnet: definition.networks.mainnet.id, testnet: definition.networks.testnets[0].id };
    const networkParams = (network: NetworkKind) => paramsOf(params, networkIds, network);

    // A key may come in key-origin form, `[d34db33f/84'/0'/0']xpub…` (BIP 380): the origin must be
    // this chain's account path of the key, and goes into PSBTs so hardware wallets find their key.
    const parseAccountKey = (input: string, network: NetworkKind): AccountKey => {
      const trimmed = input.trim();
      const { key, origin, pathIndexes } = splitKeyOrigin(trimmed);
      const { canonical, account } = parseBip84AccountKey(key, network, params, networkParams(network));
      if (!origin) return { chain: definition.id, network, input: trimmed, canonical };
      assertAccountOrigin(pathIndexes!, params.coinType[network], network, account, params.name);
      return { chain: definition.id, network, input: trimmed, canonical, origin };
    };

    const checkKey = (key: AccountKey): void => assertKeyOfChain(definition, key);

    const deriveAddress = (key: AccountKey, index: number): DerivedAddress => {
      checkKey(key);
      assertAddressIndex(definition, index);
      return { index, ...deriveBip84Address(key.canonical, key.network, index, params, networkParams(key.network)) };
    };

    const isValidAddress = (address: string, network: NetworkKind): boolean => {
      if (typeof address !== 'string' || address.length === 0 || address.length > 100) return false;
      try {
        bitcoin.address.toOutputScript(address, networkParams(network));
        return true;
      } catch {
        return false;
      }
    };

    // One message verifier for ownership proofs (receive index 0) and payers' address signatures.
    const verifyMessage = (address: string, network: NetworkKind, message: string, raw: string): boolean => {
      const signature = raw.trim();
      const schemes = params.messageSigning.scheme === 'bip322' ? 'BIP-322 simple or BIP-137' : 'BIP-137';
      if (!BASE64.test(signature) || signature.length % 4 !== 0) {
        throw chainErrors.validation_error({ message: `The signature must be base64 (${schemes}).` });
      }
      if (params.messageSigning.scheme === 'bip137') {
        const outputScript = bitcoin.address.toOutputScript(address, networkParams(network));
        return verifyBip137(message, signature, params.messageSigning.prefix, outputScript);
      }
      try {
        return Verifier.verifySignature(address, message, signature);
      } catch (cause) {
        throw chainErrors.validation_error({ message: `The signature could not be parsed as ${schemes}.`, cause });
      }
    };

    return {
      definition,
      parseAccountKey,
      deriveAddress,
      isValidAddress,

      createWatcher: (options) => new BtcWatcher(definition, options, params),

      createTreasury: (options) => new BtcTreasury(definition, options, params),

      generateAccountKey(network: NetworkKind): string {
        return bip32.fromSeed(randomBytes(32), networkParams(network)).derivePath(definition.accountPath[network]).neutered().toBase58();
      },

      paymentUri(input: PaymentUriInput): string {
        const { coin } = paymentUriCoin(definition, input);
        if (!isValidAddress(input.address, input.network)) {
          throw chainErrors.validation_error({ message: `Not a valid ${params.name} address for this network.` });
        }
        const query: string[] = [];
        if (input.amountUnits > 0n) query.push(`amount=${fromBaseUnits(input.amountUnits, coin.decimals)}`);
        if (input.label) query.push(`label=${encodeURIComponent(input.label)}`);
        if (input.memo) query.push(`message=${encodeURIComponent(input.memo)}`);
        return `${params.uriScheme}:${input.address}${query.length ? `?${query.join('&')}` : ''}`;
      },

      async verifyOwnership(proof: OwnershipProof): Promise<boolean> {
        checkKey(proof.key);
        return verifyMessage(deriveAddress(proof.key, 0).address, proof.key.network, proof.message, proof.signature);
      },

      async verifyAddressSignature(proof: AddressSignatureProof): Promise<boolean> {
        if (!isValidAddress(proof.address, proof.network)) {
          throw chainErrors.validation_error({ message: `Not a valid ${params.name} address for this network.` });
        }
        return verifyMessage(proof.address, proof.network, proof.message, proof.signature);
      },
    };
  };
}

/** The Bitcoin adapter: {@link createBip84Adapter} with {@link bitcoinParams}. */
export const createBtcAdapter = createBip84Adapter(bitcoinParams);
