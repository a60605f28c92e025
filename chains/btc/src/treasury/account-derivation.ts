import * as ecc from '@bitcoinerlab/secp256k1';
import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import type { AccountKey, KeyOrigin } from '@gw/chain-api';

const bip32 = BIP32Factory(ecc);

/** The key of one address of an account and where a signer finds it (a PSBT's `bip32Derivation`). */
export interface AddressKey {
  /** The compressed public key the gateway derives from the account key. */
  readonly pubkey: Uint8Array;
  /** Its P2WPKH output script. */
  readonly script: Uint8Array;
  /** The fingerprint a signer matches against its root key. */
  readonly masterFingerprint: Uint8Array;
  /** The path from that root: `m/84'/1'/0'/0/5` with an origin, `m/0/5` without. */
  readonly path: string;
}

const nodes = new Map<string, BIP32Interface>();

/** The account key's node, or its branch node (receive, change): each derivation costs a point multiplication, so they are kept. */
function accountNode(canonical: string, network: bitcoin.Network, branch?: number): BIP32Interface {
  const cacheKey = `${network.bip32.public}:${canonical}:${branch ?? ''}`;
  let node = nodes.get(cacheKey);
  if (!node) {
    node = branch === undefined ? bip32.fromBase58(canonical, network) : accountNode(canonical, network).derive(branch);
    if (nodes.size > 512) nodes.clear();
    nodes.set(cacheKey, node);
  }
  return node;
}

/**
 * The key of address `branch`/`index` of an account, with the derivation a PSBT carries for it.
 *
 * The convention (the offline signer and hardware wallets rely on it): with a key origin
 * (`[d34db33f/84'/0'/0']xpub`), the origin's fingerprint and its path followed by
 * `/branch/index`, as BIP 174 means them. Without one, the account key stands as its own root:
 * its own fingerprint (hash160 of its public key, first 4 bytes) and the path `m/branch/index`,
 * as Electrum writes PSBTs for a keystore whose root it does not know. A signer holding the
 * account xprv matches that fingerprint directly; one holding the seed derives the plan file's
 * full path instead and checks the public key.
 */
export function addressKey(key: AccountKey, origin: KeyOrigin | undefined, branch: number, index: number, network: bitcoin.Network): AddressKey {
  const account = accountNode(key.canonical, network);
  const pubkey = accountNode(key.canonical, network, branch).derive(index).publicKey;
  const script = bitcoin.payments.p2wpkh({ pubkey, network }).output!;
  return origin
    ? { pubkey, script, masterFingerprint: Buffer.from(origin.fingerprint, 'hex'), path: `${origin.path}/${branch}/${index}` }
    : { pubkey, script, masterFingerprint: account.fingerprint, path: `m/${branch}/${index}` };
}
