import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as ecc from '@bitcoinerlab/secp256k1';
import * as bitcoin from 'bitcoinjs-lib';
import { chainErrors, type NetworkKind } from '@gw/chain-api';
import bs58check from 'bs58check';
import { keyNames, type Bip84Params } from './bip84-params.js';

const bip32 = BIP32Factory(ecc);

const HARDENED = 0x80000000;

export interface ParsedBtcKey {
  /** Canonical serialisation of the account key: the network's `bip32.public` version (xpub/tpub on Bitcoin). */
  readonly canonical: string;
  /** BIP44 account number taken from the key's own (hardened) child index. */
  readonly account: number;
}

/**
 * The bitcoinjs-lib parameters a network kind's keys and addresses use: those of the chain's
 * mainnet, or of its default (first) testnet, as `networkIds` names them.
 */
export function paramsOf(params: Bip84Params, networkIds: Readonly<Record<NetworkKind, string>>, network: NetworkKind): bitcoin.Network {
  const found = params.networks[networkIds[network]];
  if (!found) throw new Error(`${params.name}: no network parameters for ${networkIds[network]}`);
  return found;
}

/**
 * Validates an account-level BIP84 public key and returns its canonical form. Accepts the versions
 * `params.keyVersions[network]` lists (Bitcoin: xpub/zpub for mainnet, tpub/vpub for testnet).
 */
export function parseBip84AccountKey(input: string, network: NetworkKind, params: Bip84Params, networkParams: bitcoin.Network): ParsedBtcKey {
  // Extended keys are 111 characters; the bound keeps base58's quadratic decode away from long input.
  const decoded = input.length <= 120 ? bs58check.decodeUnsafe(input) : undefined;
  const payload = decoded && Buffer.from(decoded);
  if (!payload || payload.length !== 78) {
    throw chainErrors.invalid_xpub_format({ message: 'Not a base58check-encoded BIP32 extended key.' });
  }
  const version = payload.readUInt32BE(0);
  const refused = params.refusedVersions[version];
  if (refused) throw chainErrors.invalid_xpub_format({ message: `Unsupported extended key: ${refused}.` });
  const isMainnet = version in params.keyVersions.mainnet;
  const isTestnet = version in params.keyVersions.testnet;
  if (!isMainnet && !isTestnet) {
    throw chainErrors.invalid_xpub_format({
      message: `Unknown extended key version; expected ${keyNames(params, 'mainnet')} or ${keyNames(params, 'testnet')}.`,
    });
  }
  if ((network === 'mainnet') !== isMainnet) {
    throw chainErrors.wallet_kind_mismatch({
      message: isMainnet
        ? `This is a mainnet key (${keyNames(params, 'mainnet')}); a testnet project needs a ${keyNames(params, 'testnet').replace('/', ' or ')}.`
        : `This is a testnet key (${keyNames(params, 'testnet')}); a production project needs a ${keyNames(params, 'mainnet').replace('/', ' or ')}.`,
    });
  }
  const depth = payload[4]!;
  if (depth !== 3) {
    throw chainErrors.invalid_xpub_format({
      message: `The key is at depth ${depth}; export the account-level key at m/84'/${params.coinType[network]}'/0' (depth 3).`,
    });
  }
  const childIndex = payload.readUInt32BE(9);
  if (childIndex < HARDENED) {
    throw chainErrors.invalid_xpub_format({
      message: "The key is not a hardened account key; export the account-level key (m/84'/coin'/account').",
    });
  }
  const neutral = Buffer.from(payload);
  neutral.writeUInt32BE(networkParams.bip32.public, 0);
  const canonical = bs58check.encode(neutral);
  try {
    bip32.fromBase58(canonical, networkParams);
  } catch (cause) {
    throw chainErrors.invalid_xpub_format({ message: 'The extended key does not hold a valid public key.', cause });
  }
  return { canonical, account: childIndex - HARDENED };
}

const receiveChains = new Map<string, { chain: BIP32Interface; account: number }>();

function receiveChain(canonical: string, networkParams: bitcoin.Network): { chain: BIP32Interface; account: number } {
  const cacheKey = `${networkParams.bech32}:${canonical}`;
  let entry = receiveChains.get(cacheKey);
  if (!entry) {
    const node = bip32.fromBase58(canonical, networkParams);
    entry = { chain: node.derive(0), account: node.index - HARDENED };
    if (receiveChains.size > 256) receiveChains.clear();
    receiveChains.set(cacheKey, entry);
  }
  return entry;
}

/** Derives the P2WPKH receive address `index` and its full path. Pure. */
export function deriveBip84Address(
  canonical: string,
  network: NetworkKind,
  index: number,
  params: Bip84Params,
  networkParams: bitcoin.Network,
): { address: string; path: string } {
  const { chain, account } = receiveChain(canonical, networkParams);
  const pubkey = chain.derive(index).publicKey;
  const { address } = bitcoin.payments.p2wpkh({ pubkey, network: networkParams });
  if (!address) throw new Error('p2wpkh produced no address');
  return { address, path: `m/84'/${params.coinType[network]}'/${account}'/0/${index}` };
}
