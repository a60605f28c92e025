import { pbkdf2Sync } from 'node:crypto';
import test from 'ava';
import { BIP32Factory } from 'bip32';
import * as ecc from '@bitcoinerlab/secp256k1';
import { Signer, Verifier } from 'bip322-js';
import * as bitcoin from 'bitcoinjs-lib';
import * as bitcoinMessage from 'bitcoinjs-message';
import type { AppError, ChainAdapterDeps, NetworkKind } from '@gw/chain-api';
import { chainConformance, configuredAdapter } from '@gw/chain-api/testing';
import { btcChain } from './index.js';
import bs58check from 'bs58check';

const adapter = btcChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, btcChain.definition);
const bip32 = BIP32Factory(ecc);

// BIP84 test vectors (https://github.com/bitcoin/bips/blob/master/bip-0084.mediawiki#test-vectors),
// mnemonic "abandon abandon ... about".
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const BIP84_ROOT_ZPUB = 'zpub6jftahH18ngZxLmXaKw3GSZzZsszmt9WqedkyZdezFtWRFBZqsQH5hyUmb4pCEeZGmVfQuP5bedXTB8is6fTv19U1GQRyQUKQGUTzyHACMF';
const BIP84_ACCOUNT_ZPRV = 'zprvAdG4iTXWBoARxkkzNpNh8r6Qag3irQB8PzEMkAFeTRXxHpbF9z4QgEvBRmfvqWvGp42t42nvgGpNgYSJA9iefm1yYNZKEm7z6qUWCroSQnE';
const BIP84_ACCOUNT_ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
// A mistyped copy of that zpub (wrong tail) that circulates in notes; its checksum fails.
const MISTYPED_ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AWkkW5hCe3';
const BIP84_ADDR_0 = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const BIP84_ADDR_1 = 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g';
const BIP84_WIF_0 = 'KyZpNDKnfs94vbrwhJneDi77V6jF64PWPF8x5cdJb8ifgg2DUc9d';
const BIP84_WIF_1 = 'Kxpf5b8p3qX56DKEe5NqWbNUP9MnqoRFzZwHRtsFqhzuvUJsYZCy';

// BIP84 publishes no testnet vectors. The same mnemonic at m/84'/1'/0'/0/{0,1} gives these
// addresses in many independent wallet test suites (e.g. AdaLite/Edge/Trezor-derived fixtures).
const TESTNET_ADDR_0 = 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl';
const TESTNET_ADDR_1 = 'tb1qd7spv5q28348xl4myc8zmh983w5jx32cjhkn97';

/** BIP39 seed: PBKDF2-HMAC-SHA512(mnemonic, "mnemonic", 2048, 64). */
function seedOf(mnemonic: string): Buffer {
  return pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
}

function withVersion(key: string, version: number): string {
  const payload = Buffer.from(bs58check.decode(key));
  payload.writeUInt32BE(version, 0);
  return bs58check.encode(payload);
}

const testnetAccount = bip32
  .fromSeed(seedOf(MNEMONIC), {
    wif: 0xef,
    bip32: { public: 0x043587cf, private: 0x04358394 },
  })
  .derivePath("m/84'/1'/0'");
const TESTNET_TPUB = testnetAccount.neutered().toBase58();
const TESTNET_VPUB = withVersion(TESTNET_TPUB, 0x045f1cf6);

// The shared chain conformance suite: the BIP84 vectors on both network kinds, BIP-322 simple
// proofs signed by bip322-js with the vectors' own keys, BIP21 URIs.
const receive = (path: string, addresses: readonly string[]) => addresses.map((address, index) => ({ index, address, path: `${path}/0/${index}` }));
chainConformance(test, {
  module: btcChain,
  vectors: {
    mainnet: { key: BIP84_ACCOUNT_ZPUB, addresses: receive("m/84'/0'/0'", [BIP84_ADDR_0, BIP84_ADDR_1]), source: 'BIP84 test vectors' },
    testnet: { key: TESTNET_TPUB, addresses: receive("m/84'/1'/0'", [TESTNET_ADDR_0, TESTNET_ADDR_1]), source: "BIP84 mnemonic at m/84'/1'/0'" },
  },
  keysEncodeNetwork: true,
  sign: (message, network) =>
    (network === 'mainnet'
      ? Signer.sign(BIP84_WIF_0, BIP84_ADDR_0, message)
      : Signer.sign(testnetAccount.derive(0).derive(0).toWIF(), TESTNET_ADDR_0, message)) as string,
  paymentUris: [
    {
      input: { coin: 'btc', network: 'mainnet', address: BIP84_ADDR_0, amountUnits: 123_456_789n, label: 'Order #42' },
      uri: `bitcoin:${BIP84_ADDR_0}?amount=1.23456789&label=Order%20%2342`,
    },
    { input: { coin: 'btc', network: 'testnet', address: TESTNET_ADDR_0, amountUnits: 1n }, uri: `bitcoin:${TESTNET_ADDR_0}?amount=0.00000001` },
  ],
  invalidAddresses: { mainnet: [TESTNET_ADDR_0, 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh'], testnet: [BIP84_ADDR_0] },
});

function code(t: { throws: (fn: () => unknown) => unknown }, fn: () => unknown): string {
  const error = t.throws(fn) as AppError;
  return error.code;
}

test('definition: decimals, networks, confirmations', (t) => {
  const d = btcChain.definition;
  t.is(d.coins.find((c) => c.id === 'btc')?.decimals, 8);
  t.is(d.networks.testnets[0].id, 'signet');
  t.is(d.verificationStandard, 'bip84');
  t.true(d.capabilities.gapLimitApplies);
});

test('BIP84 mainnet vectors from the zpub, and the same key in xpub form', (t) => {
  const key = adapter.parseAccountKey(` ${BIP84_ACCOUNT_ZPUB}\n`, 'mainnet');
  t.is(key.input, BIP84_ACCOUNT_ZPUB);
  t.true(key.canonical.startsWith('xpub'));
  t.deepEqual(adapter.deriveAddress(key, 0), { index: 0, address: BIP84_ADDR_0, path: "m/84'/0'/0'/0/0" });
  t.deepEqual(adapter.deriveAddress(key, 1), { index: 1, address: BIP84_ADDR_1, path: "m/84'/0'/0'/0/1" });
  const xkey = adapter.parseAccountKey(key.canonical, 'mainnet');
  t.is(xkey.canonical, key.canonical);
  t.is(adapter.deriveAddress(xkey, 1).address, BIP84_ADDR_1);
  // The zpub is the neutered account zprv of the same document.
  t.is(withVersion(bip32.fromBase58(withVersion(BIP84_ACCOUNT_ZPRV, 0x0488ade4)).neutered().toBase58(), 0x04b24746), BIP84_ACCOUNT_ZPUB);
  for (const path of [adapter.deriveAddress(key, 0).path, adapter.deriveAddress(key, 2 ** 31 - 1).path]) {
    t.regex(path, /^m(\/\d+'?)+$/);
  }
});

test("testnet vectors from vpub and tpub (m/84'/1'/0')", (t) => {
  t.true(TESTNET_VPUB.startsWith('vpub'));
  for (const input of [TESTNET_VPUB, TESTNET_TPUB]) {
    const key = adapter.parseAccountKey(input, 'testnet');
    t.is(key.canonical, TESTNET_TPUB);
    t.deepEqual(adapter.deriveAddress(key, 0), { index: 0, address: TESTNET_ADDR_0, path: "m/84'/1'/0'/0/0" });
    t.is(adapter.deriveAddress(key, 1).address, TESTNET_ADDR_1);
  }
});

test('wrong network kind is wallet_kind_mismatch', (t) => {
  const refused: [string, NetworkKind][] = [
    [BIP84_ACCOUNT_ZPUB, 'testnet'],
    [TESTNET_VPUB, 'mainnet'],
    [TESTNET_TPUB, 'mainnet'],
  ];
  for (const [input, network] of refused)
    t.is(
      code(t, () => adapter.parseAccountKey(input, network)),
      'wallet_kind_mismatch',
      input,
    );
});

test('wrong depth, private keys, BIP49 keys and garbage are invalid_xpub_format', (t) => {
  const invalid: [what: string, input: string][] = [
    ['the root zpub (depth 0)', BIP84_ROOT_ZPUB],
    ['the account zprv', BIP84_ACCOUNT_ZPRV],
    ['the account key as a BIP49 ypub', withVersion(BIP84_ACCOUNT_ZPUB, 0x049d7cb2)],
    ['the receive chain (depth 4)', bip32.fromBase58(withVersion(BIP84_ACCOUNT_ZPUB, 0x0488b21e)).derive(0).toBase58()],
    ['not a key', 'not a key'],
    ['a mistyped zpub', MISTYPED_ZPUB],
    ['nothing', ''],
    ['a changed last character', `${BIP84_ACCOUNT_ZPUB.slice(0, -1)}${BIP84_ACCOUNT_ZPUB.endsWith('3') ? '4' : '3'}`],
    // A valid base58check string whose payload is one byte short of a BIP32 key, and an over-long input.
    ['a payload one byte short', bs58check.encode(Buffer.from(bs58check.decode(BIP84_ACCOUNT_ZPUB)).subarray(0, 77))],
    ['an over-long input', BIP84_ACCOUNT_ZPUB.repeat(100)],
  ];
  for (const [what, input] of invalid)
    t.is(
      code(t, () => adapter.parseAccountKey(input, 'mainnet')),
      'invalid_xpub_format',
      what,
    );
});

test('deriveAddress rejects bad indexes', (t) => {
  const key = adapter.parseAccountKey(BIP84_ACCOUNT_ZPUB, 'mainnet');
  for (const index of [-1, 1.5, 2 ** 31, Number.NaN]) {
    t.is(
      code(t, () => adapter.deriveAddress(key, index)),
      'validation_error',
    );
  }
});

test('isValidAddress per network', (t) => {
  t.true(adapter.isValidAddress(BIP84_ADDR_0, 'mainnet'));
  t.false(adapter.isValidAddress(BIP84_ADDR_0, 'testnet'));
  t.true(adapter.isValidAddress(TESTNET_ADDR_0, 'testnet'));
  t.false(adapter.isValidAddress(TESTNET_ADDR_0, 'mainnet'));
  t.true(adapter.isValidAddress('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'mainnet'));
  t.true(adapter.isValidAddress('bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr', 'mainnet'));
  t.false(adapter.isValidAddress('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyv', 'mainnet'));
  t.false(adapter.isValidAddress('', 'mainnet'));
});

test('BIP21: a zero amount leaves the amount out; an address of the other network is validation_error', (t) => {
  t.is(adapter.paymentUri({ coin: 'btc', network: 'mainnet', address: BIP84_ADDR_0, amountUnits: 0n }), `bitcoin:${BIP84_ADDR_0}`);
  t.is(
    code(t, () => adapter.paymentUri({ coin: 'btc', network: 'mainnet', address: TESTNET_ADDR_0, amountUnits: 1n })),
    'validation_error',
  );
});

test('the verifier accepts the official BIP-322 "Hello World" vector', (t) => {
  const address = 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l';
  const sig =
    'AkcwRAIgZRfIY3p7/DoVTty6YZbWS71bc5Vct9p9Fia83eRmw2QCICK/ENGfwLtptFluMGs2KsqoNSk89pO7F29zJLUx9a/sASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=';
  t.true(Verifier.verifySignature(address, 'Hello World', sig));
  t.false(Verifier.verifySignature(address, 'Hello World!', sig));
});

const CHALLENGE = 'gateway ownership challenge 01J9ZK3Q8T: I control this wallet';

test('verifyOwnership: BIP-322 simple signature by receive index 0 (mainnet)', async (t) => {
  const key = adapter.parseAccountKey(BIP84_ACCOUNT_ZPUB, 'mainnet');
  const good = Signer.sign(BIP84_WIF_0, BIP84_ADDR_0, CHALLENGE);
  t.true(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: good as string }));
  t.false(await adapter.verifyOwnership({ key, message: `${CHALLENGE}.`, signature: good as string }));
  const foreign = Signer.sign(BIP84_WIF_1, BIP84_ADDR_1, CHALLENGE);
  t.false(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: foreign as string }));
});

test('verifyOwnership: BIP-137 segwit signature (mainnet) and BIP-322 (testnet)', async (t) => {
  const key = adapter.parseAccountKey(BIP84_ACCOUNT_ZPUB, 'mainnet');
  const priv0 = Buffer.from(bs58check.decode(BIP84_WIF_0)).subarray(1, 33);
  const priv1 = Buffer.from(bs58check.decode(BIP84_WIF_1)).subarray(1, 33);
  const good = bitcoinMessage.sign(CHALLENGE, priv0, true, { segwitType: 'p2wpkh' }).toString('base64');
  t.true(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: good }));
  t.false(await adapter.verifyOwnership({ key, message: 'another message', signature: good }));
  const foreign = bitcoinMessage.sign(CHALLENGE, priv1, true, { segwitType: 'p2wpkh' }).toString('base64');
  t.false(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: foreign }));

  const tkey = adapter.parseAccountKey(TESTNET_VPUB, 'testnet');
  const tnode0 = testnetAccount.derive(0).derive(0);
  const tnode1 = testnetAccount.derive(0).derive(1);
  const tgood = Signer.sign(tnode0.toWIF(), TESTNET_ADDR_0, CHALLENGE) as string;
  t.true(await adapter.verifyOwnership({ key: tkey, message: CHALLENGE, signature: tgood }));
  t.false(await adapter.verifyOwnership({ key: tkey, message: `${CHALLENGE} `, signature: tgood }));
  const tforeign = Signer.sign(tnode1.toWIF(), TESTNET_ADDR_1, CHALLENGE) as string;
  t.false(await adapter.verifyOwnership({ key: tkey, message: CHALLENGE, signature: tforeign }));
});

test('verifyOwnership: unparseable signatures are validation_error', async (t) => {
  const key = adapter.parseAccountKey(BIP84_ACCOUNT_ZPUB, 'mainnet');
  for (const signature of ['', 'not base64!', 'AAAA']) {
    const error = await t.throwsAsync(adapter.verifyOwnership({ key, message: CHALLENGE, signature }));
    t.is((error as AppError).code, 'validation_error');
  }
});

// Regtest addresses of the same key: the testnet addresses' witness programs under Core's regtest
// HRP `bcrt` (recomputed from the tb1 vectors, not through the adapter).
const regtestOf = (address: string) => bitcoin.address.toBech32(bitcoin.address.fromBech32(address).data, 0, 'bcrt');

test('chains.testNetworks.btc = regtest: testnet projects derive, accept, pay to and prove bcrt1 addresses of a tpub/vpub', async (t) => {
  const regtest = configuredAdapter(btcChain, { testNetworks: { btc: 'regtest' } });
  t.deepEqual(
    regtest.definition.networks.testnets.map((n) => n.id),
    ['regtest', 'signet', 'testnet'],
  );
  const key = regtest.parseAccountKey(TESTNET_VPUB, 'testnet');
  const [address0, address1] = [regtestOf(TESTNET_ADDR_0), regtestOf(TESTNET_ADDR_1)];
  t.true(address0.startsWith('bcrt1q'));
  t.deepEqual(
    [0, 1].map((i) => regtest.deriveAddress(key, i).address),
    [address0, address1],
  );
  t.true(regtest.isValidAddress(address0, 'testnet'));
  t.false(regtest.isValidAddress(TESTNET_ADDR_0, 'testnet'));
  t.is(regtest.paymentUri({ coin: 'btc', network: 'testnet', address: address0, amountUnits: 1n }), `bitcoin:${address0}?amount=0.00000001`);
  const node0 = testnetAccount.derive(0).derive(0);
  t.true(await regtest.verifyOwnership({ key, message: CHALLENGE, signature: Signer.sign(node0.toWIF(), address0, CHALLENGE) as string }));
  t.false(
    await regtest.verifyOwnership({
      key,
      message: CHALLENGE,
      signature: Signer.sign(testnetAccount.derive(0).derive(1).toWIF(), address1, CHALLENGE) as string,
    }),
  );
  // Production projects keep mainnet: the setting moves test networks only.
  t.is(regtest.deriveAddress(regtest.parseAccountKey(BIP84_ACCOUNT_ZPUB, 'mainnet'), 0).address, BIP84_ADDR_0);
  // Without the setting signet stays the default: regtest addresses are not testnet project addresses.
  t.false(adapter.isValidAddress(address0, 'testnet'));
});

// A payer's wallet signing a refund claim with "Sign message": every single-key address type of the
// BIP84 key of index 0 (WIF above), signed the ways common wallets sign (bitcoinjs-message with each
// BIP-137 header: Electrum, Trezor, Ledger; bip322-js BIP-322 simple: Sparrow, Bitcoin Core).
const CLAIM = 'Refund 01J9ZK3Q8T of invoice INV-42: pay to the address below';
const priv0 = Buffer.from(bs58check.decode(BIP84_WIF_0)).subarray(1, 33);
const node0 = bip32.fromPrivateKey(priv0, Buffer.alloc(32));
const uncompressed = Buffer.from(ecc.pointCompress(node0.publicKey, false));
const p2wpkh0 = bitcoin.payments.p2wpkh({ pubkey: node0.publicKey });
const addressTypes = [
  { type: 'P2WPKH', address: BIP84_ADDR_0, sign: (m: string) => bitcoinMessage.sign(m, priv0, true, { segwitType: 'p2wpkh' }).toString('base64') },
  { type: 'P2WPKH (BIP-322 simple)', address: BIP84_ADDR_0, sign: (m: string) => Signer.sign(BIP84_WIF_0, BIP84_ADDR_0, m) as string },
  {
    type: 'P2SH-P2WPKH',
    address: bitcoin.payments.p2sh({ redeem: p2wpkh0 }).address!,
    sign: (m: string) => bitcoinMessage.sign(m, priv0, true, { segwitType: 'p2sh(p2wpkh)' }).toString('base64'),
  },
  {
    type: 'P2PKH',
    address: bitcoin.payments.p2pkh({ pubkey: node0.publicKey }).address!,
    sign: (m: string) => bitcoinMessage.sign(m, priv0, true).toString('base64'),
  },
  {
    type: 'P2PKH of the uncompressed key',
    address: bitcoin.payments.p2pkh({ pubkey: uncompressed }).address!,
    sign: (m: string) => bitcoinMessage.sign(m, priv0, false).toString('base64'),
  },
];

for (const { type, address, sign } of addressTypes) {
  test(`verifyAddressSignature: ${type} "Sign message" signature`, async (t) => {
    const signature = sign(CLAIM);
    t.true(await adapter.verifyAddressSignature({ address, network: 'mainnet', message: CLAIM, signature }));
    t.false(await adapter.verifyAddressSignature({ address, network: 'mainnet', message: `${CLAIM}.`, signature }), 'another message');
    t.false(await adapter.verifyAddressSignature({ address: BIP84_ADDR_1, network: 'mainnet', message: CLAIM, signature }), 'another address');
  });
}

test('verifyAddressSignature: garbage signatures and addresses of no or another network are validation_error', async (t) => {
  const signature = addressTypes[0]!.sign(CLAIM);
  for (const proof of [
    { address: BIP84_ADDR_0, network: 'mainnet' as const, signature: 'not base64!' },
    { address: BIP84_ADDR_0, network: 'mainnet' as const, signature: 'AAAA' },
    { address: BIP84_ADDR_0, network: 'testnet' as const, signature },
    { address: 'bc1qnotanaddress', network: 'mainnet' as const, signature },
  ]) {
    const error = await t.throwsAsync(adapter.verifyAddressSignature({ ...proof, message: CLAIM }));
    t.is((error as AppError).code, 'validation_error', proof.signature);
  }
});
