import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { chainErrors, type AccountKey, type KeyOrigin } from '@gw/chain-api';

// tiny-secp256k1 (libsecp256k1 compiled to WebAssembly): a public derivation step and a signature
// check cost about a fifth of the pure-JS library's, which decides whether a 1,000-input plan is
// built and verified within a second (bench/treasury/plan-1000.ts).
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

/** Kept account and branch nodes, and derived address public keys: each derivation costs a point multiplication. */
const nodes = new Map<string, BIP32Interface>();
const pubkeys = new Map<string, Uint8Array>();
const MAX_NODES = 512;
/** Enough for a plan of several thousand inputs built and then verified. */
const MAX_PUBKEYS = 20_000;

/**
 * The account key's node, or its branch node (receive, change). A canonical form that is not an
 * extended public key of `network` is `validation_error`: a plan names a key the gateway parsed,
 * so this is a plan of the wrong shape.
 */
export function accountNode(canonical: string, network: bitcoin.Network, branch?: number): BIP32Interface {
  const cacheKey = `${network.bip32.public}:${canonical}:${branch ?? ''}`;
  let node = nodes.get(cacheKey);
  if (!node) {
    if (branch === undefined) {
      try {
        node = bip32.fromBase58(canonical, network);
      } catch (cause) {
        throw chainErrors.validation_error({ message: `The account key is not an extended public key of this network (${(cause as Error).message}).` });
      }
      if (!node.isNeutered()) throw chainErrors.validation_error({ message: 'The account key is a private key: the gateway holds public keys only.' });
    } else {
      node = accountNode(canonical, network).derive(branch);
    }
    if (nodes.size >= MAX_NODES) nodes.clear();
    nodes.set(cacheKey, node);
  }
  return node;
}

/** The public key of address `branch`/`index`: the branch node is kept, so only the last step is derived. */
function addressPubkey(canonical: string, network: bitcoin.Network, branch: number, index: number): Uint8Array {
  const cacheKey = `${network.bip32.public}:${canonical}:${branch}:${index}`;
  let pubkey = pubkeys.get(cacheKey);
  if (!pubkey) {
    pubkey = accountNode(canonical, network, branch).derive(index).publicKey;
    if (pubkeys.size >= MAX_PUBKEYS) pubkeys.clear();
    pubkeys.set(cacheKey, pubkey);
  }
  return pubkey;
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
 * full path instead and checks the public key. The origin must be normalised already
 * (`splitKeyOrigin`: lower-case fingerprint, `'` for hardened steps).
 */
export function addressKey(key: AccountKey, origin: KeyOrigin | undefined, branch: number, index: number, network: bitcoin.Network): AddressKey {
  const pubkey = addressPubkey(key.canonical, network, branch, index);
  // OP_0 <hash160(pubkey)>, written directly: bitcoinjs' payments re-validate their arguments at each call.
  const script = Uint8Array.from([0x00, 0x14, ...bitcoin.crypto.hash160(pubkey)]);
  return origin
    ? { pubkey, script, masterFingerprint: Buffer.from(origin.fingerprint, 'hex'), path: `${origin.path}/${branch}/${index}` }
    : { pubkey, script, masterFingerprint: accountNode(key.canonical, network).fingerprint, path: `m/${branch}/${index}` };
}
