import MS from '@emurgo/cardano-message-signing-nodejs';
import type CSL from '@emurgo/cardano-serialization-lib-nodejs';

/**
 * Test support: a CIP-30 `signData` DataSignature made the way browser wallets make it, with
 * EMURGO's message-signing library (protected {alg: EdDSA, address}, unprotected {hashed: false},
 * attached payload; COSE_Key {kty: OKP, alg: EdDSA, crv: Ed25519, x}). `signedPayload` lets a test
 * sign other bytes than the attached payload (a tampered message). Not exported from the package root.
 */
export function cip30SignData(key: CSL.PrivateKey, address: Uint8Array, payload: string, signedPayload = payload): string {
  const eddsa = MS.Label.from_algorithm_id(MS.AlgorithmId.EdDSA);
  const protectedHeaders = MS.HeaderMap.new();
  protectedHeaders.set_algorithm_id(eddsa);
  protectedHeaders.set_header(MS.Label.new_text('address'), MS.CBORValue.new_bytes(address));
  const unprotected = MS.HeaderMap.new();
  unprotected.set_header(MS.Label.new_text('hashed'), MS.CBORValue.new_special(MS.CBORSpecial.new_bool(false)));
  const headers = MS.Headers.new(MS.ProtectedHeaderMap.new(protectedHeaders), unprotected);
  const builder = MS.COSESign1Builder.new(headers, Buffer.from(payload, 'utf8'), false);
  const toSign = MS.COSESign1Builder.new(headers, Buffer.from(signedPayload, 'utf8'), false).make_data_to_sign().to_bytes();
  const sign1 = builder.build(key.sign(toSign).to_bytes());

  const coseKey = MS.COSEKey.new(MS.Label.from_key_type(MS.KeyType.OKP));
  coseKey.set_algorithm_id(eddsa);
  coseKey.set_header(MS.Label.from_ec_key(MS.ECKey.CRV), MS.CBORValue.from_label(MS.Label.from_curve_type(MS.CurveType.Ed25519)));
  coseKey.set_header(MS.Label.from_ec_key(MS.ECKey.X), MS.CBORValue.new_bytes(key.to_public().as_bytes()));
  return JSON.stringify({ signature: Buffer.from(sign1.to_bytes()).toString('hex'), key: Buffer.from(coseKey.to_bytes()).toString('hex') });
}
