import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { chainErrors, treasuryChainErrors, type KeyOrigin, type UnsignedTransaction, type VerifiedTransaction } from '@gw/chain-api';
import { addressKey } from './account-derivation.js';
import { sighashAllDigests } from './bip143-digest.js';
import { planKeyOrigin } from './plan-key.js';
import { unsignedTransactionOf } from './psbt-transaction.js';
import { readSigned, type SignedCandidate } from './read-signed.js';
import type { TreasuryNetwork } from './treasury-network.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const txidOf = (hash: Uint8Array) => Buffer.from(hash).reverse().toString('hex');

/**
 * Checks that `signed` (a PSBT, finalized or with partial signatures, or a raw transaction) is
 * exactly the plan `unsigned` and that each input is signed by the key the gateway derives for it,
 * and returns the complete transaction to broadcast.
 *
 * Nothing the signer sent is trusted: the version, lock time, every input (outpoint, order,
 * sequence, empty scriptSig) and every output (script, amount) are compared with the plan's own
 * PSBT (`treasury_signed_mismatch`, `details` naming the first difference); each input's
 * signature is checked here, ECDSA over the BIP 143 digest of the plan's transaction and the
 * amount the gateway recorded, against the public key derived from the plan's account key at the
 * input's branch and index, never one the PSBT names. It must be low-S and SIGHASH_ALL: any other
 * sighash type would let whoever relays the transaction change it (`treasury_signed_incomplete`).
 * The transaction returned is rebuilt from the plan and those signatures.
 *
 * The plan itself is checked first: a plan of another format, a PSBT that does not parse, a
 * summary (`inputs`, `outputs`, `feeUnits`) that is not what the PSBT does, or an input key or
 * origin that `build` would refuse is `validation_error` (the stored plan is inconsistent).
 */
export function verifySigned(unsigned: UnsignedTransaction, signed: string, net: TreasuryNetwork): VerifiedTransaction {
  const { plan, origins } = checkedPlan(unsigned, net);
  const candidate = readSigned(signed);
  compareWithPlan(plan, candidate.tx);

  const final = plan.clone();
  const digestOf = sighashAllDigests(plan);
  unsigned.inputs.forEach((input, i) => {
    const key = addressKey(input.key, origins[i], input.branch, input.index, net.network);
    const witness = witnessOf(candidate, i, key.pubkey);
    const where = `input ${i} (${input.txHash}:${input.outputIndex})`;
    if (!witness) throw incomplete(where, 'has no signature', i);
    if (witness.length !== 2) throw incomplete(where, `has a witness of ${witness.length} items, not a signature and a public key`, i);
    const [signature, pubkey] = witness as [Uint8Array, Uint8Array];
    if (hex(pubkey) !== hex(key.pubkey)) throw incomplete(where, 'is signed by another key than the one the gateway derives for it', i);
    let decoded: { signature: Uint8Array; hashType: number };
    try {
      decoded = bitcoin.script.signature.decode(signature);
    } catch (cause) {
      throw incomplete(where, `has a malformed signature (${(cause as Error).message})`, i);
    }
    if (decoded.hashType !== bitcoin.Transaction.SIGHASH_ALL) throw incomplete(where, `is signed with sighash type ${decoded.hashType}, not SIGHASH_ALL`, i);
    // BIP 143: a P2WPKH input's scriptCode is the P2PKH script of its key hash (the script's 20 bytes after OP_0 0x14).
    const scriptCode = Uint8Array.from([0x76, 0xa9, 0x14, ...key.script.subarray(2), 0x88, 0xac]);
    const digest = digestOf(i, scriptCode, input.amountUnits);
    let valid: boolean;
    try {
      valid = ecc.verify(digest, key.pubkey, decoded.signature, true);
    } catch (cause) {
      // r or s not below the group order: the library refuses to read it as a signature.
      throw incomplete(where, `has a malformed signature (${(cause as Error).message})`, i);
    }
    if (!valid) throw incomplete(where, 'has a signature that does not verify', i);
    final.setWitness(i, [signature, key.pubkey]);
  });

  const txid = final.getId();
  if (txid !== unsigned.txid) {
    throw treasuryChainErrors.treasury_signed_mismatch({
      message: `The signed transaction is ${txid}, the plan is ${unsigned.txid}.`,
      details: { what: 'txid' },
    });
  }
  return { txid, hex: final.toHex() };
}

/**
 * The plan's transaction, read from its PSBT, after checking that the plan's summary is what the
 * PSBT does and that each input names a key `build` would accept; with each input's key origin,
 * normalised. Anything else is `validation_error`.
 */
function checkedPlan(unsigned: UnsignedTransaction, net: TreasuryNetwork): { plan: bitcoin.Transaction; origins: (KeyOrigin | undefined)[] } {
  const inconsistent = (reason: string) => chainErrors.validation_error({ message: `The stored plan is inconsistent: ${reason}.` });
  if (typeof unsigned !== 'object' || unsigned === null || unsigned.format !== 'psbt') {
    throw chainErrors.validation_error({ message: `The plan is not a PSBT plan (${String(unsigned?.format)}).` });
  }
  let psbt: bitcoin.Psbt;
  try {
    psbt = bitcoin.Psbt.fromBase64(String(unsigned.data), { network: net.network });
  } catch (cause) {
    throw inconsistent(`its PSBT does not parse (${(cause as Error).message})`);
  }
  const plan = unsignedTransactionOf(psbt);
  const { inputs, outputs, feeUnits } = unsigned;
  if (!Array.isArray(inputs) || inputs.length !== plan.ins.length) throw inconsistent('its inputs are not the PSBT’s');
  if (!Array.isArray(outputs) || outputs.length !== plan.outs.length) throw inconsistent('its outputs are not the PSBT’s');
  let inputTotal = 0n;
  const origins = inputs.map((input, i) => {
    const where = `The plan's input ${i}`;
    if (typeof input !== 'object' || input === null) throw inconsistent(`input ${i} is not an input`);
    if (txidOf(plan.ins[i]!.hash) !== input.txHash || plan.ins[i]!.index !== input.outputIndex) throw inconsistent(`input ${i} is not the PSBT’s`);
    if (typeof input.amountUnits !== 'bigint' || input.amountUnits <= 0n || psbt.data.inputs[i]!.witnessUtxo?.value !== input.amountUnits) {
      throw inconsistent(`the amount of input ${i} is not the PSBT’s`);
    }
    if ((input.branch !== 0 && input.branch !== 1) || !Number.isSafeInteger(input.index) || input.index < 0 || input.index > 0x7fffffff) {
      throw inconsistent(`input ${i} has no address branch and index`);
    }
    inputTotal += input.amountUnits;
    return planKeyOrigin(input.key, input.origin, net, where);
  });
  let outputTotal = 0n;
  outputs.forEach((output, i) => {
    const found = plan.outs[i]!;
    let script: Uint8Array | null = null;
    try {
      script = bitcoin.address.toOutputScript(String(output?.address), net.network);
    } catch {
      // compared below
    }
    if (script === null || hex(script) !== hex(found.script) || output.amountUnits !== found.value) throw inconsistent(`output ${i} is not the PSBT’s`);
    outputTotal += found.value;
  });
  if (feeUnits !== inputTotal - outputTotal) throw inconsistent(`its fee ${String(feeUnits)} is not the PSBT’s ${inputTotal - outputTotal}`);
  return { plan, origins };
}

/** The witness of input `i`: the one given, or one made of the PSBT's partial signature by `pubkey`. */
function witnessOf(candidate: SignedCandidate, i: number, pubkey: Uint8Array): readonly Uint8Array[] | null {
  const given = candidate.witnesses[i];
  if (given) return given;
  const partial = candidate.partialSigs[i]?.get(hex(pubkey));
  return partial ? [partial, pubkey] : null;
}

/** Throws `treasury_signed_mismatch` at the first difference between the plan and the signed transaction. */
function compareWithPlan(plan: bitcoin.Transaction, tx: bitcoin.Transaction): void {
  const differ = (what: string, expected: unknown, found: unknown, index?: number) => {
    const at = index === undefined ? what : `${what.split('.')[0]} ${index} ${what.split('.')[1] ?? ''}`.trim();
    return treasuryChainErrors.treasury_signed_mismatch({
      message: `The signed transaction differs from the plan: ${at} is ${String(found)} where the plan has ${String(expected)}. Nothing was broadcast.`,
      details: { what, ...(index === undefined ? {} : { index }), expected: String(expected), found: String(found) },
    });
  };
  if (tx.version !== plan.version) throw differ('version', plan.version, tx.version);
  if (tx.locktime !== plan.locktime) throw differ('locktime', plan.locktime, tx.locktime);
  if (tx.ins.length !== plan.ins.length) throw differ('input_count', plan.ins.length, tx.ins.length);
  plan.ins.forEach((expected, i) => {
    const found = tx.ins[i]!;
    const [want, got] = [`${txidOf(expected.hash)}:${expected.index}`, `${txidOf(found.hash)}:${found.index}`];
    if (want !== got) throw differ('input.outpoint', want, got, i);
    if (found.sequence !== expected.sequence) throw differ('input.sequence', expected.sequence, found.sequence, i);
    if (found.script.length > 0) throw differ('input.script_sig', '(empty)', hex(found.script), i);
  });
  if (tx.outs.length !== plan.outs.length) throw differ('output_count', plan.outs.length, tx.outs.length);
  plan.outs.forEach((expected, i) => {
    const found = tx.outs[i]!;
    if (hex(found.script) !== hex(expected.script)) throw differ('output.script', hex(expected.script), hex(found.script), i);
    if (found.value !== expected.value) throw differ('output.amount', expected.value, found.value, i);
  });
}

function incomplete(where: string, reason: string, index: number) {
  return treasuryChainErrors.treasury_signed_incomplete({
    message: `The signed transaction's ${where} ${reason}. Nothing was broadcast.`,
    details: { input: index, reason },
  });
}
