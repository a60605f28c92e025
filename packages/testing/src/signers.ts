/**
 * Test wallets for every chain, built from published mnemonics/keys with each chain's own library,
 * so ownership proofs are real signatures made the way wallet software makes them.
 */
import { pbkdf2Sync } from 'node:crypto';
import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import * as ecc from '@bitcoinerlab/secp256k1';
import { BIP32Factory } from 'bip32';
import { Signer } from 'bip322-js';
import * as bitcoinMessage from 'bitcoinjs-message';
import { HDNodeWallet, Mnemonic, Wallet } from 'ethers';
import { Trx } from 'tronweb';
import { Address } from '@ton/core';
import { keyPairFromSeed, sign } from '@ton/crypto';
import { cip30SignData } from '@gw/chain-ada/testing';
import { tonChain, tonSignDataHash } from '@gw/chain-ton';
import type { ChainAdapterDeps, ChainId } from '@gw/kernel';

export const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** A wallet the tests control: its account key and a signer for receive index `i`. */
export interface TestWallet {
  readonly chain: ChainId;
  readonly xpub: string;
  /** Published address of receive index 0 (mainnet). */
  readonly address0?: string;
  sign(message: string, index?: number): Promise<string>;
}

// --- Bitcoin (BIP84; published vectors of BIP-0084) -------------------------------------------
const bip32 = BIP32Factory(ecc);
const seed = pbkdf2Sync(MNEMONIC.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
export const BTC_ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const BTC_MAIN = bip32.fromSeed(seed).derivePath("m/84'/0'/0'");
const btcAddress = (i: number): string => ['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g'][i]!;
/** BIP-322 simple signature (the modern standard; Sparrow, Bitcoin Core `signmessage` for segwit). */
export const btcWallet: TestWallet = {
  chain: 'btc',
  xpub: BTC_ZPUB,
  address0: btcAddress(0),
  sign: async (message, index = 0) => Signer.sign(BTC_MAIN.derive(0).derive(index).toWIF(), btcAddress(index), message) as string,
};
/** BIP-137 (Electrum/Trezor-style segwit message signature) by the same key. */
export const btcBip137 = (message: string, index = 0): string =>
  bitcoinMessage.sign(message, Buffer.from(BTC_MAIN.derive(0).derive(index).privateKey!), true, { segwitType: 'p2wpkh' }).toString('base64');

const testnetNetwork = { wif: 0xef, bip32: { public: 0x043587cf, private: 0x04358394 } };
const BTC_TEST = bip32.fromSeed(seed, testnetNetwork).derivePath("m/84'/1'/0'");
/** The same mnemonic's testnet account key (tpub), for testnet and sandbox projects. */
export const BTC_TPUB = BTC_TEST.neutered().toBase58();
export const btcTestnetWallet: TestWallet = {
  chain: 'btc',
  xpub: BTC_TPUB,
  address0: 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl',
  sign: async (message, index = 0) => {
    const node = BTC_TEST.derive(0).derive(index);
    const addresses = ['tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl', 'tb1qd7spv5q28348xl4myc8zmh983w5jx32cjhkn97'];
    return Signer.sign(node.toWIF(), addresses[index]!, message) as string;
  },
};

/**
 * The private key (WIF) of receive address `index` of {@link BTC_TPUB}: the operator's own wallet,
 * for tests that spend what the gateway received without the gateway. `wifVersion`: 0xef for
 * testnet and Core's regtest; bcoin's regtest reads 0x5a.
 */
export const btcTestnetReceiveKey = (index: number, wifVersion = 0xef): string =>
  bip32.fromPrivateKey(Buffer.from(BTC_TEST.derive(0).derive(index).privateKey!), Buffer.alloc(32), { ...testnetNetwork, wif: wifVersion }).toWIF();

// --- Litecoin (BIP84 m/84'/1'/0' testnet key as Litecoin Core's ttub; Electrum-LTC-style BIP-137) ---
const LTC_MESSAGE_PREFIX = '\x19Litecoin Signed Message:\n';
const LTC_TEST = bip32.fromSeed(seed, { wif: 0xef, bip32: { public: 0x0436f6e1, private: 0x0436ef7d } }).derivePath("m/84'/1'/0'");
/** The mnemonic's Litecoin testnet account key (ttub), signing with bitcoinjs-message over Litecoin's prefix. */
export const ltcTestnetWallet: TestWallet = {
  chain: 'ltc',
  xpub: LTC_TEST.neutered().toBase58(),
  address0: 'tltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9pesrjxk',
  sign: async (message, index = 0) =>
    bitcoinMessage
      .sign(message, Buffer.from(LTC_TEST.derive(0).derive(index).privateKey!), true, LTC_MESSAGE_PREFIX, { segwitType: 'p2wpkh' })
      .toString('base64'),
};

// --- Ethereum / EVM (BIP44 m/44'/60'/0'; published MetaMask vector) -----------------------------
const evmRoot = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(MNEMONIC).computeSeed());
export const ETH_XPUB = evmRoot.derivePath("m/44'/60'/0'").neuter().extendedKey;
export const ethWallet: TestWallet = {
  chain: 'eth',
  xpub: ETH_XPUB,
  address0: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
  sign: (message, index = 0) => new Wallet(evmRoot.derivePath(`m/44'/60'/0'/0/${index}`).privateKey).signMessage(message),
};

/** Another account of the same mnemonic (m/44'/60'/`account`'): a second, unrelated EVM key. */
export function evmAccountWallet(account: number): TestWallet {
  const node = evmRoot.derivePath(`m/44'/60'/${account}'`);
  return {
    chain: 'eth',
    xpub: node.neuter().extendedKey,
    address0: node.derivePath('0/0').address,
    sign: (message, index = 0) => new Wallet(node.derivePath(`0/${index}`).privateKey).signMessage(message),
  };
}

// --- TRON (BIP44 m/44'/195'/0'; TronLink vector) -----------------------------------------------
const tronAccount = evmRoot.derivePath("m/44'/195'/0'");
export const tronWallet: TestWallet = {
  chain: 'tron',
  xpub: tronAccount.neuter().extendedKey,
  address0: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
  sign: async (message, index = 0) => Trx.signMessageV2(message, tronAccount.deriveChild(0).deriveChild(index).privateKey.slice(2)),
};

// --- Cardano (CIP-1852; Keystone/Eternl vector) --------------------------------------------------
const h = (n: number): number => 0x80000000 + n;
const adaAccount = CSL.Bip32PrivateKey.from_bip39_entropy(new Uint8Array(16), new Uint8Array(0)).derive(h(1852)).derive(h(1815)).derive(h(0));
export const ADA_ACCOUNT_HEX = Buffer.from(adaAccount.to_public().as_bytes()).toString('hex');
const ADA_MAINNET_0 = 'addr1qy8ac7qqy0vtulyl7wntmsxc6wex80gvcyjy33qffrhm7sh927ysx5sftuw0dlft05dz3c7revpf7jx0xnlcjz3g69mq4afdhv';
/** CIP-30 `signData` result ({signature, key} COSE hex) by payment key 0/index, address header of index 0. */
export const adaWallet: TestWallet = {
  chain: 'ada',
  xpub: ADA_ACCOUNT_HEX,
  address0: ADA_MAINNET_0,
  sign: async (message, index = 0) => {
    return cip30SignData(adaAccount.derive(0).derive(index).to_raw_key(), CSL.Address.from_bech32(ADA_MAINNET_0).to_bytes(), message);
  },
};

// --- TON (ed25519 public key; V5R1 wallet per subwallet index; TON Connect signData) -------------
const tonAdapter = tonChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, tonChain.definition);
const tonKeys = keyPairFromSeed(Buffer.alloc(32, 7));
export const tonWallet: TestWallet = {
  chain: 'ton',
  xpub: tonKeys.publicKey.toString('hex'),
  sign: async (message, index = 0) => {
    const key = tonAdapter.parseAccountKey(tonKeys.publicKey.toString('hex'), 'mainnet');
    const wallet = Address.parse(tonAdapter.deriveAddress(key, index).address);
    const timestamp = Math.floor(Date.now() / 1000);
    const domain = 'operator.example';
    const signature = sign(tonSignDataHash(wallet, domain, timestamp, message), tonKeys.secretKey).toString('base64');
    return JSON.stringify({ signature, address: wallet.toRawString(), timestamp, domain, payload: { type: 'text', text: message } });
  },
};
/** A payer's TON address signature by the same key: `<public key hex>.<ed25519 signature hex>` of the UTF-8 message. */
export const tonAddressSign = async (message: string): Promise<string> =>
  `${tonKeys.publicKey.toString('hex')}.${sign(Buffer.from(message, 'utf8'), tonKeys.secretKey).toString('hex')}`;
/** A TON key the operator does not control (foreign signer). */
export const foreignTonSign = async (message: string): Promise<string> => {
  const other = keyPairFromSeed(Buffer.alloc(32, 9));
  const key = tonAdapter.parseAccountKey(other.publicKey.toString('hex'), 'mainnet');
  const wallet = Address.parse(tonAdapter.deriveAddress(key, 0).address);
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = sign(tonSignDataHash(wallet, 'operator.example', timestamp, message), other.secretKey).toString('base64');
  return JSON.stringify({ signature, address: wallet.toRawString(), timestamp, domain: 'operator.example', payload: { type: 'text', text: message } });
};
