import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { chainErrors, treasuryChainErrors, type NetworkKind, type SpendInput, type UnsignedTransaction, type VerifiedTransaction } from '@gw/chain-api';
import { paymentKeyPath } from '../derive.js';
import { readSignedTransaction } from './read-signed.js';
import { assertSpendInputShape } from './request-shape.js';
import { assertInputDerives, inputKeyHash } from './spend-keys.js';

/**
 * Checks a signed Cardano transaction against its plan (see `ChainTreasury.verifySigned`):
 * 0. the plan itself: a `cardano-tx` of this network's inputs (else `validation_error`), whose
 *    transaction has exactly the inputs, outputs, fee and id its summary states (a second guard
 *    against a plan record whose data and summary disagree): else `treasury_signed_mismatch`;
 * 1. its body is byte for byte the plan's (so the same id): else `treasury_signed_mismatch`, naming
 *    what differs (inputs, outputs, fee, ttl, or other body fields);
 * 2. it carries nothing the plan did not (auxiliary data, scripts, redeemers, bootstrap witnesses,
 *    even as empty lists, `is_valid` false): `treasury_signed_mismatch`;
 * 3. for every input, a vkey witness by the payment key the gateway derives from the account key
 *    at the input's path, whose Ed25519 signature verifies over the body hash (CSL
 *    `PublicKey.verify`): else `treasury_signed_incomplete`;
 * 4. exactly one witness per such key and none of other keys, and no more bytes than the plan's
 *    `size`, which its fee pays for: else `treasury_signed_mismatch`.
 * Unreadable input: `treasury_signed_unreadable`. Pure.
 */
export function verifyAdaSigned(unsigned: UnsignedTransaction, signed: string, network: NetworkKind): VerifiedTransaction {
  const plan = readPlan(unsigned, network);
  const planBody = plan.raw_body();
  const tx = readSignedTransaction(signed, planBody);
  const txid = tx.transaction_hash().to_hex();
  const mismatch = (message: string, differences: string[], details: Record<string, unknown> = {}): never => {
    throw treasuryChainErrors.treasury_signed_mismatch({
      message: `${message} Nothing was broadcast.`,
      details: { differences, ...details, plan_txid: unsigned.txid, signed_txid: txid },
    });
  };

  if (!Buffer.from(tx.raw_body()).equals(Buffer.from(planBody))) {
    const differences = bodyDifferences(plan.body(), tx.body());
    mismatch(`The signed transaction is not the plan (${differences.join(', ')} differ).`, differences);
  }
  const extra = extraContent(tx);
  if (extra.length > 0) mismatch(`The signed transaction carries what the plan does not: ${extra.join(', ')}.`, extra);

  const hashBytes = tx.transaction_hash().to_bytes();
  const witnesses = tx.witness_set().vkeys();
  const valid = new Set<string>();
  const count = new Map<string, number>();
  for (let i = 0; i < (witnesses?.len() ?? 0); i++) {
    const witness = witnesses!.get(i);
    const key = witness.vkey().public_key();
    const hash = key.hash().to_hex();
    count.set(hash, (count.get(hash) ?? 0) + 1);
    if (key.verify(hashBytes, witness.signature())) valid.add(hash);
  }
  const repeated = [...count].filter(([, n]) => n > 1).map(([hash]) => hash);
  if (repeated.length > 0) {
    mismatch(`The signed transaction carries more than one witness of ${repeated.length} key(s).`, ['witnesses'], { repeated_key_hashes: repeated });
  }
  const required = new Map<string, SpendInput>();
  for (const input of unsigned.inputs) required.set(inputKeyHash(input), input);
  const missing = [...required].filter(([hash]) => !valid.has(hash)).map(([hash, input]) => ({ hash, input }));
  if (missing.length > 0) {
    throw treasuryChainErrors.treasury_signed_incomplete({
      message: `No valid signature for ${missing.map(({ input }) => `${input.txHash}#${input.outputIndex} (${paymentKeyPath(input.branch, input.index)})`).join(', ')}. Nothing was broadcast.`,
      details: {
        missing: missing.map(({ hash, input }) => ({
          tx_hash: input.txHash,
          output_index: input.outputIndex,
          path: paymentKeyPath(input.branch, input.index),
          reason: count.has(hash) ? 'invalid_signature' : 'no_witness',
        })),
      },
    });
  }
  const strangers = [...count.keys()].filter((hash) => !required.has(hash));
  if (strangers.length > 0) {
    mismatch(`The signed transaction carries ${strangers.length} witness(es) of keys the plan does not name.`, ['witnesses'], {
      unknown_key_hashes: strangers,
    });
  }
  const bytes = tx.to_bytes();
  if (bytes.length > unsigned.size) {
    // Identical repeated witnesses, say: CSL's view drops them, the bytes keep them, and the fee pays for `size` only.
    mismatch(`The signed transaction is ${bytes.length} bytes, more than the ${unsigned.size} its fee pays for.`, ['size'], {
      signed_size: bytes.length,
      plan_size: unsigned.size,
    });
  }
  return { txid, hex: Buffer.from(bytes).toString('hex') };
}

function invalid(message: string, cause?: unknown): never {
  throw chainErrors.validation_error({ message, ...(cause === undefined ? {} : { cause }) });
}

/**
 * The plan's transaction, after checking the plan's shape and that its transaction is what its
 * summary says: the inputs, outputs and fee rebuilt from the summary (with the plan's TTL) must be
 * its body byte for byte, and its id the summary's `txid`.
 */
function readPlan(unsigned: UnsignedTransaction, network: NetworkKind): CSL.FixedTransaction {
  if (typeof unsigned !== 'object' || unsigned === null) invalid('verifySigned takes the plan it was built from.');
  if (unsigned.format !== 'cardano-tx') invalid(`verifySigned takes a Cardano plan (format cardano-tx), not ${String(unsigned.format)}.`);
  if (!Array.isArray(unsigned.inputs) || unsigned.inputs.length === 0 || !Array.isArray(unsigned.outputs))
    invalid('A Cardano plan lists its inputs and outputs.');
  unsigned.inputs.forEach(assertSpendInputShape);
  for (const input of unsigned.inputs) assertInputDerives(input, network);
  if (typeof unsigned.feeUnits !== 'bigint' || !Number.isSafeInteger(unsigned.size) || unsigned.size <= 0)
    invalid('A Cardano plan states its fee (bigint) and signed size (bytes).');
  let plan: CSL.FixedTransaction;
  try {
    plan = CSL.FixedTransaction.from_hex(String(unsigned.data));
  } catch (cause) {
    return invalid('The plan does not hold a Cardano transaction.', cause);
  }
  const body = plan.body();
  const stated = summaryBody(unsigned, body);
  const differences =
    stated === undefined ? ['outputs'] : Buffer.from(stated.to_bytes()).equals(Buffer.from(plan.raw_body())) ? [] : bodyDifferences(stated, body);
  if (plan.transaction_hash().to_hex() !== unsigned.txid) differences.push('txid');
  if (differences.length > 0) {
    throw treasuryChainErrors.treasury_signed_mismatch({
      message: `The plan's transaction is not what its summary states (${differences.join(', ')} differ). Nothing was broadcast.`,
      details: { differences, plan_txid: unsigned.txid },
    });
  }
  return plan;
}

/** The body the summary describes, with `body`'s TTL; undefined when an output of the summary cannot be encoded. */
function summaryBody(unsigned: UnsignedTransaction, body: CSL.TransactionBody): CSL.TransactionBody | undefined {
  try {
    const inputs = CSL.TransactionInputs.new();
    for (const input of unsigned.inputs) inputs.add(CSL.TransactionInput.new(CSL.TransactionHash.from_hex(input.txHash), input.outputIndex));
    const outputs = CSL.TransactionOutputs.new();
    for (const output of unsigned.outputs) {
      outputs.add(CSL.TransactionOutput.new(CSL.Address.from_bech32(output.address), CSL.Value.new(CSL.BigNum.from_str(output.amountUnits.toString()))));
    }
    const stated = CSL.TransactionBody.new_tx_body(inputs, outputs, CSL.BigNum.from_str(unsigned.feeUnits.toString()));
    const ttl = body.ttl_bignum();
    if (ttl !== undefined) stated.set_ttl(ttl);
    return stated;
  } catch {
    return undefined;
  }
}

/** What of a signed transaction the plan does not have. */
function extraContent(tx: CSL.FixedTransaction): string[] {
  const extra: string[] = [];
  const set = tx.witness_set();
  if (tx.raw_auxiliary_data() !== undefined) extra.push('auxiliary data');
  if (!tx.is_valid()) extra.push('is_valid false');
  // Present even as an empty list: the plan has none, and an empty list still adds bytes the fee did not pay for.
  if (set.bootstraps() !== undefined) extra.push('bootstrap witnesses');
  if (set.native_scripts() !== undefined) extra.push('native scripts');
  if (set.plutus_scripts() !== undefined) extra.push('plutus scripts');
  if (set.plutus_data() !== undefined) extra.push('plutus data');
  if (set.redeemers() !== undefined) extra.push('redeemers');
  return extra;
}

/** Names the parts of two transaction bodies that differ; `encoding` when only their bytes do. */
function bodyDifferences(plan: CSL.TransactionBody, signed: CSL.TransactionBody): string[] {
  const inputs = (body: CSL.TransactionBody) => body.inputs().to_json();
  const outputs = (body: CSL.TransactionBody) => body.outputs().to_json();
  const differences: string[] = [];
  if (inputs(plan) !== inputs(signed)) differences.push('inputs');
  if (outputs(plan) !== outputs(signed)) differences.push('outputs');
  if (plan.fee().to_str() !== signed.fee().to_str()) differences.push('fee');
  if (plan.ttl_bignum()?.to_str() !== signed.ttl_bignum()?.to_str()) differences.push('ttl');
  if (differences.length === 0) differences.push(plan.to_json() === signed.to_json() ? 'encoding' : 'other body fields');
  return differences;
}
