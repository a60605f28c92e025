import { createPublicKey, randomBytes, verify } from 'node:crypto';
import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import {
  assertAddressIndex,
  assertKeyOfChain,
  paymentUriCoin,
  coreErrors,
  fromBaseUnits,
  type AccountKey,
  type ChainAdapter,
  type ChainAdapterDeps,
  type ChainDefinition,
  type DerivedAddress,
  type NetworkKind,
  type OwnershipProof,
  type PaymentUriInput,
} from '@gw/kernel';
import { decodeCbor, encodeCbor, type CborValue } from './cbor.js';
import { CARDANO_NETWORK_ID, deriveAdaAddress, paymentPublicKey, parseAdaAccountKey } from './derive.js';
import { AdaWatcher } from './watcher.js';

/** The signature format accepted by `verifyOwnership`: CIP-30 `signData` output (DataSignature). */
export interface AdaDataSignature {
  /** COSE_Sign1, CBOR hex. */
  readonly signature: string;
  /** COSE_Key, CBOR hex. */
  readonly key: string;
}

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const HEX = /^(?:[0-9a-fA-F]{2})+$/;

function bad(message: string, cause?: unknown): never {
  throw coreErrors.validation_error(cause === undefined ? { message } : { message, cause });
}

function bytesOf(value: CborValue | undefined, what: string): Uint8Array {
  if (!(value instanceof Uint8Array)) bad(`COSE: ${what} must be a byte string.`);
  return value;
}

function mapOf(value: CborValue | undefined, what: string): Map<CborValue, CborValue> {
  if (!(value instanceof Map)) bad(`COSE: ${what} must be a map.`);
  return value;
}

function decodeHex(hex: string, what: string): CborValue {
  if (!HEX.test(hex)) bad(`${what} must be CBOR hex.`);
  try {
    return decodeCbor(Buffer.from(hex, 'hex'));
  } catch (cause) {
    return bad(`${what} is not valid CBOR.`, cause);
  }
}

interface ParsedSign1 {
  readonly protectedBytes: Uint8Array;
  readonly address: Uint8Array;
  readonly payload: Uint8Array | null;
  readonly signature: Uint8Array;
  readonly publicKey: Uint8Array;
}

function parseDataSignature(raw: string): ParsedSign1 {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (cause) {
    return bad('The Cardano signature must be JSON {"signature":"<COSE_Sign1 hex>","key":"<COSE_Key hex>"}.', cause);
  }
  const ds = json as Partial<AdaDataSignature> | null;
  if (!ds || typeof ds.signature !== 'string' || typeof ds.key !== 'string') {
    bad('The Cardano signature must be JSON {"signature":"<COSE_Sign1 hex>","key":"<COSE_Key hex>"}.');
  }
  let sign1 = decodeHex(ds.signature, 'COSE_Sign1');
  if (sign1 !== null && typeof sign1 === 'object' && 'tag' in sign1 && sign1.tag === 18) sign1 = sign1.value;
  if (!Array.isArray(sign1) || sign1.length !== 4) bad('COSE_Sign1 must be an array of four items.');
  const protectedBytes = bytesOf(sign1[0], 'protected header');
  const protectedMap = mapOf(protectedBytes.length === 0 ? new Map() : decodeHex(Buffer.from(protectedBytes).toString('hex'), 'protected header'), 'protected header');
  if (protectedMap.get(1) !== -8) bad('COSE: protected header alg must be EdDSA (-8).');
  const address = bytesOf(protectedMap.get('address'), 'protected "address" header');
  const unprotected = mapOf(sign1[1], 'unprotected header');
  if (unprotected.get('hashed') === true) bad('COSE: hashed payloads are not supported; sign the challenge text itself.');
  const payload = sign1[2] === null ? null : bytesOf(sign1[2], 'payload');
  const signature = bytesOf(sign1[3], 'signature');
  if (signature.length !== 64) bad('COSE: an Ed25519 signature is 64 bytes.');
  const coseKey = mapOf(decodeHex(ds.key, 'COSE_Key'), 'COSE_Key');
  if (coseKey.get(1) !== 1 || coseKey.get(-1) !== 6) bad('COSE_Key must be an OKP (kty 1) Ed25519 (crv 6) key.');
  const keyAlg = coseKey.get(3);
  if (keyAlg !== undefined && keyAlg !== -8) bad('COSE_Key alg must be EdDSA (-8).');
  const publicKey = bytesOf(coseKey.get(-2), 'COSE_Key x');
  if (publicKey.length !== 32) bad('COSE_Key x must be a 32-byte Ed25519 public key.');
  return { protectedBytes, address, payload, signature, publicKey };
}

/** The COSE Sig_structure for COSE_Sign1: ["Signature1", protected, external_aad = h'', payload]. */
export function sigStructure(protectedBytes: Uint8Array, payload: Uint8Array): Uint8Array {
  return encodeCbor(['Signature1', protectedBytes, new Uint8Array(0), payload]);
}

/**
 * Cardano adapter: CIP-1852 base addresses (payment 0/i, stake 2/0) from an account key, CIP-13
 * `web+cardano:` URIs, and CIP-8/CIP-30 `signData` ownership proofs.
 */
export function createAdaAdapter(_deps: ChainAdapterDeps, definition: ChainDefinition): ChainAdapter {
  const checkKey = (key: AccountKey): void => assertKeyOfChain(definition, key);
  const deriveAddress = (key: AccountKey, index: number): DerivedAddress => {
    checkKey(key);
    assertAddressIndex(definition, index);
    return { index, ...deriveAdaAddress(key.canonical, key.network, index) };
  };

  const isValidAddress = (address: string, network: NetworkKind): boolean => {
    if (typeof address !== 'string' || address.length > 200) return false;
    const prefix = network === 'mainnet' ? 'addr1' : 'addr_test1';
    if (!address.startsWith(prefix)) return false;
    try {
      const parsed = CSL.Address.from_bech32(address);
      const header = parsed.to_bytes()[0]!;
      // Shelley payment address types 0-7 (base, script, pointer, enterprise); not reward addresses.
      return header >> 4 <= 7 && parsed.network_id() === CARDANO_NETWORK_ID[network];
    } catch {
      return false;
    }
  };

  return {
    definition,

    parseAccountKey(input: string, network: NetworkKind): AccountKey {
      const trimmed = input.trim();
      return { chain: definition.id, network, input: trimmed, canonical: parseAdaAccountKey(trimmed) };
    },

    deriveAddress,
    isValidAddress,

    /** CIP-1852 account key 1852'/1815'/0' of a random 24-word entropy, as 64-byte public key hex. */
    generateAccountKey(_network: NetworkKind): string {
      const hardened = (n: number) => 0x80000000 + n;
      const account = CSL.Bip32PrivateKey.from_bip39_entropy(randomBytes(32), new Uint8Array(0)).derive(hardened(1852)).derive(hardened(1815)).derive(hardened(0));
      return Buffer.from(account.to_public().as_bytes()).toString('hex');
    },

    /** CIP-13: `web+cardano:<address>?amount=<decimal ada>`. */
    paymentUri(input: PaymentUriInput): string {
      const { coin } = paymentUriCoin(definition, input);
      if (!isValidAddress(input.address, input.network)) bad('Not a valid Cardano address for this network.');
      const query = input.amountUnits > 0n ? `?amount=${fromBaseUnits(input.amountUnits, coin.decimals)}` : '';
      return `web+cardano:${input.address}${query}`;
    },

    async verifyOwnership(proof: OwnershipProof): Promise<boolean> {
      checkKey(proof.key);
      const parsed = parseDataSignature(proof.signature.trim());
      const message = Buffer.from(proof.message, 'utf8');
      if (parsed.payload !== null && !message.equals(parsed.payload)) return false;
      const expectedKeyHash = Buffer.from(paymentPublicKey(proof.key.canonical, 0).hash().to_bytes());
      let signerKeyHash: Buffer;
      try {
        signerKeyHash = Buffer.from(CSL.PublicKey.from_bytes(parsed.publicKey).hash().to_bytes());
      } catch (cause) {
        return bad('COSE_Key x is not an Ed25519 public key.', cause);
      }
      if (!signerKeyHash.equals(expectedKeyHash)) return false;
      const expectedAddress = Buffer.from(CSL.Address.from_bech32(deriveAddress(proof.key, 0).address).to_bytes());
      if (!expectedAddress.equals(parsed.address)) return false;
      const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, parsed.publicKey]), format: 'der', type: 'spki' });
      return verify(null, sigStructure(parsed.protectedBytes, parsed.payload ?? message), key, parsed.signature);
    },

    createWatcher: (options) => new AdaWatcher(definition, options),
  };
}
