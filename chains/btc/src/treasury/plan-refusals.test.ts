/**
 * Plans and signed files that must be refused with a catalogued code, never a plain Error (a 500):
 * requests of the wrong shape, a remainder that would silently become the fee, stored plans whose
 * summary is not their PSBT, and signed transactions that differ from the plan or carry an
 * unacceptable signature. Keys are derived from the BIP84 test mnemonic, in the test only.
 */
import test from 'ava';
import * as bitcoin from 'bitcoinjs-lib';
import type { AccountKey, AppError, BuildRequest, SpendInput, UnsignedTransaction } from '@gw/chain-api';
import { regtestTreasury } from '../testing/regtest-treasury.js';

const { wallet, treasury, bareKey, external: EXTERNAL, spendInput: input } = regtestTreasury();
const { account, network: REGTEST } = wallet;
const CHANGE_1_3 = wallet.address(1, 3);
/** secp256k1's group order. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const one = [input(bareKey, 0, 1, 10_000n, 9)];
const code = (fn: () => unknown): string => {
  try {
    fn();
    return 'accepted';
  } catch (error) {
    return (error as AppError).code ?? `plain ${(error as Error).constructor.name}`;
  }
};
const build = (request: Partial<BuildRequest>) => () => treasury.build({ inputs: one, outputs: [{ address: EXTERNAL }], feeRate: 1n, ...request });

test('build: without an output taking the rest, the remainder must be the fee (feeUnits exactly, a rate within a P2WPKH output’s dust)', (t) => {
  const big = [{ ...one[0]!, amountUnits: 100_000_000n }];
  t.is(code(build({ inputs: big, outputs: [{ address: EXTERNAL, amountUnits: 1000n }] })), 'validation_error');
  t.is(code(build({ inputs: big, outputs: [{ address: EXTERNAL, amountUnits: 1_000_000n }], feeRate: 2n, feeUnits: 5_000n })), 'validation_error');
  // Exactly the outputs and feeUnits.
  const exact = treasury.build({ inputs: big, outputs: [{ address: EXTERNAL, amountUnits: 100_000_000n - 5_000n }], feeRate: 2n, feeUnits: 5_000n });
  t.is(exact.feeUnits, 5_000n);
  t.is(code(build({ inputs: big, outputs: [{ address: EXTERNAL, amountUnits: 100_000_000n - 5_001n }], feeRate: 2n, feeUnits: 5_000n })), 'validation_error');
  // A rate: 110 vbytes at 1 sat/vB; an excess below 294 (P2WPKH dust at 3 sat/vB) goes to the fee, 294 does not.
  const withRate = (amountUnits: bigint) => () => treasury.build({ inputs: one, outputs: [{ address: EXTERNAL, amountUnits }], feeRate: 1n });
  t.is((withRate(10_000n - 110n)() as UnsignedTransaction).feeUnits, 110n);
  t.is((withRate(10_000n - 110n - 293n)() as UnsignedTransaction).feeUnits, 403n);
  t.is(code(withRate(10_000n - 110n - 294n)), 'validation_error');
  t.is(code(withRate(10_000n - 109n)), 'treasury_insufficient_value');
});

test('build: a request of the wrong shape is validation_error, never a plain Error', (t) => {
  const ownAddress = CHANGE_1_3;
  const cases: Record<string, Partial<BuildRequest>> = {
    inputNull: { inputs: [null as unknown as SpendInput] },
    outputNull: { outputs: [null as unknown as { address: string }] },
    inputsNotArray: { inputs: 'x' as unknown as SpendInput[] },
    keyUndefined: { inputs: [{ ...one[0]!, key: undefined as unknown as AccountKey }] },
    badCanonical: { inputs: [{ ...one[0]!, key: { ...bareKey, canonical: 'nonsense' } }] },
    keyOtherChain: { inputs: [{ ...one[0]!, key: { ...bareKey, chain: 'ltc' } }] },
    ownIndexHardened: { outputs: [{ address: ownAddress, own: { branch: 1, index: 2 ** 31 } }] },
    ownIndexNegative: { outputs: [{ address: ownAddress, own: { branch: 1, index: -1 } }] },
    ownIndexFraction: { outputs: [{ address: ownAddress, own: { branch: 1, index: 1.5 } }] },
    ownBranch7: { outputs: [{ address: ownAddress, own: { branch: 7 as 0, index: 3 } }] },
    inputAboveMaxMoney: { inputs: [{ ...one[0]!, amountUnits: 21_000_000n * 100_000_000n + 1n }] },
    outputAboveMaxMoney: { outputs: [{ address: EXTERNAL, amountUnits: 2n ** 70n }] },
    amountNumber: { inputs: [{ ...one[0]!, amountUnits: 10_000 as unknown as bigint }] },
    originBadFingerprint: { inputs: [{ ...one[0]!, origin: { fingerprint: 'zz', path: "m/84'/1'/0'" } }] },
    originGarbagePath: { inputs: [{ ...one[0]!, origin: { fingerprint: 'abcdef01', path: 'x/y' } }] },
    originOtherAccount: { inputs: [{ ...one[0]!, origin: { fingerprint: 'abcdef01', path: "m/84'/0'/7'" } }] },
    originUnhardened: { inputs: [{ ...one[0]!, origin: { fingerprint: 'abcdef01', path: 'm/84/1/0' } }] },
  };
  for (const [name, request] of Object.entries(cases)) t.is(code(build(request)), 'validation_error', name);
  // Within range, the own output still builds.
  t.is(code(build({ outputs: [{ address: ownAddress, own: { branch: 1, index: 3 } }] })), 'accepted');
});

test('build: a key origin in h notation is normalised, never read as unhardened steps', (t) => {
  for (const origin of [
    { fingerprint: 'abcdef01', path: 'm/84h/1h/0h' },
    { fingerprint: 'ABCDEF01', path: "m/84'/1'/0'" },
  ]) {
    const plan = treasury.build({ inputs: [{ ...one[0]!, origin }], outputs: [{ address: EXTERNAL }], feeRate: 1n });
    const [derivation] = bitcoin.Psbt.fromBase64(plan.data).data.inputs[0]!.bip32Derivation!;
    t.is(derivation!.path, "m/84'/1'/0'/0/1");
    t.is(Buffer.from(derivation!.masterFingerprint).toString('hex'), 'abcdef01');
  }
});

// A plan over two inputs, and its transaction signed by the mnemonic's keys.
const planInputs = [input(bareKey, 0, 5, 150_000n, 1), input(bareKey, 1, 2, 70_000n, 2)];
const plan = treasury.build({ inputs: planInputs, outputs: [{ address: EXTERNAL, amountUnits: 100_000n }, { address: EXTERNAL }], feeRate: 3n });
const keyOf = (i: number) => (i === 0 ? account.derive(0).derive(5) : account.derive(1).derive(2));
function signedTx(): bitcoin.Transaction {
  const psbt = bitcoin.Psbt.fromBase64(plan.data, { network: REGTEST });
  psbt.signInput(0, keyOf(0)).signInput(1, keyOf(1));
  return psbt.finalizeAllInputs().extractTransaction();
}
const verify =
  (signed: string, unsigned: UnsignedTransaction = plan) =>
  () =>
    treasury.verifySigned(unsigned, signed);
const encode = (r: Uint8Array, s: Uint8Array, hashType: number) => bitcoin.script.signature.encode(Buffer.concat([r, s]), hashType);
const bytes32 = (n: bigint) => Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
/** The signed transaction with `change` applied. */
const tampered = (change: (tx: bitcoin.Transaction) => void) => {
  const tx = signedTx();
  change(tx);
  return tx.toHex();
};

test('verifySigned: signatures it must not accept are treasury_signed_incomplete (high-S, r ≥ n, sighash 0x81, extra witness items)', (t) => {
  t.is(treasury.verifySigned(plan, signedTx().toHex()).txid, plan.txid);
  const signatureOf = (tx: bitcoin.Transaction) => bitcoin.script.signature.decode(tx.ins[0]!.witness[0]!).signature;
  const highS = tampered((tx) => {
    const sig = signatureOf(tx);
    tx.ins[0]!.witness[0] = encode(sig.subarray(0, 32), bytes32(N - BigInt('0x' + Buffer.from(sig.subarray(32)).toString('hex'))), 1);
  });
  t.is(code(verify(highS)), 'treasury_signed_incomplete');
  const rAboveN = tampered((tx) => {
    tx.ins[0]!.witness[0] = encode(Buffer.alloc(32, 0xff), signatureOf(tx).subarray(32), 1);
  });
  t.is(code(verify(rAboveN)), 'treasury_signed_incomplete');
  const anyoneCanPay = bitcoin.Psbt.fromBase64(plan.data, { network: REGTEST });
  anyoneCanPay.updateInput(0, { sighashType: 0x81 }).updateInput(1, { sighashType: 0x81 });
  anyoneCanPay.signInput(0, keyOf(0), [0x81]).signInput(1, keyOf(1), [0x81]);
  t.is(code(verify(anyoneCanPay.toBase64())), 'treasury_signed_incomplete');
  t.is(code(verify(tampered((tx) => tx.ins[0]!.witness.push(Buffer.from('00', 'hex'))))), 'treasury_signed_incomplete');
});

test('verifySigned: a transaction that is not the plan is treasury_signed_mismatch (extra input or output, version, lock time, scriptSig, txid)', (t) => {
  const mismatch = (signed: string, unsigned?: UnsignedTransaction) => {
    try {
      treasury.verifySigned(unsigned ?? plan, signed);
      return 'accepted';
    } catch (error) {
      return `${(error as AppError).code} ${String((error as AppError).details?.['what'])}`;
    }
  };
  const script = bitcoin.address.toOutputScript(EXTERNAL, REGTEST);
  t.is(mismatch(tampered((tx) => tx.addOutput(script, 1000n))), 'treasury_signed_mismatch output_count');
  t.is(
    mismatch(
      tampered((tx) => {
        tx.addInput(Buffer.alloc(32, 3), 0, 0xfffffffd);
        tx.setWitness(2, tx.ins[0]!.witness);
      }),
    ),
    'treasury_signed_mismatch input_count',
  );
  t.is(mismatch(tampered((tx) => (tx.version = 1))), 'treasury_signed_mismatch version');
  t.is(mismatch(tampered((tx) => (tx.locktime = 1))), 'treasury_signed_mismatch locktime');
  t.is(mismatch(tampered((tx) => tx.setInputScript(1, Buffer.from('51', 'hex')))), 'treasury_signed_mismatch input.script_sig');
  // A plan whose recorded txid is not its transaction's.
  t.is(mismatch(signedTx().toHex(), { ...plan, txid: 'b'.repeat(64) }), 'treasury_signed_mismatch txid');
});

test('verifySigned: a plan of the wrong shape or whose summary is not its PSBT is validation_error, before the signed file is read', (t) => {
  const good = signedTx().toHex();
  const cases: Record<string, UnsignedTransaction> = {
    cardanoPlan: { ...plan, format: 'cardano-tx' },
    garbageData: { ...plan, data: 'cHNidP8BAAAA' },
    notBase64: { ...plan, data: '%%%' },
    fewerInputs: { ...plan, inputs: plan.inputs.slice(1) },
    badCanonical: { ...plan, inputs: plan.inputs.map((i) => ({ ...i, key: { ...i.key, canonical: 'xpubnonsense' } })) },
    inputAmount: { ...plan, inputs: plan.inputs.map((i, n) => (n === 0 ? { ...i, amountUnits: i.amountUnits + 1n } : i)) },
    inputOutpoint: { ...plan, inputs: plan.inputs.map((i, n) => (n === 0 ? { ...i, outputIndex: i.outputIndex + 1 } : i)) },
    outputAmount: { ...plan, outputs: plan.outputs.map((o, n) => (n === 0 ? { ...o, amountUnits: o.amountUnits - 1n } : o)) },
    outputAddress: { ...plan, outputs: plan.outputs.map((o, n) => (n === 0 ? { ...o, address: CHANGE_1_3 } : o)) },
    fewerOutputs: { ...plan, outputs: plan.outputs.slice(1) },
    fee: { ...plan, feeUnits: plan.feeUnits + 1n },
    badOrigin: { ...plan, inputs: plan.inputs.map((i) => ({ ...i, origin: { fingerprint: 'abcdef01', path: 'm/84/1/0' } })) },
  };
  for (const [name, unsigned] of Object.entries(cases)) t.is(code(verify(good, unsigned)), 'validation_error', name);
  t.is(code(verify('not a signed file', cases.fee)), 'validation_error');
});
