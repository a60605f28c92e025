import type { Bip84Params } from '@gw/chain-btc';

/** BIP32 versions of Litecoin extended keys (Litecoin Core chainparams.cpp, SLIP-132). */
const VERSIONS = {
  /** Litecoin Core mainnet EXT_PUBLIC_KEY / EXT_SECRET_KEY. */
  Ltub: 0x019da462,
  Ltpv: 0x019d9cfe,
  /** Litecoin Core testnet and regtest EXT_PUBLIC_KEY / EXT_SECRET_KEY. */
  ttub: 0x0436f6e1,
  ttpv: 0x0436ef7d,
  /** Electrum-LTC's native segwit keys (the same bytes as Bitcoin's). */
  zpub: 0x04b24746,
  vpub: 0x045f1cf6,
  tpub: 0x043587cf,
} as const;

const MESSAGE_PREFIX = '\x19Litecoin Signed Message:\n';

/**
 * Litecoin's BIP84 parameters (Litecoin Core `src/kernel/chainparams.cpp`): bech32 `ltc` on mainnet,
 * `tltc` on testnet (testnet4) and `rltc` on regtest; base58 P2PKH 0x30 / 0x6f, P2SH 0x32 / 0x3a,
 * WIF 0xb0 / 0xef. BIP44 coin type 2 (SLIP-44), 1 on test networks.
 */
export const litecoinParams: Bip84Params = {
  name: 'Litecoin',
  uriScheme: 'litecoin',
  networks: {
    litecoin: {
      messagePrefix: MESSAGE_PREFIX,
      bech32: 'ltc',
      bip32: { public: VERSIONS.Ltub, private: VERSIONS.Ltpv },
      pubKeyHash: 0x30,
      scriptHash: 0x32,
      wif: 0xb0,
    },
    testnet: {
      messagePrefix: MESSAGE_PREFIX,
      bech32: 'tltc',
      bip32: { public: VERSIONS.ttub, private: VERSIONS.ttpv },
      pubKeyHash: 0x6f,
      scriptHash: 0x3a,
      wif: 0xef,
    },
    regtest: {
      messagePrefix: MESSAGE_PREFIX,
      bech32: 'rltc',
      bip32: { public: VERSIONS.ttub, private: VERSIONS.ttpv },
      pubKeyHash: 0x6f,
      scriptHash: 0x3a,
      wif: 0xef,
    },
  },
  keyVersions: {
    mainnet: { [VERSIONS.Ltub]: 'Ltub', [VERSIONS.zpub]: 'zpub' },
    testnet: { [VERSIONS.ttub]: 'ttub', [VERSIONS.vpub]: 'vpub', [VERSIONS.tpub]: 'tpub' },
  },
  refusedVersions: {
    0x01b26ef6: "an Mtub is a BIP49 (P2SH-P2WPKH) key; BIP84 needs an Ltub or zpub of m/84'/2'/account'",
    0x049d7cb2: 'a ypub is a BIP49 (P2SH-P2WPKH) key; BIP84 needs an Ltub or zpub',
    0x044a5262: 'a upub is a BIP49 (P2SH-P2WPKH) key; BIP84 needs a ttub, tpub or vpub',
    0x02aa7ed3: 'a Zpub is a multisig key; this gateway derives single-key P2WPKH addresses',
    0x02575483: 'a Vpub is a multisig key; this gateway derives single-key P2WPKH addresses',
    [VERSIONS.Ltpv]: 'this is a private key (Ltpv); supply the account public key (Ltub/zpub) only',
    0x01b26792: 'this is a private key (Mtpv); supply the account public key only',
    [VERSIONS.ttpv]: 'this is a private key (ttpv); supply the account public key (ttub/vpub) only',
    0x04b2430c: 'this is a private key (zprv); supply the account public key (Ltub/zpub) only',
    0x0488ade4: 'this is a private key (xprv); supply the account public key (Ltub/zpub) only',
    0x04358394: 'this is a private key (tprv); supply the account public key (ttub/vpub) only',
    0x045f18bc: 'this is a private key (vprv); supply the account public key (ttub/vpub) only',
  },
  coinType: { mainnet: 2, testnet: 1 },
  messageSigning: { scheme: 'bip137', prefix: MESSAGE_PREFIX },
  // Litecoin Core's DUST_RELAY_TX_FEE is ten times Bitcoin's: P2WPKH outputs below 2,940 litoshi and
  // P2PKH below 5,460 are dust (litecoind 0.21 refuses 2,939: plugins/watchers/test/ltc-treasury-litecoind.test.ts).
  dustRelayFeePerKvb: 30_000n,
  // Litecoin Core's MAX_MONEY (src/amount.h): 84,000,000 LTC.
  maxMoney: 84_000_000n * 100_000_000n,
};
