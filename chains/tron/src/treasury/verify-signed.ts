import { treasuryChainErrors, type AccountStep, type VerifiedStep } from '@gw/chain-api';
import { utils as tronUtils } from 'tronweb';
import { encodeRawData, hexAddress, type TronUnsignedTx } from './offline-transaction.js';

const SIGNATURE = /^[0-9a-f]{130}$/;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The address whose key must sign `step`. */
export function signerAddress(step: AccountStep): string {
  return step.signer.kind === 'deposit' ? step.signer.address : step.signer.account.address;
}

/** The `tron-tx` JSON a step carries. */
export function unsignedOf(step: AccountStep): TronUnsignedTx {
  return JSON.parse(step.unsigned.data) as TronUnsignedTx;
}

/** Leaf paths of a JSON value, for naming the first field two transactions differ in. */
function leaves(value: unknown, prefix: string, out: Map<string, string>): Map<string, string> {
  if (isObject(value)) for (const [k, v] of Object.entries(value)) leaves(v, prefix ? `${prefix}.${k}` : k, out);
  else if (Array.isArray(value)) value.forEach((v, i) => leaves(v, `${prefix}[${i}]`, out));
  else out.set(prefix, String(value).toLowerCase());
  return out;
}

function firstDifference(signed: unknown, planned: unknown): string {
  const a = leaves(signed, '', new Map());
  const b = leaves(planned, '', new Map());
  for (const key of new Set([...b.keys(), ...a.keys()])) {
    if (a.get(key) !== b.get(key)) return `raw_data.${key} is ${a.get(key) ?? 'missing'}, the plan has ${b.get(key) ?? 'none'}`;
  }
  return 'raw_data_hex differs';
}

/**
 * Checks a signed TRON transaction (the JSON a signer gives back: `raw_data`, `raw_data_hex`,
 * `signature`) against `step`, with `tronweb`: its `raw_data` must encode to its `raw_data_hex`, that
 * must be the step's byte for byte, and its one signature over the id (sha256 of `raw_data_hex`) must
 * recover to the step's signer. Returns the signed protobuf `Transaction` in hex, what
 * `/wallet/broadcasthex` takes.
 */
export function verifyTronSigned(step: AccountStep, signed: string): VerifiedStep {
  const planned = unsignedOf(step);
  let json: unknown;
  try {
    json = JSON.parse(signed);
  } catch {
    throw treasuryChainErrors.treasury_signed_unreadable({ message: `Step ${step.id}: the signed transaction is not JSON.` });
  }
  if (!isObject(json) || typeof json['raw_data_hex'] !== 'string' || !isObject(json['raw_data'])) {
    throw treasuryChainErrors.treasury_signed_unreadable({ message: `Step ${step.id}: not a signed TRON transaction (raw_data, raw_data_hex).` });
  }
  let encoded: { txID: string; rawDataHex: string };
  try {
    encoded = encodeRawData(json['raw_data']);
  } catch {
    throw treasuryChainErrors.treasury_signed_unreadable({ message: `Step ${step.id}: raw_data is no TRON transaction.` });
  }
  const rawDataHex = json['raw_data_hex'].toLowerCase();
  if (encoded.rawDataHex !== rawDataHex) {
    throw treasuryChainErrors.treasury_signed_mismatch({ message: `Step ${step.id}: raw_data does not encode to the raw_data_hex that was signed.` });
  }
  if (rawDataHex !== planned.raw_data_hex) {
    throw treasuryChainErrors.treasury_signed_mismatch({ message: `Step ${step.id}: ${firstDifference(json['raw_data'], planned.raw_data)}.` });
  }
  if (typeof json['txID'] === 'string' && json['txID'].toLowerCase() !== planned.txID) {
    throw treasuryChainErrors.treasury_signed_mismatch({ message: `Step ${step.id}: txID is not the transaction's id.` });
  }
  const signatures = json['signature'];
  if (!Array.isArray(signatures) || signatures.length === 0) {
    throw treasuryChainErrors.treasury_signed_incomplete({ message: `Step ${step.id}: no signature.` });
  }
  if (signatures.length !== 1 || typeof signatures[0] !== 'string' || !SIGNATURE.test(signatures[0].toLowerCase())) {
    throw treasuryChainErrors.treasury_signed_incomplete({ message: `Step ${step.id}: expected one 65-byte signature.` });
  }
  const signature = signatures[0].toLowerCase();
  let recovered: string;
  try {
    recovered = tronUtils.crypto.ecRecover(planned.txID, signature).toLowerCase();
  } catch {
    throw treasuryChainErrors.treasury_signed_incomplete({ message: `Step ${step.id}: the signature is not valid.` });
  }
  if (recovered !== hexAddress(signerAddress(step))) {
    throw treasuryChainErrors.treasury_signed_incomplete({ message: `Step ${step.id}: signed by another key than ${signerAddress(step)}'s.` });
  }
  const pb = tronUtils.transaction.txJsonToPb({ raw_data: planned.raw_data });
  pb.addSignature(Buffer.from(signature, 'hex'));
  return { kind: 'transaction', stepId: step.id, tx: { txid: planned.txID, hex: Buffer.from(pb.serializeBinary()).toString('hex') } };
}
