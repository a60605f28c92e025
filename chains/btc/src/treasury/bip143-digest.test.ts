import test from 'ava';
import * as bitcoin from 'bitcoinjs-lib';
import { sighashAllDigests } from './bip143-digest.js';

test('the cached BIP 143 SIGHASH_ALL digests are bitcoinjs-lib’s hashForWitnessV0, input by input', (t) => {
  const tx = new bitcoin.Transaction();
  tx.version = 2;
  tx.locktime = 123;
  for (let i = 0; i < 5; i++) tx.addInput(Buffer.alloc(32, i + 1), i * 7, 0xfffffffd - i);
  tx.addOutput(Buffer.concat([Buffer.from([0x00, 0x14]), Buffer.alloc(20, 9)]), 12_345n);
  tx.addOutput(Buffer.concat([Buffer.from([0x51, 0x20]), Buffer.alloc(32, 8)]), 2_100_000_000_000_000n);
  const digestOf = sighashAllDigests(tx);
  for (let i = 0; i < 5; i++) {
    const scriptCode = Buffer.concat([Buffer.from([0x76, 0xa9, 0x14]), Buffer.alloc(20, i), Buffer.from([0x88, 0xac])]);
    const value = 1_000n * BigInt(i + 1);
    t.deepEqual(digestOf(i, scriptCode, value), Buffer.from(tx.hashForWitnessV0(i, scriptCode, value, bitcoin.Transaction.SIGHASH_ALL)));
  }
});
