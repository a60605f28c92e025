import test from 'ava';
import { Address, WalletContractV3R2, WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { beginCell } from '@ton/core';
import { decodeIncomingBody } from './message-body.js';
import { keyPairFromSeed, sign } from '@ton/crypto';
import type { AppError, ChainAdapterDeps } from '@gw/chain-api';
import { codeOf } from '@gw/chain-api/testing';
import { tonChain, tonSignDataHash } from './index.js';

const adapter = tonChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, tonChain.definition);

// Mainnet vector: TonSwift (Tonkeeper) WalletsTests, "Test Wallet V5R1" — default V5R1 wallet
// (global id -239, workchain 0, subwallet 0) of this key.
const MAINNET_PUB = '5754865e86d0ade1199301bbb0319a25ed6b129c4b0a57f28f62449b3df9c522';
const MAINNET_V5R1 = 'UQBiUbwjoB56b7CYtoiPnY5vPh2Fwjva6jEPBhqnttjQKpce';
// Testnet vector: @ton/ton src/wallets/v5r1/WalletContractV5R1.spec.ts ("should has balance and
// correct address", networkGlobalId -3). The key is randomTestKey('v5r1-treasure'), whose public half
// was reproduced with the Prando generator the spec uses.
const TESTNET_PUB = '71ced1c4c69e53eb7ede24658375f56c142d22cdb21d0728138cb53b817e454e';
const TESTNET_V5R1 = 'EQCqe9WqFhS8AfVGDP2xQiTLjbeolhLGsvIbbgQ6C3XT5gGs';

test('definition data', (t) => {
  const d = tonChain.definition;
  t.deepEqual(
    d.coins.map((c) => [c.id, c.decimals]),
    [
      ['ton', 9],
      ['usdt_ton', 6],
    ],
  );
  t.true(d.capabilities.supportsMemo);
  t.false(d.capabilities.gapLimitApplies);
  t.is(d.verificationStandard, 'bip44_ed25519');
  t.is(d.defaultConfirmations, 1);
  t.notThrows(() => Address.parse(d.coins[1]!.contracts!['ton']!));
});

test('V5R1 vectors: mainnet (TonSwift) and testnet (@ton/ton spec), index 0', (t) => {
  const main = adapter.deriveAddress(adapter.parseAccountKey(MAINNET_PUB, 'mainnet'), 0);
  t.deepEqual(main, { index: 0, address: MAINNET_V5R1, path: "m/44'/607'/0'/0'" });
  const testKey = adapter.parseAccountKey(Buffer.from(TESTNET_PUB, 'hex').toString('base64'), 'testnet');
  t.is(testKey.canonical, TESTNET_PUB);
  const tn = adapter.deriveAddress(testKey, 0);
  t.true(Address.parse(tn.address).equals(Address.parse(TESTNET_V5R1)));
  const friendly = Address.parseFriendly(tn.address);
  t.true(friendly.isTestOnly);
  t.false(friendly.isBounceable);
  t.regex(tn.address, /^0Q/);
});

test('distinct addresses per index via the V5R1 subwallet number; 15-bit limit', (t) => {
  const key = adapter.parseAccountKey(MAINNET_PUB, 'mainnet');
  const seen = new Set<string>();
  for (let i = 0; i < 50; i++) seen.add(adapter.deriveAddress(key, i).address);
  t.is(seen.size, 50);
  const i7 = adapter.deriveAddress(key, 7);
  const expected = WalletContractV5R1.create({
    walletId: { networkGlobalId: -239, context: { walletVersion: 'v5r1', workchain: 0, subwalletNumber: 7 } },
    publicKey: Buffer.from(MAINNET_PUB, 'hex'),
  }).address;
  t.true(Address.parse(i7.address).equals(expected));
  t.regex(i7.path, /^m(\/\d+'?)+$/);
  t.is(adapter.deriveAddress(key, 32767).index, 32767);
  t.is(
    codeOf(() => adapter.deriveAddress(key, 32768)),
    'validation_error',
  );
  t.is(
    codeOf(() => adapter.deriveAddress(key, -1)),
    'validation_error',
  );
  // The same key gives different wallets on mainnet and testnet (the wallet id binds the network).
  const testKey = adapter.parseAccountKey(MAINNET_PUB, 'testnet');
  t.false(Address.parse(adapter.deriveAddress(testKey, 0).address).equals(Address.parse(MAINNET_V5R1)));
});

test('invalid keys', (t) => {
  for (const input of [
    '',
    'xyz',
    MAINNET_PUB.slice(2),
    `${MAINNET_PUB}00`,
    'xpub6D1AabNHCupeiLM65ZR9UStMhJ1vCpyV4XbZdyhMZBiJXALQtmn9p42VTQckoHVn8WNqS7dqnJokZHAHcHGoaQgmv8D45oNUKx6DZMNZBCd',
  ]) {
    t.is(
      codeOf(() => adapter.parseAccountKey(input, 'mainnet')),
      'invalid_xpub_format',
      input,
    );
  }
});

test('isValidAddress honours the testOnly flag', (t) => {
  t.true(adapter.isValidAddress(MAINNET_V5R1, 'mainnet'));
  t.false(adapter.isValidAddress(MAINNET_V5R1, 'testnet'));
  const testForm = Address.parse(MAINNET_V5R1).toString({ testOnly: true, bounceable: false });
  t.true(adapter.isValidAddress(testForm, 'testnet'));
  t.false(adapter.isValidAddress(testForm, 'mainnet'));
  t.true(adapter.isValidAddress(Address.parse(MAINNET_V5R1).toRawString(), 'mainnet'));
  t.false(adapter.isValidAddress('UQBiUbwjoB56b7CYtoiPnY5vPh2Fwjva6jEPBhqnttjQKpcf', 'mainnet'));
  t.false(adapter.isValidAddress('0x9858EfFD232B4033E47d90003D41EC34EcaEda94', 'mainnet'));
});

test('ton://transfer URIs with memo and jetton', (t) => {
  t.is(
    adapter.paymentUri({ coin: 'ton', network: 'mainnet', address: MAINNET_V5R1, amountUnits: 1_500_000_000n, memo: 'inv 42/ä' }),
    `ton://transfer/${MAINNET_V5R1}?amount=1500000000&text=inv%2042%2F%C3%A4`,
  );
  t.is(
    adapter.paymentUri({ coin: 'usdt_ton', network: 'mainnet', address: MAINNET_V5R1, amountUnits: 2_500_000n, memo: 'x' }),
    `ton://transfer/${MAINNET_V5R1}?jetton=EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs&amount=2500000&text=x`,
  );
  const testAddr = adapter.deriveAddress(adapter.parseAccountKey(MAINNET_PUB, 'testnet'), 0).address;
  t.is(adapter.paymentUri({ coin: 'ton', network: 'testnet', address: testAddr, amountUnits: 1n }), `ton://transfer/${testAddr}?amount=1`);
  t.is(
    codeOf(() => adapter.paymentUri({ coin: 'usdt_ton', network: 'testnet', address: testAddr, amountUnits: 1n })),
    'validation_error',
  );
});

const CHALLENGE = 'gateway ownership challenge 01J9ZK3Q8T: I control this wallet';

function signData(seedByte: number, network: 'mainnet' | 'testnet', text: string, signerIndex = 0) {
  const kp = keyPairFromSeed(Buffer.alloc(32, seedByte));
  const key = adapter.parseAccountKey(kp.publicKey.toString('hex'), network);
  const wallet = Address.parse(adapter.deriveAddress(key, signerIndex).address);
  const timestamp = 1_735_689_600;
  const domain = 'pay.example.com';
  const signature = sign(tonSignDataHash(wallet, domain, timestamp, text), kp.secretKey).toString('base64');
  return {
    key,
    json: (overrides: Record<string, unknown> = {}) =>
      JSON.stringify({ signature, address: wallet.toRawString(), timestamp, domain, payload: { type: 'text', text }, ...overrides }),
  };
}

test('verifyOwnership: TON Connect signData (text) by the index-0 wallet', async (t) => {
  for (const network of ['mainnet', 'testnet'] as const) {
    const { key, json } = signData(1, network, CHALLENGE);
    t.true(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: json() }));
    // Challenge mismatch, other timestamp/domain than signed, foreign key, other subwallet.
    t.false(await adapter.verifyOwnership({ key, message: `${CHALLENGE}!`, signature: json() }));
    t.false(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: json({ timestamp: 1 }) }));
    t.false(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: json({ domain: 'evil.example' }) }));
    const foreign = signData(2, network, CHALLENGE);
    t.false(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: foreign.json() }));
    const otherSubwallet = signData(1, network, CHALLENGE, 1);
    t.false(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: otherSubwallet.json() }));
    // Tampered text inside the proof: matches the message, but not the signature.
    const tampered = signData(1, network, `${CHALLENGE}?`);
    t.false(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: tampered.json({ payload: { type: 'text', text: CHALLENGE } }) }));
  }
});

test('verifyOwnership: unparseable proofs are validation_error', async (t) => {
  const { key, json } = signData(1, 'mainnet', CHALLENGE);
  for (const signature of [
    '',
    'not json',
    '{}',
    json({ payload: { type: 'binary', bytes: 'AA==' } }),
    json({ signature: 'AAAA' }),
    json({ address: 'nope' }),
  ]) {
    const error = await t.throwsAsync(adapter.verifyOwnership({ key, message: CHALLENGE, signature }));
    t.is((error as AppError).code, 'validation_error', signature);
  }
});

test('a comment with NUL characters decodes without them (PostgreSQL text cannot hold NUL; the scan must not fail on a payer comment)', (t) => {
  const body = beginCell().storeUint(0, 32).storeStringTail('ab\u0000cd\u0000').endCell().toBoc().toString('base64');
  t.deepEqual(decodeIncomingBody(body), { kind: 'comment', text: 'abcd' });
  const jetton = beginCell()
    .storeUint(0x7362d09c, 32)
    .storeUint(0, 64)
    .storeCoins(5n)
    .storeAddress(null)
    .storeBit(0)
    .storeUint(0, 32)
    .storeStringTail('x\u0000y')
    .endCell()
    .toBoc()
    .toString('base64');
  const decoded = decodeIncomingBody(jetton);
  t.is(decoded.kind, 'jetton');
  t.is(decoded.kind === 'jetton' ? decoded.comment : undefined, 'xy');
});

test("verifyAddressSignature: <public key hex>.<ed25519 signature hex> by the key of the address's V4R2 or V5R1 wallet", async (t) => {
  const message = 'Refund 01J9ZK3Q8T of invoice INV-42: pay to the address below — ✓';
  const keys = keyPairFromSeed(Buffer.alloc(32, 11));
  const signature = `${keys.publicKey.toString('hex')}.${sign(Buffer.from(message, 'utf8'), keys.secretKey).toString('hex')}`;
  const foreign = keyPairFromSeed(Buffer.alloc(32, 12)).publicKey;
  for (const network of ['mainnet', 'testnet'] as const) {
    const testOnly = network === 'testnet';
    const v4r2 = WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey }).address;
    const v5r1 = WalletContractV5R1.create({ walletId: { networkGlobalId: testOnly ? -3 : -239 }, publicKey: keys.publicKey }).address;
    const forms = (address: Address) => [
      address.toString({ bounceable: true, testOnly }),
      address.toString({ bounceable: false, testOnly, urlSafe: true }),
      address.toRawString(),
    ];
    const verify = (address: string, text = message, sig = signature) => adapter.verifyAddressSignature({ address, network, message: text, signature: sig });
    for (const address of [...forms(v4r2), ...forms(v5r1)]) {
      t.true(await verify(address), `${network} ${address}`);
      t.false(await verify(address, `${message}.`), `another message ${address}`);
    }
    const others = [
      WalletContractV5R1.create({
        walletId: { networkGlobalId: testOnly ? -3 : -239, context: { walletVersion: 'v5r1', workchain: 0, subwalletNumber: 1 } },
        publicKey: keys.publicKey,
      }),
      WalletContractV5R1.create({ walletId: { networkGlobalId: testOnly ? -239 : -3 }, publicKey: keys.publicKey }), // the other network's V5R1
      WalletContractV3R2.create({ workchain: 0, publicKey: keys.publicKey }),
      WalletContractV4.create({ workchain: 0, publicKey: foreign }),
    ];
    for (const other of others)
      t.false(await verify(other.address.toString({ bounceable: false, testOnly })), `another address ${other.address.toRawString()}`);
  }
  const address = WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey }).address;
  for (const proof of [
    { address: address.toString(), signature: '' },
    { address: address.toString(), signature: signature.replace('.', '') },
    { address: address.toString(), signature: `${signature}.00` },
    { address: address.toString(), signature: signature.slice(0, -2) },
    { address: address.toString({ testOnly: true }), signature }, // a testnet address on mainnet
    { address: `-1:${address.hash.toString('hex')}`, signature }, // the masterchain
    { address: 'not an address', signature },
  ]) {
    const error = await t.throwsAsync(adapter.verifyAddressSignature({ ...proof, network: 'mainnet', message }));
    t.is((error as AppError).code, 'validation_error', `${proof.address} ${proof.signature.slice(0, 20)}`);
  }
});
