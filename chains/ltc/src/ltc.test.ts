import { pbkdf2Sync } from 'node:crypto';
import test from 'ava';
import { BIP32Factory } from 'bip32';
import * as ecc from '@bitcoinerlab/secp256k1';
import * as bitcoin from 'bitcoinjs-lib';
import * as bitcoinMessage from 'bitcoinjs-message';
import bs58check from 'bs58check';
import type { AppError, ChainAdapterDeps, NetworkKind } from '@gw/chain-api';
import { chainConformance, codeOf, configuredAdapter } from '@gw/chain-api/testing';
import { litecoinParams, ltcChain } from './index.js';

// Vectors: the BIP84 test mnemonic "abandon ... about" at m/84'/2'/0' (mainnet, SLIP-44 coin type 2)
// and m/84'/1'/0' (testnet, regtest). Litecoin publishes no BIP84 vectors; these are recomputed
// below with bitcoinjs-lib and bip32 under Litecoin Core's parameters (chainparams.cpp), a path
// independent of the adapter. Cross-checks: mainnet index 0 is ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh,
// the address hardware-wallet fixtures list for this mnemonic; the testnet addresses carry the same
// witness programs as BIP84's Bitcoin testnet addresses of the same key (tb1q6rz28mcf…, tb1qd7spv5q2…).
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const LTUB = 'Ltub2ZANw57Fi4JfMGenngwfZMqDrsccTf2m3qEjvLuk8faGXB973sSqGttAdKBvGSCLG9DXh2yxaUB9qpwQUe2zCCtrZPhjxGuMAWqL6F7Xrpd';
const TTUB = 'ttub4d81p5cxvtYKpLR1rpAWdWgdTEdcpRUTEjhEAwi4jFysnyYYYU6w3pRyV6gPAKZbaHoVQdDSdDJrEngpFdPnoTQM8PBSDhD552ZSfeKDEKA';
const MAINNET = ['ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh', 'ltc1qwlezpr3890hcp6vva9twqh27mr6edadreqvhnn'];
const TESTNET = ['tltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9pesrjxk', 'tltc1qd7spv5q28348xl4myc8zmh983w5jx32ctl5d4h'];
const REGTEST = ['rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg', 'rltc1qd7spv5q28348xl4myc8zmh983w5jx32cwn4h9f'];

const bip32 = BIP32Factory(ecc);
const [MAINNET_1, TESTNET_0] = [MAINNET[1]!, TESTNET[0]!];
const seed = pbkdf2Sync(MNEMONIC.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
const account = (network: 'litecoin' | 'testnet', path: string) => bip32.fromSeed(seed, litecoinParams.networks[network]).derivePath(path);
const ACCOUNTS = { mainnet: account('litecoin', "m/84'/2'/0'"), testnet: account('testnet', "m/84'/1'/0'") };
const adapter = ltcChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, ltcChain.definition);
// What config chains.testNetworks.ltc = "regtest" builds (a litecoind -regtest node's network).
const regtest = configuredAdapter(ltcChain, { testNetworks: { ltc: 'regtest' } });

function withVersion(key: string, version: number): string {
  const payload = Buffer.from(bs58check.decode(key));
  payload.writeUInt32BE(version, 0);
  return bs58check.encode(payload);
}
/** Electrum-LTC's message signature: bitcoinjs-message over Litecoin's prefix, flagged P2WPKH. */
function sign(message: string, network: NetworkKind): string {
  const key = ACCOUNTS[network].derive(0).derive(0);
  return bitcoinMessage
    .sign(message, Buffer.from(key.privateKey!), true, litecoinParams.networks['litecoin']!.messagePrefix, { segwitType: 'p2wpkh' })
    .toString('base64');
}

chainConformance(test, {
  module: ltcChain,
  vectors: {
    mainnet: {
      key: LTUB,
      addresses: MAINNET.map((address, index) => ({ index, address, path: `m/84'/2'/0'/0/${index}` })),
      source: 'BIP84 mnemonic, bitcoinjs-lib with Litecoin parameters',
    },
    testnet: {
      key: TTUB,
      addresses: TESTNET.map((address, index) => ({ index, address, path: `m/84'/1'/0'/0/${index}` })),
      source: 'BIP84 mnemonic, bitcoinjs-lib with Litecoin testnet parameters',
    },
  },
  keysEncodeNetwork: true,
  sign,
  paymentUris: [
    {
      input: { coin: 'ltc', network: 'mainnet', address: MAINNET[0]!, amountUnits: 150_000_000n, label: 'Order 42' },
      uri: `litecoin:${MAINNET[0]}?amount=1.5&label=Order%2042`,
    },
    { input: { coin: 'ltc', network: 'testnet', address: TESTNET[0]!, amountUnits: 1n }, uri: `litecoin:${TESTNET[0]}?amount=0.00000001` },
  ],
  invalidAddresses: {
    // A Bitcoin address, a testnet address on mainnet, a legacy-prefix typo, a bad checksum.
    mainnet: ['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', TESTNET[0]!, 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wq'],
    testnet: [MAINNET[0]!, REGTEST[0]!, 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl'],
  },
});

test('the vectors are what bitcoinjs-lib derives under Litecoin parameters', (t) => {
  t.is(ACCOUNTS.mainnet.neutered().toBase58(), LTUB);
  t.is(ACCOUNTS.testnet.neutered().toBase58(), TTUB);
  const address = (network: 'litecoin' | 'testnet' | 'regtest', index: number) =>
    bitcoin.payments.p2wpkh({
      pubkey: ACCOUNTS[network === 'litecoin' ? 'mainnet' : 'testnet'].derive(0).derive(index).publicKey,
      network: litecoinParams.networks[network]!,
    }).address;
  t.deepEqual(
    [0, 1].map((i) => address('litecoin', i)),
    MAINNET,
  );
  t.deepEqual(
    [0, 1].map((i) => address('testnet', i)),
    TESTNET,
  );
  t.deepEqual(
    [0, 1].map((i) => address('regtest', i)),
    REGTEST,
  );
});

test('zpub (Electrum-LTC) and Ltub give the same addresses; vpub and tpub on testnet likewise; canonical Ltub/ttub', (t) => {
  const zpub = withVersion(LTUB, 0x04b24746);
  t.true(zpub.startsWith('zpub'));
  const key = adapter.parseAccountKey(zpub, 'mainnet');
  t.is(key.canonical, LTUB);
  t.is(adapter.deriveAddress(key, 1).address, MAINNET_1);
  for (const version of [0x045f1cf6, 0x043587cf]) {
    const testKey = adapter.parseAccountKey(withVersion(TTUB, version), 'testnet');
    t.is(testKey.canonical, TTUB);
    t.is(adapter.deriveAddress(testKey, 0).address, TESTNET_0);
  }
});

test('Mtub (BIP49), private keys and keys of the other network kind are refused with the reason', (t) => {
  t.is(
    codeOf(() => adapter.parseAccountKey(withVersion(LTUB, 0x01b26ef6), 'mainnet')),
    'invalid_xpub_format',
  );
  t.regex(t.throws(() => adapter.parseAccountKey(withVersion(LTUB, 0x01b26ef6), 'mainnet'))!.message, /Mtub is a BIP49/);
  t.is(
    codeOf(() => adapter.parseAccountKey(ACCOUNTS.mainnet.toBase58(), 'mainnet')),
    'invalid_xpub_format',
  );
  t.is(
    codeOf(() => adapter.parseAccountKey(LTUB, 'testnet')),
    'wallet_kind_mismatch',
  );
  t.is(
    codeOf(() => adapter.parseAccountKey(TTUB, 'mainnet')),
    'wallet_kind_mismatch',
  );
  t.regex(t.throws(() => adapter.parseAccountKey(TTUB, 'mainnet'))!.message, /production project needs a Ltub or zpub/);
});

test('chains.testNetworks.ltc = regtest: testnet projects derive, accept and pay to rltc1 addresses and prove ownership of them', async (t) => {
  t.is(regtest.definition.networks.testnets[0].id, 'regtest');
  const key = regtest.parseAccountKey(TTUB, 'testnet');
  t.deepEqual(
    [0, 1].map((i) => regtest.deriveAddress(key, i).address),
    REGTEST,
  );
  t.true(regtest.isValidAddress(REGTEST[0]!, 'testnet'));
  t.false(regtest.isValidAddress(TESTNET[0]!, 'testnet'));
  t.true(regtest.paymentUri({ coin: 'ltc', network: 'testnet', address: REGTEST[0]!, amountUnits: 1n }).startsWith(`litecoin:${REGTEST[0]}`));
  t.true(await regtest.verifyOwnership({ key, message: 'challenge', signature: sign('challenge', 'testnet') }));
  t.is(regtest.deriveAddress(regtest.parseAccountKey(LTUB, 'mainnet'), 1).address, MAINNET_1);
  t.false(adapter.isValidAddress(REGTEST[0]!, 'testnet'));
});

test('chains.testNetworks: a network the chain does not have stops start-up naming the key', (t) => {
  t.throws(() => configuredAdapter(ltcChain, { testNetworks: { ltc: 'signet' } }), {
    message: `chains.testNetworks.ltc: "signet" is not a network of this chain; Litecoin's test networks are testnet, regtest`,
  });
  t.throws(() => configuredAdapter(ltcChain, { testNetworks: { ltc: 'litecoin' } }), {
    message: /^chains\.testNetworks\.ltc: "litecoin" is the mainnet \(production projects use it\)/,
  });
  t.throws(() => configuredAdapter(ltcChain, { testNetworks: { doge: 'regtest' } }), {
    message: 'chains.testNetworks.doge: no chain "doge" in this build; it has ltc',
  });
});

test('a Bitcoin-prefixed signature of the same key is not a Litecoin ownership proof', async (t) => {
  const key = adapter.parseAccountKey(LTUB, 'mainnet');
  const message = 'challenge';
  const privateKey = Buffer.from(ACCOUNTS.mainnet.derive(0).derive(0).privateKey!);
  const bitcoinSigned = bitcoinMessage.sign(message, privateKey, true, { segwitType: 'p2wpkh' }).toString('base64');
  t.false(await adapter.verifyOwnership({ key, message, signature: bitcoinSigned }));
  t.true(await adapter.verifyOwnership({ key, message, signature: sign(message, 'mainnet') }));
});

test('definition: off by default, six confirmations, LTC priced by CoinGecko and Kraken', (t) => {
  t.false(ltcChain.enabledByDefault);
  t.is(ltcChain.definition.defaultConfirmations, 6);
  t.deepEqual(ltcChain.definition.coins[0]!.price, { symbol: 'LTC', providers: { coingecko: 'litecoin', kraken: ['LTCUSD', 'XLTCZUSD'] } });
});

test("key origin: Litecoin's mainnet account path has coin type 2 ([fp/84'/2'/0']Ltub); Bitcoin's coin type 0 is refused", (t) => {
  const key = adapter.parseAccountKey(`[73c5da0a/84h/2h/0h]${LTUB}`, 'mainnet');
  t.deepEqual(key.origin, { fingerprint: '73c5da0a', path: "m/84'/2'/0'" });
  t.is(key.canonical, LTUB);
  t.is(adapter.deriveAddress(key, 0).address, MAINNET[0]!);
  t.deepEqual(adapter.parseAccountKey(`[73c5da0a/84'/1'/0']${TTUB}`, 'testnet').origin, { fingerprint: '73c5da0a', path: "m/84'/1'/0'" });
  const error = t.throws(() => adapter.parseAccountKey(`[73c5da0a/84'/0'/0']${LTUB}`, 'mainnet')) as unknown as { code: string; message: string };
  t.is(error.code, 'invalid_xpub_format');
  t.regex(error.message, /Litecoin mainnet BIP84 account path of this key, m\/84'\/2'\/0'/);
});

// A payer's wallet signing a refund claim (Electrum-LTC, Litecoin Core "Sign message"): every
// single-key address type of the key of mainnet index 0, with each BIP-137 header.
const CLAIM = 'Refund 01J9ZK3Q8T of invoice INV-42: pay to the address below';
const claimKey = ACCOUNTS.mainnet.derive(0).derive(0);
const claimPriv = Buffer.from(claimKey.privateKey!);
const ltcNet = litecoinParams.networks['litecoin']!;
const ltcSign = (message: string, compressed: boolean, segwitType?: 'p2wpkh' | 'p2sh(p2wpkh)') =>
  bitcoinMessage.sign(message, claimPriv, compressed, ltcNet.messagePrefix, segwitType ? { segwitType } : undefined).toString('base64');
const uncompressedKey = Buffer.from(ecc.pointCompress(claimKey.publicKey, false));
const claimAddressTypes = [
  { type: 'P2WPKH', address: MAINNET[0]!, sign: (m: string) => ltcSign(m, true, 'p2wpkh') },
  {
    type: 'P2SH-P2WPKH (M…)',
    address: bitcoin.payments.p2sh({ redeem: bitcoin.payments.p2wpkh({ pubkey: claimKey.publicKey, network: ltcNet }), network: ltcNet }).address!,
    sign: (m: string) => ltcSign(m, true, 'p2sh(p2wpkh)'),
  },
  { type: 'P2PKH (L…)', address: bitcoin.payments.p2pkh({ pubkey: claimKey.publicKey, network: ltcNet }).address!, sign: (m: string) => ltcSign(m, true) },
  {
    type: 'P2PKH of the uncompressed key',
    address: bitcoin.payments.p2pkh({ pubkey: uncompressedKey, network: ltcNet }).address!,
    sign: (m: string) => ltcSign(m, false),
  },
];

for (const { type, address, sign: signClaim } of claimAddressTypes) {
  test(`verifyAddressSignature: ${type} "Sign message" signature`, async (t) => {
    t.regex(address, /^(ltc1|M|L)/);
    const signature = signClaim(CLAIM);
    t.true(await adapter.verifyAddressSignature({ address, network: 'mainnet', message: CLAIM, signature }));
    t.false(await adapter.verifyAddressSignature({ address, network: 'mainnet', message: `${CLAIM}.`, signature }), 'another message');
    t.false(await adapter.verifyAddressSignature({ address: MAINNET_1, network: 'mainnet', message: CLAIM, signature }), 'another address');
  });
}

test('verifyAddressSignature: a Bitcoin-prefixed signature is not a Litecoin one; garbage and other networks are validation_error', async (t) => {
  const bitcoinSigned = bitcoinMessage.sign(CLAIM, claimPriv, true, { segwitType: 'p2wpkh' }).toString('base64');
  t.false(await adapter.verifyAddressSignature({ address: MAINNET[0]!, network: 'mainnet', message: CLAIM, signature: bitcoinSigned }));
  const signature = ltcSign(CLAIM, true, 'p2wpkh');
  for (const proof of [
    { address: MAINNET[0]!, network: 'mainnet' as const, signature: '%%%' },
    { address: MAINNET[0]!, network: 'mainnet' as const, signature: Buffer.alloc(65, 99).toString('base64') },
    { address: MAINNET[0]!, network: 'testnet' as const, signature },
    { address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', network: 'mainnet' as const, signature },
  ]) {
    const error = await t.throwsAsync(adapter.verifyAddressSignature({ ...proof, message: CLAIM }));
    t.is((error as AppError).code, 'validation_error', proof.signature);
  }
});
