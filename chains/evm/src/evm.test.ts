import test from 'ava';
import { coin, PRICE_ASSETS, type AppError, type ChainAdapterDeps, type NetworkKind } from '@gw/chain-api';
import { codeOf } from '@gw/chain-api/testing';
import bs58check from 'bs58check';
import { Wallet } from 'ethers';
import { createEvmAdapter, evmChainDefinition } from './index.js';
import { ABANDON_EVM_ADDRESSES, ABANDON_EVM_XPUB, abandonRoot } from './testing/index.js';

const [ADDR_0, ADDR_1] = ABANDON_EVM_ADDRESSES;

const fixture = evmChainDefinition({
  id: 'eth',
  name: 'EVM fixture',
  networks: {
    mainnet: { id: 'main', name: 'main', kind: 'mainnet', evmChainId: 1 },
    testnets: [{ id: 'test', name: 'test', kind: 'testnet', evmChainId: 5 }],
  },
  coins: [coin({ id: 'eth', price: PRICE_ASSETS.ETH, decimals: 18 })],
  dustFloorUnits: { eth: 0n },
  defaultConfirmations: 1,
});
const adapter = createEvmAdapter({ logger: {} as ChainAdapterDeps['logger'] }, fixture);
const root = abandonRoot();

function withVersion(key: string, version: number): string {
  const payload = bs58check.decode(key);
  new DataView(payload.buffer).setUint32(0, version);
  return bs58check.encode(payload);
}

test('account xpub recomputed from the mnemonic', (t) => {
  t.is(root.derivePath("m/44'/60'/0'").neuter().extendedKey, ABANDON_EVM_XPUB);
});

test('BIP44 vectors: index 0 and 1, EIP-55 checksummed, mainnet and testnet kinds, xpub and tpub forms', (t) => {
  for (const network of ['mainnet', 'testnet'] as const) {
    for (const input of [ABANDON_EVM_XPUB, withVersion(ABANDON_EVM_XPUB, 0x043587cf)]) {
      const key = adapter.parseAccountKey(input, network);
      t.is(key.canonical, ABANDON_EVM_XPUB);
      t.deepEqual(adapter.deriveAddress(key, 0), { index: 0, address: ADDR_0, path: "m/44'/60'/0'/0/0" });
      t.is(adapter.deriveAddress(key, 1).address, ADDR_1);
    }
  }
  const key = adapter.parseAccountKey(ABANDON_EVM_XPUB, 'mainnet');
  for (const i of [0, 1, 7, 1000]) {
    t.is(adapter.deriveAddress(key, i).address, root.derivePath(`m/44'/60'/0'/0/${i}`).address);
  }
});

test('invalid keys are invalid_xpub_format', (t) => {
  const invalid: [what: string, input: string, network: NetworkKind][] = [
    ['the root xpub (depth 0)', root.neuter().extendedKey, 'mainnet'],
    ['the account xprv', root.derivePath("m/44'/60'/0'").extendedKey, 'mainnet'],
    ['the receive chain (depth 4)', root.derivePath("m/44'/60'/0'/0").neuter().extendedKey, 'mainnet'],
    ['a zpub version', withVersion(ABANDON_EVM_XPUB, 0x04b24746), 'mainnet'],
    ['a changed last character', `${ABANDON_EVM_XPUB.slice(0, -1)}${ABANDON_EVM_XPUB.endsWith('t') ? 'u' : 't'}`, 'mainnet'],
    ['a payload one byte short', bs58check.encode(bs58check.decode(ABANDON_EVM_XPUB).subarray(0, 77)), 'mainnet'],
    ['an over-long input', ABANDON_EVM_XPUB.repeat(100), 'mainnet'],
    ['an address', ADDR_0, 'mainnet'],
    ['nothing', '', 'testnet'],
  ];
  t.true(invalid[1]![1].startsWith('xprv'));
  for (const [what, input, network] of invalid)
    t.is(
      codeOf(() => adapter.parseAccountKey(input, network)),
      'invalid_xpub_format',
      what,
    );
  const key = adapter.parseAccountKey(ABANDON_EVM_XPUB, 'mainnet');
  for (const index of [-1, 2 ** 31])
    t.is(
      codeOf(() => adapter.deriveAddress(key, index)),
      'validation_error',
      String(index),
    );
});

test('isValidAddress', (t) => {
  t.true(adapter.isValidAddress(ADDR_0, 'mainnet'));
  t.true(adapter.isValidAddress(ADDR_0.toLowerCase(), 'testnet'));
  t.false(adapter.isValidAddress(ADDR_0.replace('E', 'e'), 'mainnet')); // broken EIP-55 checksum
  t.false(adapter.isValidAddress(ADDR_0.slice(2), 'mainnet'));
  t.false(adapter.isValidAddress('0x0000000000000000000000000000000000000000', 'mainnet'));
  t.false(adapter.isValidAddress(`${ADDR_0}00`, 'mainnet'));
});

test('EIP-681 native URI uses the network chain id and wei', (t) => {
  t.is(
    adapter.paymentUri({ coin: 'eth', network: 'mainnet', address: ADDR_0.toLowerCase(), amountUnits: 1_500_000_000_000_000_000n }),
    `ethereum:${ADDR_0}@1?value=1500000000000000000`,
  );
  t.is(adapter.paymentUri({ coin: 'eth', network: 'testnet', address: ADDR_0, amountUnits: 1n }), `ethereum:${ADDR_0}@5?value=1`);
  t.is(
    codeOf(() => adapter.paymentUri({ coin: 'btc', network: 'mainnet', address: ADDR_0, amountUnits: 1n })),
    'invalid_coin',
  );
});

const CHALLENGE = 'gateway ownership challenge 01J9ZK3Q8T: I control this wallet';

test('verifyOwnership: EIP-191 personal_sign by index 0', async (t) => {
  const key = adapter.parseAccountKey(ABANDON_EVM_XPUB, 'mainnet');
  const signer0 = new Wallet(root.derivePath("m/44'/60'/0'/0/0").privateKey);
  const signer1 = new Wallet(root.derivePath("m/44'/60'/0'/0/1").privateKey);
  const good = await signer0.signMessage(CHALLENGE);
  t.true(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: good }));
  t.true(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: good.slice(2) }));
  t.false(await adapter.verifyOwnership({ key, message: `${CHALLENGE}!`, signature: good }));
  t.false(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: await signer1.signMessage(CHALLENGE) }));
  for (const signature of ['', '0x1234', 'zz'.repeat(65)]) {
    const error = await t.throwsAsync(adapter.verifyOwnership({ key, message: CHALLENGE, signature }));
    t.is((error as AppError).code, 'validation_error');
  }
});

test('verifyAddressSignature: EIP-191 personal_sign (MetaMask), the claimed address in any case', async (t) => {
  const message = 'Refund 01J9ZK3Q8T of invoice INV-42: pay to the address below — ✓';
  const signature = await new Wallet(root.derivePath("m/44'/60'/0'/0/0").privateKey).signMessage(message);
  for (const address of [ADDR_0, ADDR_0.toLowerCase(), `0x${ADDR_0.slice(2).toUpperCase()}`]) {
    t.true(await adapter.verifyAddressSignature({ address, network: 'mainnet', message, signature }), address);
  }
  t.true(await adapter.verifyAddressSignature({ address: ADDR_0, network: 'testnet', message, signature: signature.slice(2) }));
  t.false(await adapter.verifyAddressSignature({ address: ADDR_0, network: 'mainnet', message: `${message}.`, signature }));
  t.false(await adapter.verifyAddressSignature({ address: ADDR_1, network: 'mainnet', message, signature }));
  for (const proof of [
    { address: ADDR_0, signature: `0x${'00'.repeat(64)}` },
    { address: ADDR_0, signature: 'abc' },
    { address: ADDR_0.replace('E', 'e'), signature }, // broken EIP-55 checksum
    { address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH', signature },
  ]) {
    const error = await t.throwsAsync(adapter.verifyAddressSignature({ ...proof, network: 'mainnet', message }));
    t.is((error as AppError).code, 'validation_error', proof.address);
  }
});
