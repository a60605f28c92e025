import test from 'ava';
import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import type { AppError, ChainAdapterDeps } from '@gw/kernel';
import { adaChain, encodeCbor, sigStructure } from './index.js';
import { bech32Decode, bech32Encode } from './bech32.js';

const adapter = adaChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, adaChain.definition);
const h = (n: number): number => 0x80000000 + n;
const codeOf = (t: { throws: (fn: () => unknown) => unknown }, fn: () => unknown): string => (t.throws(fn) as AppError).code;

// "abandon ... about": BIP39 entropy is 16 zero bytes; Icarus master key per CIP-3.
const root = CSL.Bip32PrivateKey.from_bip39_entropy(new Uint8Array(16), new Uint8Array(0));
const accountPrv = root.derive(h(1852)).derive(h(1815)).derive(h(0));
const ACCOUNT_HEX = Buffer.from(accountPrv.to_public().as_bytes()).toString('hex');
// Published vectors for this mnemonic at m/1852'/1815'/0'/0/0 (stake 2/0): Keystone firmware tests
// (xfp 73c5da0a) and Eternl; testnet form from AdaLite's ShelleyBaseAddressProvider test.
const MAINNET_0 = 'addr1qy8ac7qqy0vtulyl7wntmsxc6wex80gvcyjy33qffrhm7sh927ysx5sftuw0dlft05dz3c7revpf7jx0xnlcjz3g69mq4afdhv';
const TESTNET_0 = 'addr_test1qq8ac7qqy0vtulyl7wntmsxc6wex80gvcyjy33qffrhm7sh927ysx5sftuw0dlft05dz3c7revpf7jx0xnlcjz3g69mqkt5dmn';
// Payment part of index 1 (Keystone fixture hdPath m/1852'/1815'/0'/0/1; its stake part differs).
const KEYSTONE_INDEX_1 = 'addr1qyz85693g4fr8c55mfyxhae8j2u04pydxrgqr73vmwpx3azv4dgkyrgylj5yl2m0jlpdpeswyyzjs0vhwvnl6xg9f7ssrxkz90';
// CIP-19 test vectors: the payment key is m/1852'/1815'/0'/0/0 of "test walk nut penalty hip pave
// soap entry language right filter choice" (BIP39 entropy below); type-06 are enterprise addresses.
const CIP19_ENTROPY = 'df9ed25ed146bf43336a5d7cf7395994';
const CIP19_ENTERPRISE = {
  mainnet: 'addr1vx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzers66hrl8',
  testnet: 'addr_test1vz2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzerspjrlsz',
};

const ACCT_XVK = bech32Encode('acct_xvk', Buffer.from(ACCOUNT_HEX, 'hex'));

function paymentKeyHashOf(address: string): string {
  const base = CSL.BaseAddress.from_address(CSL.Address.from_bech32(address))!;
  return Buffer.from(base.payment_cred().to_keyhash()!.to_bytes()).toString('hex');
}

test('definition data', (t) => {
  const d = adaChain.definition;
  t.deepEqual(d.coins.map((c) => [c.id, c.decimals]), [['ada', 6]]);
  t.deepEqual(d.networks.testnets.map((n) => n.id), ['preprod', 'preview']);
  t.is(d.verificationStandard, 'cip1852');
  t.is(d.defaultConfirmations, 15);
});

test('CIP-1852 base address vectors, mainnet and testnet, from acct_xvk and hex', (t) => {
  t.true(ACCT_XVK.startsWith('acct_xvk1'));
  t.is(Buffer.from(bech32Decode(MAINNET_0)!.data).toString('hex').slice(0, 2), '01'); // codec sanity: base address, mainnet
  for (const input of [ACCT_XVK, ACCOUNT_HEX, ACCOUNT_HEX.toUpperCase()]) {
    const main = adapter.parseAccountKey(input, 'mainnet');
    t.is(main.canonical, ACCOUNT_HEX);
    t.deepEqual(adapter.deriveAddress(main, 0), { index: 0, address: MAINNET_0, path: "m/1852'/1815'/0'/0/0" });
    const testnet = adapter.parseAccountKey(input, 'testnet');
    t.is(adapter.deriveAddress(testnet, 0).address, TESTNET_0);
  }
  const key = adapter.parseAccountKey(ACCT_XVK, 'mainnet');
  t.is(paymentKeyHashOf(adapter.deriveAddress(key, 1).address), paymentKeyHashOf(KEYSTONE_INDEX_1));
  // CSL's own xpub bech32 form is accepted too.
  t.is(adapter.parseAccountKey(accountPrv.to_public().to_bech32(), 'mainnet').canonical, ACCOUNT_HEX);
});

test('CIP-19 payment key vectors (mainnet and testnet enterprise forms)', (t) => {
  const acct = CSL.Bip32PrivateKey.from_bip39_entropy(Buffer.from(CIP19_ENTROPY, 'hex'), new Uint8Array(0))
    .derive(h(1852)).derive(h(1815)).derive(h(0)).to_public();
  for (const network of ['mainnet', 'testnet'] as const) {
    const key = adapter.parseAccountKey(Buffer.from(acct.as_bytes()).toString('hex'), network);
    const hash = CSL.Ed25519KeyHash.from_hex(paymentKeyHashOf(adapter.deriveAddress(key, 0).address));
    const enterprise = CSL.EnterpriseAddress.new(network === 'mainnet' ? 1 : 0, CSL.Credential.from_keyhash(hash)).to_address().to_bech32();
    t.is(enterprise, CIP19_ENTERPRISE[network]);
  }
});

test('invalid keys', (t) => {
  for (const input of ['', 'acct_xvk1qqqq', ACCOUNT_HEX.slice(2), accountPrv.to_bech32(), root.to_public().to_bech32().replace('xpub', 'root_xvk'), 'xpub6D1AabNHCupeiLM65ZR9UStMhJ1vCpyV4XbZdyhMZBiJXALQtmn9p42VTQckoHVn8WNqS7dqnJokZHAHcHGoaQgmv8D45oNUKx6DZMNZBCd']) {
    t.is(codeOf(t, () => adapter.parseAccountKey(input, 'mainnet')), 'invalid_xpub_format', input);
  }
});

test('isValidAddress and CIP-13 URIs', (t) => {
  t.true(adapter.isValidAddress(MAINNET_0, 'mainnet'));
  t.false(adapter.isValidAddress(MAINNET_0, 'testnet'));
  t.true(adapter.isValidAddress(TESTNET_0, 'testnet'));
  t.true(adapter.isValidAddress(CIP19_ENTERPRISE.mainnet, 'mainnet'));
  t.false(adapter.isValidAddress('stake1uyehkck0lajq8gr28t9uxnuvgcqrc6070x3k9r8048z8y5gh6ffgw', 'mainnet'));
  t.false(adapter.isValidAddress(`${MAINNET_0.slice(0, -1)}x`, 'mainnet'));
  t.is(adapter.paymentUri({ coin: 'ada', network: 'mainnet', address: MAINNET_0, amountUnits: 12_500_000n }), `web+cardano:${MAINNET_0}?amount=12.5`);
  t.is(adapter.paymentUri({ coin: 'ada', network: 'testnet', address: TESTNET_0, amountUnits: 1n }), `web+cardano:${TESTNET_0}?amount=0.000001`);
  t.is(codeOf(t, () => adapter.paymentUri({ coin: 'ada', network: 'testnet', address: MAINNET_0, amountUnits: 1n })), 'validation_error');
});

const CHALLENGE = 'gateway ownership challenge 01J9ZK3Q8T: I control this wallet';

/** Builds a CIP-30 DataSignature the way wallets do (protected {1:-8, "address"}, unprotected {"hashed": false}). */
function signData(prv: CSL.Bip32PrivateKey, addressBech32: string, payload: string, signedPayload = payload) {
  const addressBytes = CSL.Address.from_bech32(addressBech32).to_bytes();
  const protectedBytes = encodeCbor(new Map<string | number, Uint8Array | number>([[1, -8], ['address', addressBytes]]) as never);
  const raw = prv.to_raw_key();
  const sig = raw.sign(sigStructure(protectedBytes, Buffer.from(signedPayload, 'utf8'))).to_bytes();
  const sign1 = encodeCbor([protectedBytes, new Map([['hashed', false]]), Buffer.from(payload, 'utf8'), sig]);
  const key = encodeCbor(new Map<number, number | Uint8Array>([[1, 1], [3, -8], [-1, 6], [-2, raw.to_public().as_bytes()]]) as never);
  return JSON.stringify({ signature: Buffer.from(sign1).toString('hex'), key: Buffer.from(key).toString('hex') });
}

test('verifyOwnership: CIP-8 COSE_Sign1 from payment key 0/0', async (t) => {
  const pay0 = accountPrv.derive(0).derive(0);
  const pay1 = accountPrv.derive(0).derive(1);
  for (const [network, addr0] of [['mainnet', MAINNET_0], ['testnet', TESTNET_0]] as const) {
    const key = adapter.parseAccountKey(ACCT_XVK, network);
    t.true(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: signData(pay0, addr0, CHALLENGE) }));
    t.false(await adapter.verifyOwnership({ key, message: `${CHALLENGE}!`, signature: signData(pay0, addr0, CHALLENGE) }));
    // Payload says the challenge but the signature covers other bytes (tampered message).
    t.false(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: signData(pay0, addr0, CHALLENGE, 'other') }));
    // Foreign key (index 1) and an address header that is not index 0.
    t.false(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: signData(pay1, addr0, CHALLENGE) }));
    const addr1 = adapter.deriveAddress(key, 1).address;
    t.false(await adapter.verifyOwnership({ key, message: CHALLENGE, signature: signData(pay0, addr1, CHALLENGE) }));
  }
  const key = adapter.parseAccountKey(ACCT_XVK, 'mainnet');
  for (const signature of ['', '{}', JSON.stringify({ signature: 'zz', key: 'a0' }), JSON.stringify({ signature: '80', key: 'a0' })]) {
    const error = await t.throwsAsync(adapter.verifyOwnership({ key, message: CHALLENGE, signature }));
    t.is((error as AppError).code, 'validation_error', signature);
  }
});
