import test from 'ava';
import nacl from 'tweetnacl';
import * as noble from '@noble/ed25519';
import { parseURL, encodeURL, type TransferRequestURL } from '@solana/pay';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { address, getBase58Decoder } from '@solana/kit';
import { fromBaseUnits, isAppError, type NetworkKind } from '@gw/chain-api';
import { chainConformance, codeOf, configuredAdapter, type PaymentUriVector } from '@gw/chain-api/testing';
import { solChain, solDefinition } from './index.js';

// The key of RFC 8032 section 7.1 TEST 1 (secret 9d61b1…7f60, public d75a98…511a): its public key in
// base58 is the Solana address FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z. Solana addresses carry no
// network, so it serves both kinds; the wallet key is the address itself (payment references).
const SECRET_SEED = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
const ADDRESS = 'FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z';
// RFC 8032 TEST 2's key: another holder.
const OTHER_SEED = Buffer.from('4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb', 'hex');
const USDC_MAINNET = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USDC_DEVNET = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
const USDT_MAINNET = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
const REFERENCE = '82ZJ7nbGpixjeDCmEhUcmwXYfvurzAgGdtSMuHnUgyny';

const base58 = getBase58Decoder();
const keyPair = nacl.sign.keyPair.fromSeed(SECRET_SEED);
/** What Phantom's and Solflare's `signMessage` give for the UTF-8 message, base58-encoded as dapps send it. */
const naclSign = (message: string, seed: Uint8Array = SECRET_SEED) =>
  base58.decode(nacl.sign.detached(Buffer.from(message, 'utf8'), nacl.sign.keyPair.fromSeed(seed).secretKey));
const adapter = configuredAdapter(solChain);
const vectors = (network: NetworkKind) => ({
  key: ADDRESS,
  addresses: [{ index: 0, address: ADDRESS, path: "m/44'/501'/0'/0'" }],
  source: 'RFC 8032 7.1 TEST 1 public key as a Solana address (base58 of its 32 bytes); ' + network,
});

const paymentUris: PaymentUriVector[] = [
  {
    input: { coin: 'sol', network: 'mainnet', address: ADDRESS, amountUnits: 1_500_000_000n, reference: REFERENCE, label: 'Shop', message: 'Invoice 42' },
    uri: `solana:${ADDRESS}?amount=1.5&reference=${REFERENCE}&label=Shop&message=Invoice%2042`,
  },
  {
    input: { coin: 'usdc_sol', network: 'mainnet', address: ADDRESS, amountUnits: 12_340_000n, reference: REFERENCE },
    uri: `solana:${ADDRESS}?amount=12.34&spl-token=${USDC_MAINNET}&reference=${REFERENCE}`,
  },
  {
    input: { coin: 'usdc_sol', network: 'testnet', address: ADDRESS, amountUnits: 1n, reference: REFERENCE },
    uri: `solana:${ADDRESS}?amount=0.000001&spl-token=${USDC_DEVNET}&reference=${REFERENCE}`,
  },
  { input: { coin: 'usdt_sol', network: 'mainnet', address: ADDRESS, amountUnits: 0n }, uri: `solana:${ADDRESS}?spl-token=${USDT_MAINNET}` },
];

chainConformance(test, {
  module: solChain,
  vectors: { mainnet: vectors('mainnet'), testnet: vectors('testnet') },
  keysEncodeNetwork: false,
  sign: (message) => naclSign(message),
  paymentUris,
  invalidAddresses: {
    mainnet: [
      '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
      `${ADDRESS}1`,
      ADDRESS.slice(0, 36),
      ADDRESS.replace('F', '0'),
    ],
    testnet: ['tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl', 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs', `${ADDRESS}1`],
  },
});

test('the vectors key is RFC 8032 TEST 1 (tweetnacl derives its public key and its signature of the empty message)', (t) => {
  t.is(base58.decode(keyPair.publicKey), ADDRESS);
  const rfcSignature = 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b';
  t.is(Buffer.from(nacl.sign.detached(new Uint8Array(), keyPair.secretKey)).toString('hex'), rfcSignature);
});

test('ownership: a tweetnacl signature (Phantom/Solflare signMessage) is accepted as base58, base64 and hex', async (t) => {
  const key = adapter.parseAccountKey(ADDRESS, 'mainnet');
  const message = 'Prove you own this wallet: gw challenge 01J9ZK3Q8T7Y4XW2';
  const raw = nacl.sign.detached(Buffer.from(message, 'utf8'), keyPair.secretKey);
  for (const signature of [base58.decode(raw), Buffer.from(raw).toString('base64'), Buffer.from(raw).toString('hex')]) {
    t.true(await adapter.verifyOwnership({ key, message, signature }), signature);
  }
});

test('ownership: an @noble/ed25519 signature is accepted; another message or another key is refused', async (t) => {
  const key = adapter.parseAccountKey(ADDRESS, 'testnet');
  const message = 'gateway ownership challenge: café ✓ 0123456789';
  const signature = base58.decode(await noble.signAsync(Buffer.from(message, 'utf8'), SECRET_SEED));
  t.true(await adapter.verifyOwnership({ key, message, signature }));
  t.false(await adapter.verifyOwnership({ key, message: `${message} `, signature }), 'another message');
  const byOther = base58.decode(await noble.signAsync(Buffer.from(message, 'utf8'), OTHER_SEED));
  t.false(await adapter.verifyOwnership({ key, message, signature: byOther }), 'another key');
  t.false(await adapter.verifyOwnership({ key, message, signature: naclSign(message, OTHER_SEED) }), 'another key (tweetnacl)');
  const other = adapter.parseAccountKey(base58.decode(await noble.getPublicKeyAsync(OTHER_SEED)), 'testnet');
  t.true(await adapter.verifyOwnership({ key: other, message, signature: byOther }), 'the other key proves its own address');
});

test('ownership: a truncated signature is validation_error; an off-curve address (a PDA, an ATA) proves nothing', async (t) => {
  const key = adapter.parseAccountKey(ADDRESS, 'mainnet');
  const error = await t.throwsAsync(adapter.verifyOwnership({ key, message: 'm', signature: naclSign('m').slice(0, 40) }));
  t.true(isAppError(error) && error.code === 'validation_error');
  // The USDC mint's associated token account of ADDRESS is a program-derived address (no private key).
  const [pda] = await findAssociatedTokenPda({ owner: address(ADDRESS), mint: address(USDC_MAINNET), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  t.false(await adapter.verifyAddressSignature({ address: pda, network: 'mainnet', message: 'm', signature: naclSign('m') }));
});

test('keys: an address is the key (either network), anything else is invalid_xpub_format; index 1 does not exist', (t) => {
  for (const network of ['mainnet', 'testnet'] as const) {
    const key = adapter.parseAccountKey(`  ${ADDRESS} `, network);
    t.is(key.canonical, ADDRESS);
    t.deepEqual(adapter.deriveAddress(key, 0), { index: 0, address: ADDRESS, path: "m/44'/501'/0'/0'" });
    t.is(
      codeOf(() => adapter.deriveAddress(key, 1)),
      'validation_error',
    );
  }
  t.is(
    codeOf(() =>
      adapter.parseAccountKey('xpub6BosfCnifzxcFwrSzQiqu2DBVTshkCXacvNsWGYJVVhhawA7d4R5WSWGFNbi8Aw6ZRc1brxMyWMzG3DSSSSoekkudhUd9yLb6qx39T9nMdj', 'mainnet'),
    ),
    'invalid_xpub_format',
  );
  const generated = adapter.generateAccountKey!('testnet');
  t.true(adapter.isValidAddress(generated, 'testnet'));
  t.not(generated, adapter.generateAccountKey!('testnet'));
});

test('payment URIs parse with @solana/pay as the transfer requests they are meant to be, and equal its encodeURL', (t) => {
  for (const { input, uri } of paymentUris) {
    const parsed = parseURL(uri) as TransferRequestURL;
    t.is(parsed.recipient.toBase58(), input.address, uri);
    const coin = solDefinition.coins.find((c) => c.id === input.coin)!;
    t.is(parsed.amount?.toFixed() ?? '0', fromBaseUnits(input.amountUnits, coin.decimals), uri);
    t.is(parsed.splToken?.toBase58(), coin.contracts?.[input.network === 'mainnet' ? 'mainnet-beta' : 'devnet']);
    t.deepEqual(
      parsed.reference?.map((r) => r.toBase58()),
      input.reference ? [input.reference] : undefined,
    );
    t.is(parsed.label, input.label);
    t.is(parsed.message, input.message);
    // @solana/pay encodes a space as '+', the gateway as %20: the same once decoded, and byte for byte without one.
    const encoded = String(encodeURL(parsed as Parameters<typeof encodeURL>[0]));
    t.is(encoded.replaceAll('+', '%20'), uri);
  }
});
