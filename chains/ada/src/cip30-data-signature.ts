import { decode, encode, type TagDecoder } from 'cborg';
import { chainErrors } from '@gw/chain-api';

/** CIP-30 `signData` output (DataSignature): JSON of it in `verifyOwnership`, dotted hex in `verifyAddressSignature`. */
export interface AdaDataSignature {
  /** COSE_Sign1 (RFC 9052 §4.2), CBOR hex. */
  readonly signature: string;
  /** COSE_Key (RFC 9052 §7), CBOR hex. */
  readonly key: string;
}

/** The parts of a CIP-30 DataSignature that ownership verification needs, checked for shape and algorithm. */
export interface ParsedDataSignature {
  /** The protected header exactly as transmitted (the bytes the signature covers). */
  readonly protectedBytes: Uint8Array;
  /** The protected `address` header: the raw Cardano address the wallet signed for. */
  readonly address: Uint8Array;
  /** The attached payload, or null when the payload is detached. */
  readonly payload: Uint8Array | null;
  /** The 64-byte Ed25519 signature. */
  readonly signature: Uint8Array;
  /** The 32-byte Ed25519 public key of the COSE_Key (`x`). */
  readonly publicKey: Uint8Array;
}

/** COSE labels and values used here (RFC 9052/9053, CIP-8). */
const ALG = 1;
const EDDSA = -8;
const KTY = 1;
const KTY_OKP = 1;
const KEY_ALG = 3;
const CRV = -1;
const CRV_ED25519 = 6;
const X = -2;
const COSE_SIGN1_TAG = 18;

/** Far above a real DataSignature (a challenge text, an address and a key); bounds the work on hostile input. */
const MAX_HEX_CHARS = 16_384;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const FORMAT = 'The Cardano signature must be JSON {"signature":"<COSE_Sign1 hex>","key":"<COSE_Key hex>"}.';

type Cbor = unknown;

const TAGGED = Symbol('COSE_Sign1 tag');
const sign1Tag: TagDecoder = (content) => ({ [TAGGED]: content() });
/**
 * Strict decoding: maps keep their key types, duplicate keys, indefinite lengths, `undefined` and
 * trailing bytes are refused, and the only tag understood is COSE_Sign1's own (18).
 */
const TOP_LEVEL = {
  useMaps: true,
  rejectDuplicateMapKeys: true,
  allowIndefinite: false,
  allowUndefined: false,
  tags: tagTable({ [COSE_SIGN1_TAG]: sign1Tag }),
};
const NESTED = { ...TOP_LEVEL, tags: tagTable({}) };

function tagTable(entries: Record<number, TagDecoder>): TagDecoder[] {
  const table: TagDecoder[] = [];
  for (const [tag, decoder] of Object.entries(entries)) table[Number(tag)] = decoder;
  return table;
}

function bad(message: string, cause?: unknown): never {
  throw chainErrors.validation_error(cause === undefined ? { message } : { message, cause });
}

function decodeCbor(bytes: Uint8Array, what: string, options: typeof TOP_LEVEL): Cbor {
  try {
    return decode(bytes, options);
  } catch (cause) {
    return bad(`${what} is not valid CBOR.`, cause);
  }
}

function decodeHex(hex: string, what: string, options: typeof TOP_LEVEL): Cbor {
  if (hex.length > MAX_HEX_CHARS || !HEX.test(hex)) bad(`${what} must be CBOR hex (at most ${MAX_HEX_CHARS / 2} bytes).`);
  return decodeCbor(Buffer.from(hex, 'hex'), what, options);
}

function bytesOf(value: Cbor, what: string): Uint8Array {
  if (!(value instanceof Uint8Array)) bad(`COSE: ${what} must be a byte string.`);
  return value;
}

function mapOf(value: Cbor, what: string): Map<Cbor, Cbor> {
  if (!(value instanceof Map)) bad(`COSE: ${what} must be a map.`);
  return value;
}

/** A CIP-30 DataSignature as ownership proofs carry it: JSON `{"signature","key"}`, then {@link parseDataSignatureParts}. */
export function parseDataSignature(raw: string): ParsedDataSignature {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (cause) {
    return bad(FORMAT, cause);
  }
  const ds = json as Partial<AdaDataSignature> | null;
  if (!ds || typeof ds !== 'object' || typeof ds.signature !== 'string' || typeof ds.key !== 'string') bad(FORMAT);
  return parseDataSignatureParts({ signature: ds.signature, key: ds.key });
}

/** A CIP-30 DataSignature as payers' address signatures carry it: `<COSE_Sign1 hex>.<COSE_Key hex>`, then {@link parseDataSignatureParts}. */
export function parseDottedDataSignature(raw: string): ParsedDataSignature {
  const parts = raw.split('.');
  if (parts.length !== 2) bad('The Cardano signature must be <COSE_Sign1 hex>.<COSE_Key hex> (CIP-30 signData).');
  return parseDataSignatureParts({ signature: parts[0]!, key: parts[1]! });
}

/**
 * Parses a CIP-30 DataSignature (CIP-8 message signing) and checks everything but the signature
 * itself: COSE_Sign1 is a four-item array (optionally tagged 18) whose protected header declares
 * EdDSA and the signing address, the payload is not pre-hashed, the signature is 64 bytes, and the
 * COSE_Key is an OKP Ed25519 key (alg, if present, EdDSA). Every refusal is `validation_error`.
 */
export function parseDataSignatureParts(ds: AdaDataSignature): ParsedDataSignature {
  let sign1 = decodeHex(ds.signature, 'COSE_Sign1', TOP_LEVEL);
  if (sign1 !== null && typeof sign1 === 'object' && TAGGED in sign1) sign1 = (sign1 as { [TAGGED]: Cbor })[TAGGED];
  if (!Array.isArray(sign1) || sign1.length !== 4) bad('COSE_Sign1 must be an array of four items.');
  const [protectedItem, unprotectedItem, payloadItem, signatureItem] = sign1 as [Cbor, Cbor, Cbor, Cbor];

  const protectedBytes = bytesOf(protectedItem, 'protected header');
  // RFC 9052 §3: an empty protected header is a zero-length byte string; this one must carry alg and address.
  const protectedMap = mapOf(protectedBytes.length === 0 ? new Map() : decodeCbor(protectedBytes, 'The protected header', NESTED), 'protected header');
  if (protectedMap.get(ALG) !== EDDSA) bad('COSE: protected header alg must be EdDSA (-8).');
  const address = bytesOf(protectedMap.get('address'), 'protected "address" header');
  const unprotected = mapOf(unprotectedItem, 'unprotected header');
  if (unprotected.has(ALG)) bad('COSE: alg belongs in the protected header only.');
  const hashed = unprotected.get('hashed');
  if (hashed !== undefined && hashed !== false) bad('COSE: hashed payloads are not supported; sign the challenge text itself.');
  const payload = payloadItem === null ? null : bytesOf(payloadItem, 'payload');
  const signature = bytesOf(signatureItem, 'signature');
  if (signature.length !== 64) bad('COSE: an Ed25519 signature is 64 bytes.');

  const coseKey = mapOf(decodeHex(ds.key, 'COSE_Key', NESTED), 'COSE_Key');
  if (coseKey.get(KTY) !== KTY_OKP || coseKey.get(CRV) !== CRV_ED25519) bad('COSE_Key must be an OKP (kty 1) Ed25519 (crv 6) key.');
  const keyAlg = coseKey.get(KEY_ALG);
  if (keyAlg !== undefined && keyAlg !== EDDSA) bad('COSE_Key alg must be EdDSA (-8).');
  const publicKey = bytesOf(coseKey.get(X), 'COSE_Key x');
  if (publicKey.length !== 32) bad('COSE_Key x must be a 32-byte Ed25519 public key.');
  return { protectedBytes, address, payload, signature, publicKey };
}

/** The COSE Sig_structure for COSE_Sign1 (RFC 9052 §4.4): ["Signature1", protected, external_aad = h'', payload]. */
export function sigStructure(protectedBytes: Uint8Array, payload: Uint8Array): Uint8Array {
  return encode(['Signature1', protectedBytes, new Uint8Array(0), payload]);
}
