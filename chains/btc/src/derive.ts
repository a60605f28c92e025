import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as ecc from '@bitcoinerlab/secp256k1';
import * as bitcoin from 'bitcoinjs-lib';
import { coreErrors, type NetworkKind } from '@gw/kernel';
import bs58check from 'bs58check';

const bip32 = BIP32Factory(ecc);

/** SLIP-132 / BIP32 version bytes of extended keys. */
const VERSIONS = {
  xpub: 0x0488b21e,
  zpub: 0x04b24746,
  tpub: 0x043587cf,
  vpub: 0x045f1cf6,
} as const;

/** Well-formed extended keys this chain refuses, with the reason shown to the operator. */
const REFUSED: Readonly<Record<number, string>> = {
  0x049d7cb2: 'a ypub is a BIP49 (P2SH-P2WPKH) key; BIP84 needs an xpub or zpub',
  0x044a5262: 'a upub is a BIP49 (P2SH-P2WPKH) key; BIP84 needs a tpub or vpub',
  0x0295b43f: 'a Ypub is a multisig key; this gateway derives single-key P2WPKH addresses',
  0x02aa7ed3: 'a Zpub is a multisig key; this gateway derives single-key P2WPKH addresses',
  0x024289ef: 'a Upub is a multisig key; this gateway derives single-key P2WPKH addresses',
  0x02575483: 'a Vpub is a multisig key; this gateway derives single-key P2WPKH addresses',
  0x0488ade4: 'this is a private key (xprv); supply the account public key (xpub/zpub) only',
  0x04b2430c: 'this is a private key (zprv); supply the account public key (xpub/zpub) only',
  0x049d7878: 'this is a private key (yprv); supply the account public key only',
  0x04358394: 'this is a private key (tprv); supply the account public key (tpub/vpub) only',
  0x045f18bc: 'this is a private key (vprv); supply the account public key (tpub/vpub) only',
  0x044a4e28: 'this is a private key (uprv); supply the account public key only',
};

const MAINNET_VERSIONS = new Set<number>([VERSIONS.xpub, VERSIONS.zpub]);
const TESTNET_VERSIONS = new Set<number>([VERSIONS.tpub, VERSIONS.vpub]);

export const bitcoinNetworks: Readonly<Record<NetworkKind, bitcoin.Network>> = {
  mainnet: bitcoin.networks.bitcoin,
  testnet: bitcoin.networks.testnet,
};

const HARDENED = 0x80000000;

export interface ParsedBtcKey {
  /** xpub (mainnet) or tpub (testnet) serialisation of the account key. */
  readonly canonical: string;
  /** BIP44 account number taken from the key's own (hardened) child index. */
  readonly account: number;
}

/**
 * Validates an account-level BIP84 public key and returns its canonical xpub/tpub form.
 * Accepts xpub/zpub for mainnet and tpub/vpub for testnet (signet and testnet share versions).
 */
export function parseBtcAccountKey(input: string, network: NetworkKind): ParsedBtcKey {
  // Extended keys are 111 characters; the bound keeps base58's quadratic decode away from long input.
  const decoded = input.length <= 120 ? bs58check.decodeUnsafe(input) : undefined;
  const payload = decoded && Buffer.from(decoded);
  if (!payload || payload.length !== 78) {
    throw coreErrors.invalid_xpub_format({ message: 'Not a base58check-encoded BIP32 extended key.' });
  }
  const version = payload.readUInt32BE(0);
  const refused = REFUSED[version];
  if (refused) throw coreErrors.invalid_xpub_format({ message: `Unsupported extended key: ${refused}.` });
  const isMainnet = MAINNET_VERSIONS.has(version);
  const isTestnet = TESTNET_VERSIONS.has(version);
  if (!isMainnet && !isTestnet) {
    throw coreErrors.invalid_xpub_format({ message: 'Unknown extended key version; expected xpub/zpub or tpub/vpub.' });
  }
  if ((network === 'mainnet') !== isMainnet) {
    throw coreErrors.wallet_kind_mismatch({
      message: isMainnet
        ? 'This is a mainnet key (xpub/zpub); a testnet project needs a tpub or vpub.'
        : 'This is a testnet key (tpub/vpub); a production project needs an xpub or zpub.',
    });
  }
  const depth = payload[4]!;
  if (depth !== 3) {
    throw coreErrors.invalid_xpub_format({
      message: `The key is at depth ${depth}; export the account-level key at m/84'/${network === 'mainnet' ? 0 : 1}'/0' (depth 3).`,
    });
  }
  const childIndex = payload.readUInt32BE(9);
  if (childIndex < HARDENED) {
    throw coreErrors.invalid_xpub_format({
      message: 'The key is not a hardened account key; export the account-level key (m/84\'/coin\'/account\').',
    });
  }
  const neutral = Buffer.from(payload);
  neutral.writeUInt32BE(isMainnet ? VERSIONS.xpub : VERSIONS.tpub, 0);
  const canonical = bs58check.encode(neutral);
  try {
    bip32.fromBase58(canonical, bitcoinNetworks[network]);
  } catch (cause) {
    throw coreErrors.invalid_xpub_format({ message: 'The extended key does not hold a valid public key.', cause });
  }
  return { canonical, account: childIndex - HARDENED };
}

const receiveChains = new Map<string, { chain: BIP32Interface; account: number }>();

function receiveChain(canonical: string, network: NetworkKind): { chain: BIP32Interface; account: number } {
  const cacheKey = `${network}:${canonical}`;
  let entry = receiveChains.get(cacheKey);
  if (!entry) {
    const node = bip32.fromBase58(canonical, bitcoinNetworks[network]);
    entry = { chain: node.derive(0), account: node.index - HARDENED };
    if (receiveChains.size > 256) receiveChains.clear();
    receiveChains.set(cacheKey, entry);
  }
  return entry;
}

/** Public key of receive address `index` (m/84'/coin'/account'/0/index). */
export function btcReceivePublicKey(canonical: string, network: NetworkKind, index: number): Uint8Array {
  return receiveChain(canonical, network).chain.derive(index).publicKey;
}

/** Derives the P2WPKH receive address `index` and its full path. Pure. */
export function deriveBtcAddress(
  canonical: string,
  network: NetworkKind,
  index: number,
): { address: string; path: string } {
  const { chain, account } = receiveChain(canonical, network);
  const pubkey = chain.derive(index).publicKey;
  const { address } = bitcoin.payments.p2wpkh({ pubkey, network: bitcoinNetworks[network] });
  if (!address) throw new Error('p2wpkh produced no address');
  const coin = network === 'mainnet' ? 0 : 1;
  return { address, path: `m/84'/${coin}'/${account}'/0/${index}` };
}
