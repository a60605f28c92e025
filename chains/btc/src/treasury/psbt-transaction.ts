import * as bitcoin from 'bitcoinjs-lib';
import { compactSize } from '../compact-size.js';

/** The transaction a PSBT carries, without signatures: its id is the id the signed transaction will have. */
export function unsignedTransactionOf(psbt: bitcoin.Psbt): bitcoin.Transaction {
  const tx = new bitcoin.Transaction();
  tx.version = psbt.version;
  tx.locktime = psbt.locktime;
  for (const input of psbt.txInputs) tx.addInput(Uint8Array.from(input.hash), input.index, input.sequence);
  for (const output of psbt.txOutputs) tx.addOutput(Uint8Array.from(output.script), output.value);
  return tx;
}

/**
 * A PSBT (v0) carrying `tx` (no scriptSigs, no witnesses) with empty input and output maps, to
 * be filled with `updateInput`/`updateOutput`. Built from its bytes because `Psbt.addInput`
 * re-checks the whole transaction at each call: 1,000 inputs took tens of seconds.
 */
export function psbtOf(tx: bitcoin.Transaction, network: bitcoin.Network): bitcoin.Psbt {
  const raw = Buffer.from(tx.toBuffer());
  const bytes = Buffer.concat([
    Buffer.from('70736274ff', 'hex'), // "psbt" 0xff
    Buffer.from([0x01, 0x00]), // key: PSBT_GLOBAL_UNSIGNED_TX
    compactSize(raw.length),
    raw,
    Buffer.from([0x00]), // end of the global map
    Buffer.alloc(tx.ins.length + tx.outs.length, 0x00), // one empty map per input and output
  ]);
  return bitcoin.Psbt.fromBuffer(bytes, { network });
}
