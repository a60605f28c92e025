import * as bitcoin from 'bitcoinjs-lib';
import type { NetworkKind } from '@gw/chain-api';

/**
 * What makes a BIP84 (native segwit P2WPKH) chain one chain and not another: the data the BTC
 * adapter is driven by. Bitcoin is one set of these values, Litecoin another; the adapter, the key
 * parser, derivation, BIP21-style URIs, ownership proofs and the watcher read only this.
 */
export interface Bip84Params {
  /** Name in messages to operators ("Bitcoin", "Litecoin"). */
  readonly name: string;
  /** Scheme of BIP21-style payment URIs (`bitcoin`, `litecoin`). */
  readonly uriScheme: string;
  /**
   * bitcoinjs-lib network parameters by network id of the chain definition: the bech32 prefix of
   * receive addresses (`bc`, `tb`, `bcrt`, `ltc`, `tltc`, `rltc`), base58 prefixes and the BIP32 versions
   * of the canonical key form (`bip32.public`: xpub, tpub, Ltub, ttub). Every network of the
   * definition has an entry.
   */
  readonly networks: Readonly<Record<string, bitcoin.Network>>;
  /**
   * Extended public key versions accepted as account keys, by network kind, with their names
   * (SLIP-132: xpub/zpub on Bitcoin mainnet). Any of them is rewritten to the canonical version.
   */
  readonly keyVersions: Readonly<Record<NetworkKind, Readonly<Record<number, string>>>>;
  /** Well-formed extended keys refused, by version, with the reason shown to the operator. */
  readonly refusedVersions: Readonly<Record<number, string>>;
  /** BIP44 coin type of the account path per network kind (Bitcoin 0/1, Litecoin 2/1). */
  readonly coinType: Readonly<Record<NetworkKind, number>>;
  /**
   * How messages are signed (ownership proofs and payers' address signatures): `bip322` is BIP-322
   * "simple" or legacy BIP-137 through bip322-js (Bitcoin only); `bip137` is the legacy compact
   * signature over the chain's own message prefix (e.g. "\x19Litecoin Signed Message:\n", as
   * Electrum-LTC and bitcoinjs-message sign), recovered to a key whose P2PKH, P2SH-P2WPKH or P2WPKH
   * script must be the address's.
   */
  readonly messageSigning: { readonly scheme: 'bip322' } | { readonly scheme: 'bip137'; readonly prefix: string };
  /**
   * The node's dust relay fee in base units per 1,000 vbytes (Core's `-dustrelayfee`, default
   * 3,000): a treasury plan refuses an output below the dust threshold it gives for the output's
   * script type.
   */
  readonly dustRelayFeePerKvb: bigint;
  /**
   * The most base units there can ever be (Core's `MAX_MONEY`, consensus): a plan amount above it
   * is a request of the wrong shape (Bitcoin 21,000,000 BTC, Litecoin 84,000,000 LTC).
   */
  readonly maxMoney: bigint;
}

/** SLIP-132 / BIP32 version bytes Bitcoin wallets use. */
export const BIP32_VERSIONS = {
  xpub: 0x0488b21e,
  zpub: 0x04b24746,
  tpub: 0x043587cf,
  vpub: 0x045f1cf6,
} as const;

/** Bitcoin: mainnet `bc1`, signet and testnet `tb1`, regtest `bcrt1` (one testnet key works on each). */
export const bitcoinParams: Bip84Params = {
  name: 'Bitcoin',
  uriScheme: 'bitcoin',
  networks: { bitcoin: bitcoin.networks.bitcoin, signet: bitcoin.networks.testnet, testnet: bitcoin.networks.testnet, regtest: bitcoin.networks.regtest },
  keyVersions: {
    mainnet: { [BIP32_VERSIONS.xpub]: 'xpub', [BIP32_VERSIONS.zpub]: 'zpub' },
    testnet: { [BIP32_VERSIONS.tpub]: 'tpub', [BIP32_VERSIONS.vpub]: 'vpub' },
  },
  refusedVersions: {
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
  },
  coinType: { mainnet: 0, testnet: 1 },
  messageSigning: { scheme: 'bip322' },
  // Bitcoin Core's DUST_RELAY_TX_FEE (src/policy/policy.h).
  dustRelayFeePerKvb: 3000n,
  // Bitcoin Core's MAX_MONEY (src/consensus/amount.h).
  maxMoney: 21_000_000n * 100_000_000n,
};

/** Names of the accepted key versions of a network kind, for messages: `xpub/zpub`. */
export function keyNames(params: Bip84Params, network: NetworkKind): string {
  return Object.values(params.keyVersions[network]).join('/');
}
