import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { treasuryChainErrors, type SpendInput, type UnsignedTransaction, type VerifiedTransaction } from '@gw/chain-api';
import { paymentKeyPath } from '../derive.js';
import { readSignedTransaction } from './read-signed.js';
import { inputKeyHash } from './spend-keys.js';

/**
 * Checks a signed Cardano transaction against its plan (see `ChainTreasury.verifySigned`):
 * 1. its body is byte for byte the plan's (so the same id): else `treasury_signed_mismatch`, naming
 *    what differs (inputs, outputs, fee, ttl, or other body fields);
 * 2. it carries nothing the plan did not (auxiliary data, scripts, redeemers, bootstrap witnesses,
 *    witnesses of keys the plan does not name, which also make it larger than the fee paid for):
 *    `treasury_signed_mismatch`;
 * 3. for every input, a vkey witness by the payment key the gateway derives from the account key
 *    at the input's path, whose Ed25519 signature verifies over the body hash (CSL
 *    `PublicKey.verify`): else `treasury_signed_incomplete`.
 * Unreadable input: `treasury_signed_unreadable`. Pure.
 */
export function verifyAdaSigned(unsigned: UnsignedTransaction, signed: string): VerifiedTransaction {
  if (unsigned.format !== 'cardano-tx') throw new Error(`not a Cardano plan: format ${unsigned.format}`);
  const plan = CSL.FixedTransaction.from_hex(unsigned.data);
  const planBody = plan.raw_body();
  const tx = readSignedTransaction(signed, planBody);
  const txid = tx.transaction_hash().to_hex();

  if (!Buffer.from(tx.raw_body()).equals(Buffer.from(planBody))) {
    const differences = bodyDifferences(plan.body(), tx.body());
    throw treasuryChainErrors.treasury_signed_mismatch({
      message: `The signed transaction is not the plan (${differences.join(', ')} differ). Nothing was broadcast.`,
      details: { differences, plan_txid: unsigned.txid, signed_txid: txid },
    });
  }
  const extra = extraContent(tx);
  if (extra.length > 0) {
    throw treasuryChainErrors.treasury_signed_mismatch({
      message: `The signed transaction carries what the plan does not: ${extra.join(', ')}. Nothing was broadcast.`,
      details: { differences: extra, plan_txid: unsigned.txid, signed_txid: txid },
    });
  }

  const hashBytes = tx.transaction_hash().to_bytes();
  const witnesses = tx.witness_set().vkeys();
  const valid = new Set<string>();
  const present = new Set<string>();
  for (let i = 0; i < (witnesses?.len() ?? 0); i++) {
    const witness = witnesses!.get(i);
    const key = witness.vkey().public_key();
    const hash = key.hash().to_hex();
    present.add(hash);
    if (key.verify(hashBytes, witness.signature())) valid.add(hash);
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
          reason: present.has(hash) ? 'invalid_signature' : 'no_witness',
        })),
      },
    });
  }
  const strangers = [...present].filter((hash) => !required.has(hash));
  if (strangers.length > 0) {
    throw treasuryChainErrors.treasury_signed_mismatch({
      message: `The signed transaction carries ${strangers.length} witness(es) of keys the plan does not name. Nothing was broadcast.`,
      details: { differences: ['witnesses'], unknown_key_hashes: strangers, plan_txid: unsigned.txid, signed_txid: txid },
    });
  }
  return { txid, hex: tx.to_hex() };
}

/** What of a signed transaction the plan does not have. */
function extraContent(tx: CSL.FixedTransaction): string[] {
  const extra: string[] = [];
  const set = tx.witness_set();
  if (tx.raw_auxiliary_data() !== undefined) extra.push('auxiliary data');
  if (!tx.is_valid()) extra.push('is_valid false');
  if ((set.bootstraps()?.len() ?? 0) > 0) extra.push('bootstrap witnesses');
  if ((set.native_scripts()?.len() ?? 0) > 0) extra.push('native scripts');
  if ((set.plutus_scripts()?.len() ?? 0) > 0) extra.push('plutus scripts');
  if ((set.plutus_data()?.len() ?? 0) > 0) extra.push('plutus data');
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
