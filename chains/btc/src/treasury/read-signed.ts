import * as bitcoin from 'bitcoinjs-lib';
import { treasuryChainErrors } from '@gw/chain-api';
import { unsignedTransactionOf } from './psbt-transaction.js';

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const PSBT_MAGIC = '70736274ff';
/** Far above any plan: the bound keeps a hostile upload from costing more than a read. */
const MAX_CHARS = 8_000_000;

/** A signed transaction as it came back, before any check against the plan. */
export interface SignedCandidate {
  /** The transaction without witnesses (inputs, outputs, version, lock time, scriptSigs). */
  readonly tx: bitcoin.Transaction;
  /** Per input: the witness stack the signer gave, or null when the input carries none. */
  readonly witnesses: readonly (readonly Uint8Array[] | null)[];
  /** Per input: signatures a PSBT holds for the input but has not finalized, by public key (hex). */
  readonly partialSigs: readonly ReadonlyMap<string, Uint8Array>[];
}

/**
 * Reads what a signer gave back: a PSBT (base64 or hex, finalized or holding partial signatures)
 * or a complete transaction in hex. Anything else is `treasury_signed_unreadable`. Nothing here
 * is trusted yet: `verifySigned` compares it with the plan and checks every signature.
 */
export function readSigned(signed: string): SignedCandidate {
  const text = typeof signed === 'string' ? signed.trim() : '';
  if (text.length === 0 || text.length > MAX_CHARS) throw unreadable('it is empty or too large');
  try {
    if (HEX.test(text)) {
      return text.toLowerCase().startsWith(PSBT_MAGIC) ? fromPsbt(bitcoin.Psbt.fromHex(text)) : fromRawTransaction(bitcoin.Transaction.fromHex(text));
    }
    if (BASE64.test(text)) return fromPsbt(bitcoin.Psbt.fromBase64(text));
  } catch (cause) {
    throw unreadable((cause as Error).message, cause);
  }
  throw unreadable('it is neither a PSBT (base64 or hex) nor a transaction in hex');
}

function fromRawTransaction(tx: bitcoin.Transaction): SignedCandidate {
  const witnesses = tx.ins.map((input) => (input.witness.length > 0 ? input.witness.map((item) => Uint8Array.from(item)) : null));
  const bare = tx.clone();
  for (let i = 0; i < bare.ins.length; i++) bare.setWitness(i, []);
  return { tx: bare, witnesses, partialSigs: tx.ins.map(() => new Map()) };
}

function fromPsbt(psbt: bitcoin.Psbt): SignedCandidate {
  const tx = unsignedTransactionOf(psbt);
  psbt.data.inputs.forEach((input, i) => {
    // A finalized input's scriptSig goes into the transaction, where the plan comparison sees it.
    if (input.finalScriptSig && input.finalScriptSig.length > 0) tx.setInputScript(i, Uint8Array.from(input.finalScriptSig));
  });
  return {
    tx,
    witnesses: psbt.data.inputs.map((input) => (input.finalScriptWitness ? witnessStack(input.finalScriptWitness) : null)),
    partialSigs: psbt.data.inputs.map(
      (input) => new Map((input.partialSig ?? []).map((p) => [Buffer.from(p.pubkey).toString('hex'), Uint8Array.from(p.signature)])),
    ),
  };
}

/** A serialized witness stack (PSBT_IN_FINAL_SCRIPTWITNESS): an item count, then each item with its length. */
function witnessStack(bytes: Uint8Array): Uint8Array[] {
  let offset = 0;
  const varInt = (): number => {
    const first = bytes[offset++];
    if (first === undefined) throw new Error('truncated witness');
    if (first < 0xfd) return first;
    const size = first === 0xfd ? 2 : first === 0xfe ? 4 : 8;
    if (offset + size > bytes.length) throw new Error('truncated witness');
    let value = 0;
    for (let i = size - 1; i >= 0; i--) value = value * 256 + bytes[offset + i]!;
    offset += size;
    return value;
  };
  const items: Uint8Array[] = [];
  for (let count = varInt(); count > 0; count--) {
    const length = varInt();
    if (offset + length > bytes.length) throw new Error('truncated witness');
    items.push(bytes.slice(offset, offset + length));
    offset += length;
  }
  if (offset !== bytes.length) throw new Error('trailing bytes after the witness');
  return items;
}

function unreadable(reason: string, cause?: unknown) {
  return treasuryChainErrors.treasury_signed_unreadable({
    message: `The signed file could not be read as a signed transaction: ${reason}.`,
    ...(cause === undefined ? {} : { cause }),
  });
}
