import * as ecc from '@bitcoinerlab/secp256k1';
import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import bs58check from 'bs58check';
import { KNOWN_PRIVATE_VERSIONS, type Bip84Chain, type NetworkKind } from './chains.js';
import { HARDENED, type AddressPath } from './derivation-path.js';
import { seedOf, type Secret } from './secret.js';
import { refuse } from './signer-error.js';

bitcoin.initEccLib(ecc);
const bip32 = BIP32Factory(ecc);

/** The keys of one BIP 84 chain and network a secret gives: account nodes and P2WPKH keys by path. */
export interface Bip84Keyring {
  readonly chain: Bip84Chain;
  readonly params: bitcoin.Network;
  /** Fingerprint of the master key (8 hex digits) when the secret is a mnemonic; null for an account key. */
  readonly masterFingerprint: string | null;
  /** The one account an account private key gives; null for a mnemonic (every account). */
  readonly ownAccount: number | null;
  /**
   * The account node `m/84'/coinType'/account'`. An account private key gives itself whatever the
   * path: whether it is the plan's account is checked against the plan's account key.
   */
  account(coinType: number, account: number): BIP32Interface;
  /** The key at a full path (already checked for purpose and coin type). */
  keyAt(path: AddressPath): BIP32Interface;
}

/** The P2WPKH address of a public key on `params`. */
export function p2wpkhAddress(publicKey: Uint8Array, params: bitcoin.Network): string {
  const { address } = bitcoin.payments.p2wpkh({ pubkey: publicKey, network: params });
  if (!address) throw new Error('p2wpkh produced no address');
  return address;
}

/**
 * The keyring of `secret` on `chain`'s network `networkId`. A mnemonic gives every account; an
 * account private key gives its own account only (its child index: the plan's account path must
 * name that account, and its key is compared with the plan's account key), and must be of the
 * chain's own versions for the network's kind (an xprv signs no testnet plan, a tprv no mainnet
 * plan: `wrong_network`; an xprv no Litecoin plan: `wrong_key`).
 */
export function bip84Keyring(secret: Secret, chain: Bip84Chain, networkId: string): Bip84Keyring {
  const network = chain.networks[networkId];
  if (!network) return refuse('wrong_network', `${chain.name} has no network "${networkId}".`);
  const { params, kind } = network;
  if (secret.kind === 'cardano-account') return refuse('wrong_key', `An acct_xsk key is a Cardano key; it signs no ${chain.name} plan.`);

  if (secret.kind === 'mnemonic') {
    const root = bip32.fromSeed(seedOf(secret), params);
    const accounts = new Map<string, BIP32Interface>();
    const account = (coinType: number, n: number): BIP32Interface => {
      let node = accounts.get(`${coinType}/${n}`);
      if (!node) {
        node = root.deriveHardened(84).deriveHardened(coinType).deriveHardened(n);
        accounts.set(`${coinType}/${n}`, node);
      }
      return node;
    };
    return {
      chain,
      params,
      masterFingerprint: Buffer.from(root.fingerprint).toString('hex'),
      ownAccount: null,
      account,
      keyAt: (path) => account(path.coinType, path.account).derive(path.branch).derive(path.index),
    };
  }

  const node = accountNode(secret, chain, kind, params);
  return {
    chain,
    params,
    masterFingerprint: null,
    ownAccount: node.index - HARDENED,
    account: () => node,
    keyAt: (path) => node.derive(path.branch).derive(path.index),
  };
}

function accountNode(secret: Extract<Secret, { kind: 'bip32-account' }>, chain: Bip84Chain, kind: NetworkKind, params: bitcoin.Network): BIP32Interface {
  const other: NetworkKind = kind === 'mainnet' ? 'testnet' : 'mainnet';
  const name = chain.privateVersions[kind][secret.version];
  const otherName = chain.privateVersions[other][secret.version];
  if (!name) {
    if (otherName) refuse('wrong_network', `This is a ${other} key (${otherName}); the plan is for a ${kind} network of ${chain.name}.`);
    const known = KNOWN_PRIVATE_VERSIONS[secret.version];
    if (known && known.chain !== chain.name) {
      refuse(
        'wrong_key',
        `This is a ${known.chain} account key (${known.name}); it signs no ${chain.name} plan (accepted: ${Object.values(chain.privateVersions[kind]).join(', ')}). ` +
          `The same key could spend ${known.chain} coins, whose scripts are the same: sign with the mnemonic instead.`,
      );
    }
    refuse(
      'wrong_key',
      `This extended key is not an account private key of ${chain.name} (accepted: ${Object.values(chain.privateVersions[kind]).join(', ')}).`,
    );
  }
  const payload = Buffer.from(secret.payload);
  if (payload[4] !== 3) refuse('wrong_key', `The ${name} is at depth ${payload[4]}; give the account key (depth 3, m/84'/coin'/account').`);
  payload.writeUInt32BE(params.bip32.private, 0);
  let node: BIP32Interface;
  try {
    node = bip32.fromBase58(bs58check.encode(payload), params);
  } catch {
    return refuse('secret_unreadable', `The ${name} does not hold a valid private key.`);
  }
  if (node.isNeutered()) refuse('secret_unreadable', `The ${name} holds no private key.`);
  if (node.index < HARDENED) refuse('wrong_key', `The ${name} is not a hardened account key (m/84'/coin'/account').`);
  return node;
}

/**
 * Whether an account node is the account key a plan names (xpub, tpub, Ltub, ttub, zpub, vpub: any
 * version): the same public key and chain code.
 */
export function isSameAccountKey(node: BIP32Interface, planKey: string): boolean {
  const decoded = planKey.length <= 120 ? bs58check.decodeUnsafe(planKey.trim()) : undefined;
  if (!decoded || decoded.length !== 78) return false;
  const chainCode = decoded.subarray(13, 45);
  const publicKey = decoded.subarray(45, 78);
  return Buffer.from(chainCode).equals(Buffer.from(node.chainCode)) && Buffer.from(publicKey).equals(Buffer.from(node.publicKey));
}
