import test from 'ava';
import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import type { AppError, ChainAdapterDeps } from '@gw/chain-api';
import { bech32 } from 'bech32';
import { encode } from 'cborg';
import { adaChain, sigStructure } from './index.js';
import { cip30SignData } from './testing/index.js';
import { chainConformance, codeOf } from '@gw/chain-api/testing';

const adapter = adaChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, adaChain.definition);
const h = (n: number): number => 0x80000000 + n;

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

const ACCT_XVK = bech32.encode('acct_xvk', bech32.toWords(Buffer.from(ACCOUNT_HEX, 'hex')), 1000);

/** A CIP-30 DataSignature in the form payers' address signatures take: `<COSE_Sign1 hex>.<COSE_Key hex>`. */
const dotted = (json: string): string => {
  const { signature, key } = JSON.parse(json) as { signature: string; key: string };
  return `${signature}.${key}`;
};

// The shared chain conformance suite: the Keystone/Eternl vector on both network kinds (one key, two
// address headers), CIP-30 signData proofs made with Cardano's serialization library, CIP-13 URIs.
const index0 = (address: string) => [{ index: 0, address, path: "m/1852'/1815'/0'/0/0" }];
chainConformance(test, {
  module: adaChain,
  vectors: {
    mainnet: { key: ACCOUNT_HEX, addresses: index0(MAINNET_0), source: 'Keystone/Eternl CIP-1852 vector' },
    testnet: { key: ACCOUNT_HEX, addresses: index0(TESTNET_0), source: 'the same key on testnet (CIP-19 header 0)' },
  },
  keysEncodeNetwork: false,
  sign: (message) => cip30SignData(accountPrv.derive(0).derive(0).to_raw_key(), CSL.Address.from_bech32(MAINNET_0).to_bytes(), message),
  signForAddress: (message) => dotted(cip30SignData(accountPrv.derive(0).derive(0).to_raw_key(), CSL.Address.from_bech32(MAINNET_0).to_bytes(), message)),
  proofNetworks: ['mainnet'],
  paymentUris: [
    { input: { coin: 'ada', network: 'mainnet', address: MAINNET_0, amountUnits: 12_500_000n }, uri: `web+cardano:${MAINNET_0}?amount=12.5` },
    { input: { coin: 'ada', network: 'testnet', address: TESTNET_0, amountUnits: 1n }, uri: `web+cardano:${TESTNET_0}?amount=0.000001` },
  ],
  invalidAddresses: { mainnet: [TESTNET_0, 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'], testnet: [MAINNET_0] },
});

function paymentKeyHashOf(address: string): string {
  const base = CSL.BaseAddress.from_address(CSL.Address.from_bech32(address))!;
  return Buffer.from(base.payment_cred().to_keyhash()!.to_bytes()).toString('hex');
}

test('definition data', (t) => {
  const d = adaChain.definition;
  t.deepEqual(
    d.coins.map((c) => [c.id, c.decimals]),
    [['ada', 6]],
  );
  t.deepEqual(
    d.networks.testnets.map((n) => n.id),
    ['preprod', 'preview'],
  );
  t.is(d.verificationStandard, 'cip1852');
  t.is(d.defaultConfirmations, 15);
});

test('CIP-1852 base address vectors, mainnet and testnet, from acct_xvk and hex', (t) => {
  t.true(ACCT_XVK.startsWith('acct_xvk1'));
  t.is(
    Buffer.from(bech32.fromWords(bech32.decode(MAINNET_0, 1000).words))
      .toString('hex')
      .slice(0, 2),
    '01',
  ); // codec sanity: base address, mainnet
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
    .derive(h(1852))
    .derive(h(1815))
    .derive(h(0))
    .to_public();
  for (const network of ['mainnet', 'testnet'] as const) {
    const key = adapter.parseAccountKey(Buffer.from(acct.as_bytes()).toString('hex'), network);
    const hash = CSL.Ed25519KeyHash.from_hex(paymentKeyHashOf(adapter.deriveAddress(key, 0).address));
    const enterprise = CSL.EnterpriseAddress.new(network === 'mainnet' ? 1 : 0, CSL.Credential.from_keyhash(hash))
      .to_address()
      .to_bech32();
    t.is(enterprise, CIP19_ENTERPRISE[network]);
  }
});

test('invalid keys', (t) => {
  for (const input of [
    '',
    'acct_xvk1qqqq',
    ACCOUNT_HEX.slice(2),
    accountPrv.to_bech32(),
    root.to_public().to_bech32().replace('xpub', 'root_xvk'),
    'xpub6D1AabNHCupeiLM65ZR9UStMhJ1vCpyV4XbZdyhMZBiJXALQtmn9p42VTQckoHVn8WNqS7dqnJokZHAHcHGoaQgmv8D45oNUKx6DZMNZBCd',
  ]) {
    t.is(
      codeOf(() => adapter.parseAccountKey(input, 'mainnet')),
      'invalid_xpub_format',
      input,
    );
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
  t.is(
    codeOf(() => adapter.paymentUri({ coin: 'ada', network: 'testnet', address: MAINNET_0, amountUnits: 1n })),
    'validation_error',
  );
});

const CHALLENGE = 'gateway ownership challenge 01J9ZK3Q8T: I control this wallet';

function signData(prv: CSL.Bip32PrivateKey, addressBech32: string, payload: string, signedPayload = payload) {
  return cip30SignData(prv.to_raw_key(), CSL.Address.from_bech32(addressBech32).to_bytes(), payload, signedPayload);
}

test('verifyOwnership: CIP-8 COSE_Sign1 from payment key 0/0', async (t) => {
  const pay0 = accountPrv.derive(0).derive(0);
  const pay1 = accountPrv.derive(0).derive(1);
  for (const [network, addr0] of [
    ['mainnet', MAINNET_0],
    ['testnet', TESTNET_0],
  ] as const) {
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

/** A DataSignature assembled item by item and signed over its own protected header, so only the named defect differs. */
function assemble(parts: {
  protectedMap?: Map<unknown, unknown>;
  protectedBytes?: Uint8Array;
  unprotected?: Map<unknown, unknown>;
  payload?: Uint8Array | null;
  key?: Map<unknown, unknown>;
  items?: (sign1: unknown[]) => unknown;
}): { signature: string; key: string } {
  const raw = accountPrv.derive(0).derive(0).to_raw_key();
  const protectedMap =
    parts.protectedMap ??
    new Map<unknown, unknown>([
      [1, -8],
      ['address', CSL.Address.from_bech32(MAINNET_0).to_bytes()],
    ]);
  const protectedBytes = parts.protectedBytes ?? encode(protectedMap);
  const payload = parts.payload === undefined ? Buffer.from(CHALLENGE, 'utf8') : parts.payload;
  const sig = raw.sign(sigStructure(protectedBytes, payload ?? Buffer.from(CHALLENGE, 'utf8'))).to_bytes();
  const sign1 = [protectedBytes, parts.unprotected ?? new Map([['hashed', false]]), payload, sig];
  const key =
    parts.key ??
    new Map<unknown, unknown>([
      [1, 1],
      [3, -8],
      [-1, 6],
      [-2, raw.to_public().as_bytes()],
    ]);
  const hex = (v: unknown) => Buffer.from(v instanceof Uint8Array ? v : encode(v)).toString('hex');
  return { signature: hex(parts.items ? parts.items(sign1) : encode(sign1)), key: hex(key) };
}

test('verifyOwnership: well-formed variants wallets send are accepted', async (t) => {
  const key = adapter.parseAccountKey(ACCT_XVK, 'mainnet');
  const verify = (ds: { signature: string; key: string }) => adapter.verifyOwnership({ key, message: CHALLENGE, signature: JSON.stringify(ds) });
  t.true(await verify(assemble({})), 'assembled with cborg, checked against the library-built form');
  t.true(await verify(assemble({ items: (s) => Buffer.concat([Buffer.from([0xd2]), encode(s)]) })), 'tagged COSE_Sign1 (18)');
  t.true(await verify(assemble({ payload: null })), 'detached payload');
  t.true(await verify(assemble({ unprotected: new Map() })), 'no "hashed" header');
});

test('verifyOwnership: malformed CBOR and wrong COSE headers are validation_error', async (t) => {
  const key = adapter.parseAccountKey(ACCT_XVK, 'mainnet');
  const good = assemble({});
  const pub = accountPrv.derive(0).derive(0).to_raw_key().to_public().as_bytes();
  const address = CSL.Address.from_bech32(MAINNET_0).to_bytes();
  const cases: Record<string, { signature: string; key: string }> = {
    'truncated COSE_Sign1': { ...good, signature: good.signature.slice(0, -10) },
    'trailing bytes after COSE_Sign1': { ...good, signature: `${good.signature}00` },
    'truncated COSE_Key': { ...good, key: good.key.slice(0, -2) },
    'odd hex': { ...good, signature: `${good.signature}0` },
    'oversized input': { ...good, signature: '40'.repeat(10_000) },
    'indefinite-length array': assemble({ items: (s) => Buffer.concat([Buffer.from([0x9f]), ...s.map((i) => encode(i)), Buffer.from([0xff])]) }),
    'three items': assemble({ items: (s) => s.slice(0, 3) }),
    'five items': assemble({ items: (s) => [...s, 0] }),
    'another tag (98, COSE_Sign)': assemble({ items: (s) => Buffer.concat([Buffer.from([0xd8, 0x62]), encode(s)]) }),
    'alg ES256 (-7)': assemble({
      protectedMap: new Map<unknown, unknown>([
        [1, -7],
        ['address', address],
      ]),
    }),
    'alg missing': assemble({ protectedMap: new Map<unknown, unknown>([['address', address]]) }),
    'alg as text': assemble({
      protectedMap: new Map<unknown, unknown>([
        [1, 'EdDSA'],
        ['address', address],
      ]),
    }),
    'empty protected header': assemble({ protectedBytes: new Uint8Array(0) }),
    'address missing': assemble({ protectedMap: new Map<unknown, unknown>([[1, -8]]) }),
    'address as text': assemble({
      protectedMap: new Map<unknown, unknown>([
        [1, -8],
        ['address', MAINNET_0],
      ]),
    }),
    'duplicate alg in protected header': assemble({
      protectedBytes: Buffer.concat([Buffer.from('a3012701', 'hex'), encode(-8), encode('address'), encode(address)]),
    }),
    'protected header not a map': assemble({ protectedBytes: encode([1, -8]) }),
    'trailing bytes in protected header': assemble({
      protectedBytes: Buffer.concat([
        encode(
          new Map<unknown, unknown>([
            [1, -8],
            ['address', address],
          ]),
        ),
        Buffer.from([0]),
      ]),
    }),
    'alg repeated in unprotected header': assemble({ unprotected: new Map<unknown, unknown>([[1, -8]]) }),
    'hashed payload': assemble({ unprotected: new Map([['hashed', true]]) }),
    'payload as text': assemble({ items: (s) => [s[0], s[1], CHALLENGE, s[3]] }),
    'short signature': assemble({ items: (s) => [s[0], s[1], s[2], (s[3] as Uint8Array).subarray(0, 63)] }),
    'key type EC2': assemble({
      key: new Map<unknown, unknown>([
        [1, 2],
        [3, -8],
        [-1, 6],
        [-2, pub],
      ]),
    }),
    'curve X25519': assemble({
      key: new Map<unknown, unknown>([
        [1, 1],
        [3, -8],
        [-1, 4],
        [-2, pub],
      ]),
    }),
    'key alg ES256': assemble({
      key: new Map<unknown, unknown>([
        [1, 1],
        [3, -7],
        [-1, 6],
        [-2, pub],
      ]),
    }),
    'key x of 31 bytes': assemble({
      key: new Map<unknown, unknown>([
        [1, 1],
        [3, -8],
        [-1, 6],
        [-2, pub.subarray(0, 31)],
      ]),
    }),
    'key x missing': assemble({
      key: new Map<unknown, unknown>([
        [1, 1],
        [3, -8],
        [-1, 6],
      ]),
    }),
  };
  for (const [name, ds] of Object.entries(cases)) {
    const error = await t.throwsAsync(adapter.verifyOwnership({ key, message: CHALLENGE, signature: JSON.stringify(ds) }), undefined, name);
    t.is((error as AppError | undefined)?.code, 'validation_error', name);
  }
});

test('account keys: a bech32 key with a bad checksum, a wrong prefix or mixed case is invalid_xpub_format', (t) => {
  const flipped = `${ACCT_XVK.slice(0, -1)}${ACCT_XVK.endsWith('q') ? 'p' : 'q'}`;
  const words = bech32.toWords(Buffer.from(ACCOUNT_HEX, 'hex'));
  for (const input of [
    flipped,
    bech32.encode('addr_vk', words, 1000),
    bech32.encode('acct_xvk', bech32.toWords(Buffer.from(ACCOUNT_HEX.slice(0, -2), 'hex')), 1000), // 63 bytes
    `acct_xvk1${ACCT_XVK.slice(9, 40).toUpperCase()}${ACCT_XVK.slice(40)}`,
  ]) {
    t.is(
      codeOf(() => adapter.parseAccountKey(input, 'mainnet')),
      'invalid_xpub_format',
      input,
    );
  }
});

test('verifyAddressSignature: CIP-30 signData as <COSE_Sign1 hex>.<COSE_Key hex>, base and enterprise addresses', async (t) => {
  const message = 'Refund 01J9ZK3Q8T of invoice INV-42: pay to the address below — ✓';
  const pay0 = accountPrv.derive(0).derive(0);
  const pay1 = accountPrv.derive(0).derive(1);
  const sign = (prv: CSL.Bip32PrivateKey, address: string, payload = message, signed = payload) => dotted(signData(prv, address, payload, signed));
  for (const [network, address] of [
    ['mainnet', MAINNET_0],
    ['testnet', TESTNET_0],
  ] as const) {
    const other = adapter.deriveAddress(adapter.parseAccountKey(ACCOUNT_HEX, network), 1).address;
    const enterprise = CSL.EnterpriseAddress.new(network === 'mainnet' ? 1 : 0, CSL.Credential.from_keyhash(pay0.to_public().to_raw_key().hash()))
      .to_address()
      .to_bech32();
    const verify = (claimed: string, signature: string, text = message) =>
      adapter.verifyAddressSignature({ address: claimed, network, message: text, signature });
    t.true(await verify(address, sign(pay0, address)));
    t.true(await verify(enterprise, sign(pay0, enterprise)), 'an enterprise address of the key');
    t.false(await verify(address, sign(pay0, address), `${message}!`), 'another message');
    t.false(await verify(address, sign(pay0, address, message, 'other')), 'the signature covers other bytes than the payload');
    t.false(await verify(other, sign(pay0, address)), 'another address than the protected header');
    t.false(await verify(other, sign(pay0, other)), 'an address whose payment key is not the signer');
    t.false(await verify(address, sign(pay1, address)), 'another key for the address');
    t.false(await verify(enterprise, sign(pay0, address)), 'the protected header is the base address, not the enterprise one');
  }
  const script = CSL.EnterpriseAddress.new(1, CSL.Credential.from_scripthash(CSL.ScriptHash.from_hex('00'.repeat(28))))
    .to_address()
    .to_bech32();
  t.false(await adapter.verifyAddressSignature({ address: script, network: 'mainnet', message, signature: sign(pay0, script) }), 'a script address has no key');
  const good = sign(pay0, MAINNET_0);
  for (const proof of [
    { address: MAINNET_0, signature: '' },
    { address: MAINNET_0, signature: 'zz.a0' },
    { address: MAINNET_0, signature: `${good}.${good.split('.')[1]}` },
    { address: MAINNET_0, signature: signData(pay0, MAINNET_0, message) }, // the ownership proofs' JSON form
    { address: TESTNET_0, signature: good }, // a testnet address on mainnet
    { address: 'addr1notanaddress', signature: good },
  ]) {
    const error = await t.throwsAsync(adapter.verifyAddressSignature({ ...proof, network: 'mainnet', message }));
    t.is((error as AppError).code, 'validation_error', proof.signature.slice(0, 40));
  }
});
