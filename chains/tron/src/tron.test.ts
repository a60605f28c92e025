import test from 'ava';
import { HDNodeWallet, Mnemonic } from 'ethers';
import { TronWeb, Trx } from 'tronweb';
import type { AppError, ChainAdapterDeps } from '@gw/chain-api';
import { codeOf } from '@gw/chain-api/testing';
import { tronChain } from './index.js';
import bs58check from 'bs58check';

const adapter = tronChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, tronChain.definition);
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
// Published TRON vector for this mnemonic at m/44'/195'/0'/0/0 (TronLink / Trust Wallet Core tests).
const ADDR_0 = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';
const root = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(MNEMONIC).computeSeed());
const account = root.derivePath("m/44'/195'/0'");
const XPUB = account.neuter().extendedKey;
const privOf = (i: number): string => account.deriveChild(0).deriveChild(i).privateKey.slice(2);

function withVersion(key: string, version: number): string {
  const payload = bs58check.decode(key);
  new DataView(payload.buffer).setUint32(0, version);
  return bs58check.encode(payload);
}

test('definition data', (t) => {
  const d = tronChain.definition;
  t.deepEqual(
    d.coins.map((c) => [c.id, c.decimals]),
    [
      ['trx', 6],
      ['usdt_trc20', 6],
    ],
  );
  t.deepEqual([d.networks.testnets[0].id, d.networks.testnets[1]?.id], ['shasta', 'nile']);
  t.true(d.capabilities.requiresActivation);
  t.is(d.defaultConfirmations, 19);
  t.true(TronWeb.isAddress(d.coins[1]!.contracts!['tron']!));
});

test("BIP44 m/44'/195'/0'/0/i from the account xpub matches the published vector and TronWeb", (t) => {
  t.is(XPUB, 'xpub6D1AabNHCupeiLM65ZR9UStMhJ1vCpyV4XbZdyhMZBiJXALQtmn9p42VTQckoHVn8WNqS7dqnJokZHAHcHGoaQgmv8D45oNUKx6DZMNZBCd');
  for (const network of ['mainnet', 'testnet'] as const) {
    for (const input of [XPUB, withVersion(XPUB, 0x043587cf)]) {
      const key = adapter.parseAccountKey(input, network);
      t.is(key.canonical, XPUB);
      t.deepEqual(adapter.deriveAddress(key, 0), { index: 0, address: ADDR_0, path: "m/44'/195'/0'/0/0" });
    }
  }
  t.is(TronWeb.fromMnemonic(MNEMONIC).address, ADDR_0); // TronWeb's own default path m/44'/195'/0'/0/0
  const key = adapter.parseAccountKey(XPUB, 'mainnet');
  for (const i of [0, 1, 2, 500]) {
    t.is(adapter.deriveAddress(key, i).address, TronWeb.address.fromPrivateKey(privOf(i)) as string);
  }
});

test('invalid keys', (t) => {
  t.is(
    codeOf(() => adapter.parseAccountKey(root.neuter().extendedKey, 'mainnet')),
    'invalid_xpub_format',
  );
  t.is(
    codeOf(() => adapter.parseAccountKey(account.extendedKey, 'mainnet')),
    'invalid_xpub_format',
  );
  t.is(
    codeOf(() => adapter.parseAccountKey(ADDR_0, 'mainnet')),
    'invalid_xpub_format',
  );
  t.is(
    codeOf(() => adapter.parseAccountKey(`${XPUB}x`, 'mainnet')),
    'invalid_xpub_format',
  );
});

test('isValidAddress', (t) => {
  t.true(adapter.isValidAddress(ADDR_0, 'mainnet'));
  t.true(adapter.isValidAddress(ADDR_0, 'testnet'));
  t.true(adapter.isValidAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'mainnet'));
  t.false(adapter.isValidAddress('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdh', 'mainnet'));
  t.false(adapter.isValidAddress('0x9858EfFD232B4033E47d90003D41EC34EcaEda94', 'mainnet'));
  t.false(adapter.isValidAddress('', 'mainnet'));
});

test('payment URIs', (t) => {
  t.is(adapter.paymentUri({ coin: 'trx', network: 'mainnet', address: ADDR_0, amountUnits: 12_345_678n }), `tron:${ADDR_0}?amount=12.345678`);
  t.is(
    adapter.paymentUri({ coin: 'usdt_trc20', network: 'mainnet', address: ADDR_0, amountUnits: 100_000_000n }),
    `tron:${ADDR_0}?token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t&amount=100`,
  );
  t.is(
    codeOf(() => adapter.paymentUri({ coin: 'usdt_trc20', network: 'testnet', address: ADDR_0, amountUnits: 1n })),
    'validation_error',
  );
  t.is(
    codeOf(() => adapter.paymentUri({ coin: 'eth', network: 'mainnet', address: ADDR_0, amountUnits: 1n })),
    'invalid_coin',
  );
});

const CHALLENGE = 'gateway ownership challenge 01J9ZK3Q8T: I control this wallet — ✓';

test('verifyOwnership: TIP-191 signMessageV2 by index 0, cross-checked with TronWeb', async (t) => {
  const key = adapter.parseAccountKey(XPUB, 'mainnet');
  const good = Trx.signMessageV2(CHALLENGE, privOf(0));
  t.is(Trx.verifyMessageV2(CHALLENGE, good), ADDR_0);
  t.true(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: good }));
  t.false(await adapter.verifyOwnership({ key, message: `${CHALLENGE}.`, signature: good }));
  t.false(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: Trx.signMessageV2(CHALLENGE, privOf(1)) }));
  for (const signature of ['', 'abc', `0x${'00'.repeat(64)}`]) {
    const error = await t.throwsAsync(adapter.verifyOwnership({ key, message: CHALLENGE, signature }));
    t.is((error as AppError).code, 'validation_error');
  }
});

test("verifyAddressSignature: TronLink's signMessageV2, made offline with TronWeb", async (t) => {
  const message = 'Refund 01J9ZK3Q8T of invoice INV-42: pay to the address below — ✓';
  const signature = Trx.signMessageV2(message, privOf(0));
  const other = TronWeb.address.fromPrivateKey(privOf(1)) as string;
  t.true(await adapter.verifyAddressSignature({ address: ADDR_0, network: 'mainnet', message, signature }));
  t.true(await adapter.verifyAddressSignature({ address: ADDR_0, network: 'testnet', message, signature }));
  t.false(await adapter.verifyAddressSignature({ address: ADDR_0, network: 'mainnet', message: `${message}.`, signature }));
  t.false(await adapter.verifyAddressSignature({ address: other, network: 'mainnet', message, signature }));
  for (const proof of [
    { address: ADDR_0, signature: '' },
    { address: ADDR_0, signature: `0x${'00'.repeat(64)}` },
    { address: ADDR_0.toLowerCase(), signature }, // base58 is case-sensitive: not an address
    { address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', signature },
  ]) {
    const error = await t.throwsAsync(adapter.verifyAddressSignature({ ...proof, network: 'mainnet', message }));
    t.is((error as AppError).code, 'validation_error', proof.address);
  }
});
