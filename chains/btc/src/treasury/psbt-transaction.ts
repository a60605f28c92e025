import * as bitcoin from 'bitcoinjs-lib';

/** The transaction a PSBT carries, without signatures: its id is the id the signed transaction will have. */
export function unsignedTransactionOf(psbt: bitcoin.Psbt): bitcoin.Transaction {
  const tx = new bitcoin.Transaction();
  tx.version = psbt.version;
  tx.locktime = psbt.locktime;
  for (const input of psbt.txInputs) tx.addInput(Uint8Array.from(input.hash), input.index, input.sequence);
  for (const output of psbt.txOutputs) tx.addOutput(Uint8Array.from(output.script), output.value);
  return tx;
}
