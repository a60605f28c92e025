import test from 'ava';
import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as ecc from '@bitcoinerlab/secp256k1';
import * as bitcoin from 'bitcoinjs-lib';
import type { AccountKey, AppError, BuildRequest, SpendInput } from '@gw/chain-api';
import { regtestTreasury } from '../testing/regtest-treasury.js';

// The treasury of btc/regtest over the BIP84 test mnemonic's testnet account. Signing happens here,
// in the test only, with keys derived from the mnemonic: the gateway never holds one.
const bip32 = BIP32Factory(ecc);
const { wallet, adapter, treasury, bareKey, external: EXTERNAL, spendInput: input } = regtestTreasury();
const { root, account, network: REGTEST } = wallet;
const TPUB = wallet.accountKey;
const FINGERPRINT = '73c5da0a';
const originKey = adapter.parseAccountKey(`[${FINGERPRINT}/84'/1'/0']${TPUB}`, 'testnet');

const inputs = (key: AccountKey) => [input(key, 0, 5, 150_000n, 1), input(key, 1, 2, 70_000n, 2), input(key, 0, 0, 30_000n, 3)];
/** Receive address 0 of the account: not the change address 1/3 an output may claim to be. */
const RECEIVE_0 = adapter.deriveAddress(bareKey, 0).address;
const CHANGE_1_3 = wallet.address(1, 3);

/** Signs every input with the key the mnemonic derives at its branch/index, as a wallet would. */
function sign(data: string, signer: (branch: number, index: number) => BIP32Interface = (b, i) => account.derive(b).derive(i), sighash?: number): bitcoin.Psbt {
  const psbt = bitcoin.Psbt.fromBase64(data, { network: REGTEST });
  psbt.data.inputs.forEach((input, i) => {
    const path = input.bip32Derivation![0]!.path.split('/');
    const [branch, index] = [Number(path.at(-2)), Number(path.at(-1))];
    if (sighash !== undefined) psbt.updateInput(i, { sighashType: sighash });
    psbt.signInput(i, signer(branch, index), sighash === undefined ? undefined : [sighash]);
  });
  return psbt;
}

function code(t: { throws: (fn: () => unknown) => unknown }, fn: () => unknown): string {
  return (t.throws(fn) as AppError).code;
}

test('build: a PSBT v0 with witnessUtxo, BIP32 derivation from the key origin, RBF sequences, outputs in order, the rest to the output without amount', (t) => {
  const request: BuildRequest = {
    inputs: inputs(originKey),
    outputs: [
      { address: EXTERNAL, amountUnits: 100_000n },
      { address: CHANGE_1_3, own: { branch: 1, index: 3 } },
    ],
    feeRate: 5n,
  };
  const plan = treasury.build(request);
  t.is(plan.format, 'psbt');
  const psbt = bitcoin.Psbt.fromBase64(plan.data, { network: REGTEST });
  t.is(psbt.version, 2);
  t.is(psbt.locktime, 0);
  t.deepEqual(
    psbt.txInputs.map((i) => [Buffer.from(i.hash).reverse().toString('hex'), i.index, i.sequence]),
    request.inputs.map((i) => [i.txHash, i.outputIndex, 0xfffffffd]),
  );
  psbt.data.inputs.forEach((data, i) => {
    const spend = request.inputs[i]!;
    t.is(data.witnessUtxo!.value, spend.amountUnits);
    t.deepEqual(Buffer.from(data.witnessUtxo!.script), Buffer.from(bitcoin.address.toOutputScript(spend.address, REGTEST)));
    const [derivation] = data.bip32Derivation!;
    t.is(Buffer.from(derivation!.masterFingerprint).toString('hex'), FINGERPRINT);
    t.is(derivation!.path, `m/84'/1'/0'/${spend.branch}/${spend.index}`);
    // What a signer holding the seed checks: the key at that full path is the one named.
    t.deepEqual(Buffer.from(derivation!.pubkey), Buffer.from(root.derivePath(derivation!.path).publicKey));
  });
  // 3 P2WPKH inputs, 2 P2WPKH outputs: 10.5 + 3 × 68 + 2 × 31 vbytes, rounded up.
  t.is(plan.size, 277);
  t.is(plan.feeUnits, 5n * 277n);
  t.deepEqual(
    plan.outputs.map((o) => o.amountUnits),
    [100_000n, 250_000n - 100_000n - 1385n],
  );
  t.deepEqual(
    psbt.txOutputs.map((o) => [o.address, o.value]),
    plan.outputs.map((o) => [o.address, o.amountUnits]),
  );
  // The change output carries its derivation, so wallets show it as their own.
  t.is(psbt.data.outputs[1]!.bip32Derivation![0]!.path, "m/84'/1'/0'/1/3");
  t.is(psbt.data.outputs[0]!.bip32Derivation, undefined);

  // Signed, the transaction has the id the plan announced and at most the estimated size.
  const signed = sign(plan.data).finalizeAllInputs().extractTransaction();
  t.is(signed.getId(), plan.txid);
  t.true(signed.virtualSize() <= plan.size && signed.virtualSize() >= plan.size - 3, `${signed.virtualSize()} vs ${plan.size}`);
});

test('build: without a key origin the account key is its own root: its fingerprint and m/branch/index', (t) => {
  const plan = treasury.build({ inputs: inputs(bareKey), outputs: [{ address: EXTERNAL }], feeRate: 2n });
  const psbt = bitcoin.Psbt.fromBase64(plan.data);
  psbt.data.inputs.forEach((data, i) => {
    const [derivation] = data.bip32Derivation!;
    t.deepEqual(Buffer.from(derivation!.masterFingerprint), Buffer.from(account.fingerprint));
    t.is(derivation!.path, `m/${inputs(bareKey)[i]!.branch}/${inputs(bareKey)[i]!.index}`);
    // A signer holding the account xprv matches the fingerprint and derives the path below it.
    t.deepEqual(Buffer.from(derivation!.pubkey), Buffer.from(account.derivePath(derivation!.path.slice(2)).publicKey));
  });
  t.is(treasury.verifySigned(plan, sign(plan.data).toBase64()).txid, plan.txid);
  t.is(plan.outputs[0]!.amountUnits, 250_000n - plan.feeUnits);
});

test('build: every standard destination type of the network, each with its size; feeUnits replaces the rate when not below it', (t) => {
  const hash20 = Buffer.alloc(20, 1);
  const hash32 = Buffer.alloc(32, 2);
  const destinations = [
    bitcoin.payments.p2pkh({ hash: hash20, network: REGTEST }).address!,
    bitcoin.payments.p2sh({ hash: hash20, network: REGTEST }).address!,
    bitcoin.payments.p2wsh({ hash: hash32, network: REGTEST }).address!,
    bitcoin.payments.p2tr({ pubkey: Buffer.from(account.publicKey.subarray(1)), network: REGTEST }).address!,
  ];
  const plan = treasury.build({
    inputs: inputs(bareKey),
    outputs: [...destinations.map((address) => ({ address, amountUnits: 10_000n })), { address: EXTERNAL }],
    feeRate: 1n,
  });
  // 10.5 + 3 × 68 + 34 + 32 + 43 + 43 + 31 (the P2WPKH output taking the rest)
  t.is(plan.size, 398);
  t.is(plan.feeUnits, 398n);
  t.is(plan.outputs[4]!.amountUnits, 250_000n - 40_000n - 398n);
  const signed = sign(plan.data).finalizeAllInputs().extractTransaction(true);
  t.true(signed.virtualSize() <= plan.size);

  const bumped = treasury.build({ inputs: inputs(bareKey), outputs: [{ address: EXTERNAL }], feeRate: 2n, feeUnits: 5_000n });
  t.is(bumped.feeUnits, 5_000n);
  t.is(
    code(t, () => treasury.build({ inputs: inputs(bareKey), outputs: [{ address: EXTERNAL }], feeRate: 20n, feeUnits: 100n })),
    'validation_error',
  );
});

test('build refuses: dust by script type, inputs that do not cover, a destination of another network, an input that is not its key’s address', (t) => {
  const one = [input(bareKey, 0, 1, 10_000n, 9)];
  // P2WPKH's dust threshold at 3 sat/vB is 294: 294 passes, 293 does not.
  t.notThrows(() => treasury.build({ inputs: one, outputs: [{ address: EXTERNAL, amountUnits: 294n }, { address: CHANGE_1_3 }], feeRate: 1n }));
  t.is(
    code(t, () => treasury.build({ inputs: one, outputs: [{ address: EXTERNAL, amountUnits: 293n }], feeRate: 1n })),
    'treasury_dust_output',
  );
  const p2pkh = bitcoin.payments.p2pkh({ hash: Buffer.alloc(20, 1), network: REGTEST }).address!;
  t.is(
    code(t, () => treasury.build({ inputs: one, outputs: [{ address: p2pkh, amountUnits: 545n }], feeRate: 1n })),
    'treasury_dust_output',
  );
  t.notThrows(() => treasury.build({ inputs: one, outputs: [{ address: p2pkh, amountUnits: 546n }, { address: CHANGE_1_3 }], feeRate: 1n }));
  // The rest below dust after the fee.
  t.is(
    code(t, () => treasury.build({ inputs: one, outputs: [{ address: EXTERNAL, amountUnits: 9_700n }, { address: CHANGE_1_3 }], feeRate: 1n })),
    'treasury_dust_output',
  );
  t.is(
    code(t, () => treasury.build({ inputs: one, outputs: [{ address: EXTERNAL, amountUnits: 9_950n }], feeRate: 1n })),
    'treasury_insufficient_value',
  );
  t.is(
    code(t, () => treasury.build({ inputs: one, outputs: [{ address: EXTERNAL }], feeRate: 200n })),
    'treasury_insufficient_value',
  );
  for (const address of [
    'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
    'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl',
    'rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg',
    'nonsense',
  ]) {
    t.is(
      code(t, () => treasury.build({ inputs: one, outputs: [{ address }], feeRate: 1n })),
      'treasury_wrong_network',
      address,
    );
  }
  t.is(
    code(t, () => treasury.build({ inputs: [{ ...one[0]!, index: 2 }], outputs: [{ address: EXTERNAL }], feeRate: 1n })),
    'validation_error',
  );
  t.is(
    code(t, () => treasury.build({ inputs: [one[0]!, one[0]!], outputs: [{ address: EXTERNAL }], feeRate: 1n })),
    'validation_error',
  );
  t.is(
    code(t, () => treasury.build({ inputs: one, outputs: [{ address: EXTERNAL }, { address: CHANGE_1_3 }], feeRate: 1n })),
    'validation_error',
  );
  t.is(
    code(t, () => treasury.build({ inputs: one, outputs: [{ address: RECEIVE_0, own: { branch: 1, index: 3 } }], feeRate: 1n })),
    'validation_error',
  );
  t.is(treasury.inputCost(10n), 680n);
});

test('verifySigned: a signed PSBT (partial signatures or finalized, base64 or hex) or the raw transaction gives the transaction to broadcast', (t) => {
  const plan = treasury.build({
    inputs: inputs(originKey),
    outputs: [
      { address: EXTERNAL, amountUnits: 100_000n },
      { address: CHANGE_1_3, own: { branch: 1, index: 3 } },
    ],
    feeRate: 3n,
  });
  const partial = sign(plan.data);
  const expected = partial.clone().finalizeAllInputs().extractTransaction();
  for (const form of [partial.toBase64(), partial.toHex(), partial.clone().finalizeAllInputs().toBase64(), expected.toHex(), `\n${partial.toBase64()}\n`]) {
    const verified = treasury.verifySigned(plan, form);
    t.is(verified.txid, plan.txid);
    t.is(verified.hex, expected.toHex());
  }
});

test('verifySigned refuses a changed output, a higher fee, another input order, a missing or foreign signature, SIGHASH_NONE, garbage', (t) => {
  const request: BuildRequest = { inputs: inputs(bareKey), outputs: [{ address: EXTERNAL, amountUnits: 100_000n }, { address: CHANGE_1_3 }], feeRate: 3n };
  const plan = treasury.build(request);
  const mismatch = (signed: string) => t.throws(() => treasury.verifySigned(plan, signed)) as AppError;

  // The signer was given another destination, or a smaller change (a higher fee): both signed correctly.
  const otherDestination = treasury.build({ ...request, outputs: [{ address: CHANGE_1_3, amountUnits: 100_000n }, { address: CHANGE_1_3 }] });
  let error = mismatch(sign(otherDestination.data).toBase64());
  t.is(error.code, 'treasury_signed_mismatch');
  t.like(error.details, { what: 'output.script', index: 0 });
  const higherFee = treasury.build({ ...request, feeUnits: plan.feeUnits + 5_000n });
  error = mismatch(sign(higherFee.data).toBase64());
  t.is(error.code, 'treasury_signed_mismatch');
  t.like(error.details, {
    what: 'output.amount',
    index: 1,
    expected: String(plan.outputs[1]!.amountUnits),
    found: String(plan.outputs[1]!.amountUnits - 5_000n),
  });
  const reordered = treasury.build({ ...request, inputs: [...request.inputs].reverse() });
  t.like(mismatch(sign(reordered.data).toBase64()).details, { what: 'input.outpoint', index: 0 });
  const noRbf = treasury.build({ ...request, inputs: request.inputs.map((i) => ({ ...i, sequence: 0xffffffff })) });
  t.like(mismatch(sign(noRbf.data).toBase64()).details, { what: 'input.sequence', index: 0 });
  // A raw transaction with an output changed after signing.
  const tampered = sign(plan.data).finalizeAllInputs().extractTransaction();
  tampered.outs[0]!.value -= 1n;
  t.like(mismatch(tampered.toHex()).details, { what: 'output.amount', index: 0 });

  // The plan itself, unsigned; one input left unsigned.
  error = t.throws(() => treasury.verifySigned(plan, plan.data)) as AppError;
  t.is(error.code, 'treasury_signed_incomplete');
  t.like(error.details, { input: 0 });
  const partly = bitcoin.Psbt.fromBase64(plan.data);
  partly.signInput(0, account.derive(0).derive(5)).signInput(1, account.derive(1).derive(2));
  t.like(
    t.throws(() => treasury.verifySigned(plan, partly.toBase64())),
    { code: 'treasury_signed_incomplete', details: { input: 2, reason: 'has no signature' } },
  );

  // Signed by a key of another seed that a tampered PSBT names, or with SIGHASH_NONE (outputs unsigned).
  const stranger = bip32.fromSeed(Buffer.alloc(32, 9), REGTEST);
  const foreign = bitcoin.Psbt.fromBase64(plan.data);
  for (let i = 0; i < 3; i++) {
    foreign.updateInput(i, {
      partialSig: [{ pubkey: stranger.publicKey, signature: bitcoin.script.signature.encode(stranger.sign(Buffer.alloc(32, i + 1)), 1) }],
    });
  }
  t.is(
    code(t, () => treasury.verifySigned(plan, foreign.toBase64())),
    'treasury_signed_incomplete',
  );
  const forged = bitcoin.Psbt.fromBase64(plan.data);
  const own = account.derive(0).derive(5);
  forged.updateInput(0, { partialSig: [{ pubkey: own.publicKey, signature: bitcoin.script.signature.encode(own.sign(Buffer.alloc(32, 1)), 1) }] });
  t.like(
    t.throws(() => treasury.verifySigned(plan, forged.toBase64())),
    { code: 'treasury_signed_incomplete', details: { input: 0, reason: 'has a signature that does not verify' } },
  );
  t.like(
    t.throws(() => treasury.verifySigned(plan, sign(plan.data, undefined, bitcoin.Transaction.SIGHASH_NONE).toBase64())),
    {
      code: 'treasury_signed_incomplete',
      details: { input: 0 },
    },
  );

  for (const garbage of ['', 'hello', '00', 'cHNidP8BAAAA', 'zz'.repeat(40), JSON.stringify({ signed: 'x' })]) {
    t.is(
      code(t, () => treasury.verifySigned(plan, garbage)),
      'treasury_signed_unreadable',
      garbage,
    );
  }
});

/** `input` paid by a transaction of its own (output `outputIndex`), given as its previousTransaction. */
function withPrevious(spend: SpendInput, seed: number): SpendInput {
  const previous = new bitcoin.Transaction();
  previous.version = 2;
  previous.addInput(Buffer.alloc(32, seed), 0, 0xfffffffd);
  for (let i = 0; i < spend.outputIndex; i++) previous.addOutput(bitcoin.address.toOutputScript(EXTERNAL, REGTEST), 1_000n + BigInt(i));
  previous.addOutput(bitcoin.address.toOutputScript(spend.address, REGTEST), spend.amountUnits);
  return { ...spend, txHash: previous.getId(), previousTransaction: previous.toHex() };
}

test('build: each previousTransaction given is checked and carried as the input’s nonWitnessUtxo; the signed PSBT verifies', (t) => {
  const given = inputs(originKey).map((spend, i) => withPrevious(spend, i + 1));
  const plan = treasury.build({ inputs: given, outputs: [{ address: EXTERNAL }], feeRate: 2n });
  const psbt = bitcoin.Psbt.fromBase64(plan.data, { network: REGTEST });
  psbt.data.inputs.forEach((data, i) => {
    t.is(Buffer.from(data.nonWitnessUtxo!).toString('hex'), given[i]!.previousTransaction!);
    t.is(data.witnessUtxo!.value, given[i]!.amountUnits);
  });
  // Without it the input has none (the contract keeps it optional; gateway-signer refuses such a plan).
  const bare = bitcoin.Psbt.fromBase64(treasury.build({ inputs: inputs(originKey), outputs: [{ address: EXTERNAL }], feeRate: 2n }).data, { network: REGTEST });
  t.is(bare.data.inputs[0]!.nonWitnessUtxo, undefined);
  t.is(treasury.verifySigned(plan, sign(plan.data).finalizeAllInputs().toBase64()).txid, plan.txid);
});

test('build refuses a previousTransaction that is not the outpoint’s transaction, or does not pay the input’s amount to its address there', (t) => {
  const [first, ...rest] = inputs(originKey).map((spend, i) => withPrevious(spend, i + 1));
  const refused = (changed: Partial<SpendInput>): AppError =>
    t.throws(() => treasury.build({ inputs: [{ ...first!, ...changed }, ...rest], outputs: [{ address: EXTERNAL }], feeRate: 2n })) as AppError;
  const other = withPrevious(first!, 99);
  t.regex(refused({ previousTransaction: other.previousTransaction! }).message, /previousTransaction is \w+, not/);
  t.regex(refused({ previousTransaction: 'zz' }).message, /previousTransaction is not a raw transaction in hex/);
  const richer = withPrevious({ ...first!, amountUnits: first!.amountUnits + 1n }, 1);
  t.regex(
    refused({ txHash: richer.txHash, previousTransaction: richer.previousTransaction! }).message,
    /output 1 of previousTransaction does not pay 150000 to/,
  );
  const elsewhere = withPrevious({ ...first!, address: EXTERNAL }, 1);
  t.regex(refused({ txHash: elsewhere.txHash, previousTransaction: elsewhere.previousTransaction! }).message, /does not pay 150000 to bcrt1/);
  for (const error of [refused({ previousTransaction: 'zz' }), refused({ previousTransaction: other.previousTransaction! })])
    t.is(error.code, 'validation_error');
});
