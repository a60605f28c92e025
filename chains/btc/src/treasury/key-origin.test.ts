import { pbkdf2Sync } from 'node:crypto';
import test from 'ava';
import { BIP32Factory } from 'bip32';
import * as ecc from '@bitcoinerlab/secp256k1';
import type { AppError, NetworkKind } from '@gw/chain-api';
import { configuredAdapter } from '@gw/chain-api/testing';
import { btcChain } from '../index.js';

const bip32 = BIP32Factory(ecc);
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const root = bip32.fromSeed(pbkdf2Sync(MNEMONIC, 'mnemonic', 2048, 64, 'sha512'));
// The master fingerprint of the BIP84 test mnemonic, as wallets show it (Sparrow, Coldcard: 73C5DA0A).
const FINGERPRINT = '73c5da0a';
const XPUB = root.derivePath("m/84'/0'/0'").neutered().toBase58();
const XPUB_ACCOUNT_1 = root.derivePath("m/84'/0'/1'").neutered().toBase58();
const TPUB = bip32
  .fromSeed(pbkdf2Sync(MNEMONIC, 'mnemonic', 2048, 64, 'sha512'), {
    wif: 0xef,
    bip32: { public: 0x043587cf, private: 0x04358394 },
    messagePrefix: '',
    bech32: 'tb',
    pubKeyHash: 0x6f,
    scriptHash: 0xc4,
  })
  .derivePath("m/84'/1'/0'")
  .neutered()
  .toBase58();
const adapter = configuredAdapter(btcChain);

function refused(t: { throws: (fn: () => unknown) => unknown }, input: string, network: NetworkKind): AppError {
  return t.throws(() => adapter.parseAccountKey(input, network)) as AppError;
}

test('the fingerprint of the test mnemonic is the one wallets show', (t) => {
  t.is(Buffer.from(root.fingerprint).toString('hex'), FINGERPRINT);
});

test('key origin: [fingerprint/84h/0h/0h]xpub gives the origin, keeps the input, and derives the same addresses as the bare key', (t) => {
  for (const input of [`[${FINGERPRINT}/84'/0'/0']${XPUB}`, `[73C5DA0A/84h/0h/0h]${XPUB}`, `  [${FINGERPRINT}/84H/0'/0h]${XPUB}\n`]) {
    const key = adapter.parseAccountKey(input, 'mainnet');
    t.deepEqual(key.origin, { fingerprint: FINGERPRINT, path: "m/84'/0'/0'" });
    t.is(key.input, input.trim());
    t.is(key.canonical, XPUB);
    const bare = adapter.parseAccountKey(XPUB, 'mainnet');
    t.is(bare.origin, undefined);
    t.deepEqual(adapter.deriveAddress(key, 0), adapter.deriveAddress(bare, 0));
    t.is(adapter.deriveAddress(key, 0).address, 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
  }
  const testnet = adapter.parseAccountKey(`[${FINGERPRINT}/84'/1'/0']${TPUB}`, 'testnet');
  t.deepEqual(testnet.origin, { fingerprint: FINGERPRINT, path: "m/84'/1'/0'" });
  t.is(adapter.deriveAddress(testnet, 0).address, 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl');
  // Another account of the same seed: its own hardened index in the origin.
  t.deepEqual(adapter.parseAccountKey(`[${FINGERPRINT}/84'/0'/1']${XPUB_ACCOUNT_1}`, 'mainnet').origin, { fingerprint: FINGERPRINT, path: "m/84'/0'/1'" });
});

test('key origin: a path that is not this chain’s account path of the key is invalid_xpub_format, naming the path expected', (t) => {
  const cases: [string, NetworkKind][] = [
    [`[${FINGERPRINT}/84'/1'/0']${XPUB}`, 'mainnet'], // testnet coin type on a mainnet key
    [`[${FINGERPRINT}/84'/0'/0']${TPUB}`, 'testnet'], // mainnet coin type on a testnet key
    [`[${FINGERPRINT}/49'/0'/0']${XPUB}`, 'mainnet'], // BIP49
    [`[${FINGERPRINT}/84'/0'/1']${XPUB}`, 'mainnet'], // the key is account 0
    [`[${FINGERPRINT}/84'/0'/0]${XPUB}`, 'mainnet'], // unhardened account
    [`[${FINGERPRINT}/84'/0'/0'/0]${XPUB}`, 'mainnet'], // too deep
    [`[${FINGERPRINT}/84'/2'/0']${XPUB}`, 'mainnet'], // Litecoin's coin type
  ];
  for (const [input, network] of cases) {
    const error = refused(t, input, network);
    t.is(error.code, 'invalid_xpub_format', input);
    t.regex(error.message, /m\/84'\/[01]'\/0'/, input);
  }
});

test('key origin: a malformed origin is invalid_xpub_format', (t) => {
  for (const input of [
    `[${FINGERPRINT}84'/0'/0']${XPUB}`,
    `[73c5da0/84'/0'/0']${XPUB}`,
    `[${FINGERPRINT}/84'/0'/0'${XPUB}`,
    `[zzzzzzzz/84'/0'/0']${XPUB}`,
    '[]',
  ]) {
    t.is(refused(t, input, 'mainnet').code, 'invalid_xpub_format', input);
  }
  // The key itself is still checked: a bad key behind a good origin.
  t.is(refused(t, `[${FINGERPRINT}/84'/0'/0']${XPUB.slice(0, -1)}x`, 'mainnet').code, 'invalid_xpub_format');
  t.is(refused(t, `[${FINGERPRINT}/84'/1'/0']${XPUB}`, 'testnet').code, 'wallet_kind_mismatch');
});

test('key origin: a path step of 2^31 or more is out of range (hardened or not), never wrapped', (t) => {
  for (const step of ['2147483648', "2147483648'", "4294967295'", '9999999999']) {
    const error = refused(t, `[${FINGERPRINT}/84'/0'/${step}]${XPUB}`, 'mainnet');
    t.is(error.code, 'invalid_xpub_format', step);
  }
  t.regex(refused(t, `[${FINGERPRINT}/84'/0'/2147483648]${XPUB}`, 'mainnet').message, /2147483648 is out of range/);
});
