import type { ChainId, NetworkKind } from './network.js';

/*
 * Account keys and derived addresses: a leaf of the chain contract, so the adapter contract
 * (chain.ts) and the treasury contract (treasury/chain-treasury.ts) both use them without an
 * import cycle between the two.
 */

/** A validated account-level public key, ready for derivation. */
export interface AccountKey {
  readonly chain: ChainId;
  readonly network: NetworkKind;
  /** The key exactly as the operator supplied it (trimmed). */
  readonly input: string;
  /** A canonical serialisation the adapter can parse again (e.g. xpub/tpub form, hex). */
  readonly canonical: string;
  /**
   * The key origin, when the operator registered the key in key-origin form
   * (`[d34db33f/84'/0'/0']xpub...`, BIP 380): PSBTs then carry the master fingerprint and full path
   * so hardware wallets sign them. Absent for a bare key.
   */
  readonly origin?: KeyOrigin;
}

/** One derived receive address. */
export interface DerivedAddress {
  readonly index: number;
  readonly address: string;
  /** Full path matching `^m(\/\d+'?)+$`, e.g. `m/84'/0'/0'/0/5`. */
  readonly path: string;
}

/** The key origin of an account key: the master key fingerprint and the path from it (BIP 32, BIP 380 key expressions). */
export interface KeyOrigin {
  /** 8 lower-case hex digits. */
  readonly fingerprint: string;
  /** `m/84'/0'/0'`. */
  readonly path: string;
}
