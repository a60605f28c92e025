import test, { type ExecutionContext } from 'ava';
import { existsSync, lstatSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as ecc from '@bitcoinerlab/secp256k1';
import { BIP32Factory } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import bs58check from 'bs58check';
import type { PlanFile, SignedFile } from '@gw/chain-api';
import { BTC, LTC, type Bip84Chain } from './chains.js';
import {
  bip84Account,
  btcPlan,
  editPlan,
  expectRefused,
  tempFolder,
  externalAddress,
  MNEMONIC,
  OTHER_MNEMONIC,
  runSignerHere,
  runSignerProcess,
  signedPathOf,
  type BtcPlanOptions,
} from './testing.js';

const bip32Of = (xpub: string) => BIP32Factory(ecc).fromBase58(xpub, bitcoin.networks.regtest);
const { dir, path: numbered, file } = tempFolder('gateway-signer-psbt-');
const planFile = (plan: PlanFile): string => file('plan.json', JSON.stringify(plan, null, 2));

/** Two receive outputs to an external address and change: a sweep as the gateway plans it. */
function sweep(chain: Bip84Chain, network: string, extra: Partial<BtcPlanOptions> = {}) {
  return btcPlan({
    chain,
    network,
    inputs: [
      { index: 0, value: 100_000n },
      { index: 5, value: 250_000n },
    ],
    outputs: [
      { external: externalAddress(chain.networks[network]!.params), value: 300_000n },
      { change: 0, value: 48_000n },
    ],
    fee: 2_000n,
    ...extra,
  });
}

/**
 * Checks a signed file independently of the signer: the finalized PSBT extracts to the plan's
 * transaction (same id, inputs, outputs), and every input's witness is a SIGHASH_ALL signature,
 * valid under BIP 143 for the input's value, by the key whose hash the spent script pays.
 */
function verifySigned(t: ExecutionContext, signedFile: SignedFile, plan: PlanFile, params: bitcoin.Network): void {
  t.is(signedFile.format, 'gateway-treasury-signed');
  t.is(signedFile.plan_id, plan.plan_id);
  t.is(signedFile.chain, plan.chain);
  t.is(signedFile.network, plan.network);
  const psbt = bitcoin.Psbt.fromBase64(signedFile.signed, { network: params });
  const tx = psbt.extractTransaction(true);
  t.is(tx.getId(), plan.unsigned.txid);
  t.deepEqual(
    tx.outs.map((out) => [bitcoin.address.fromOutputScript(out.script, params), String(out.value)]),
    plan.outputs.map((out) => [out.address, out.amount_units]),
  );
  tx.ins.forEach((input, i) => {
    t.is(Buffer.from(input.hash).reverse().toString('hex'), plan.inputs[i]!.tx_hash);
    t.is(input.sequence, 0xfffffffd);
    const [encoded, pubkey] = input.witness as [Uint8Array, Uint8Array];
    const { signature, hashType } = bitcoin.script.signature.decode(encoded);
    t.is(hashType, bitcoin.Transaction.SIGHASH_ALL);
    t.deepEqual(Buffer.from(bitcoin.crypto.hash160(pubkey)), Buffer.from(bitcoin.address.toOutputScript(plan.inputs[i]!.address, params).subarray(2)));
    const scriptCode = bitcoin.payments.p2pkh({ pubkey }).output!;
    const value = BigInt(plan.inputs[i]!.amount_units);
    t.true(ecc.verify(tx.hashForWitnessV0(i, scriptCode, value, hashType), pubkey, signature), `input #${i} signature`);
    // The check can fail: the same signature does not sign another value.
    t.false(ecc.verify(tx.hashForWitnessV0(i, scriptCode, value + 1n, hashType), pubkey, signature));
  });
}

for (const [chain, network] of [
  [BTC, 'regtest'],
  [LTC, 'regtest'],
] as const) {
  test(`${chain.name} ${network}: the command signs a sweep with the mnemonic on standard input, after showing inputs, outputs and fee`, async (t) => {
    const { plan } = sweep(chain, network);
    const path = planFile(plan);
    const run = await runSignerProcess(['sign', path, '--key-stdin', '--yes'], { stdin: `${MNEMONIC}\n` });
    t.is(run.code, 0, run.stderr);
    const signed = JSON.parse(readFileSync(signedPathOf(path), 'utf8')) as SignedFile;
    verifySigned(t, signed, plan, chain.networks[network]!.params);
    t.false(run.stderr.includes('abandon'), 'the secret is never printed');
    for (const input of plan.inputs) t.true(run.stderr.includes(input.address));
    t.regex(run.stderr, new RegExp(`${plan.outputs[0]!.address}  0\\.00300000 ${chain.symbol} \\(300000 ${chain.unit}\\)  P2WPKH\\n.*EXTERNAL`));
    t.regex(run.stderr, new RegExp(`${plan.outputs[1]!.address}  0\\.00048000 ${chain.symbol} \\(48000 ${chain.unit}\\)  P2WPKH\\n\\s+OWN at m/84'/1'/0'/1/0`));
    t.regex(
      run.stderr,
      new RegExp(`Fee: +0\\.00002000 ${chain.symbol} \\(2000 ${chain.unit}\\), 0\\.58% of the value; rate 9\\.56 ${chain.unit}/vB for 209 vB`),
    );
    t.false(run.stderr.includes('Note:'), 'the plan states the rate its transaction pays');
  });

  test(`${chain.name} ${network}: the account private key in a file signs a plan of a wallet registered without key origin`, async (t) => {
    const { plan } = sweep(chain, network, { withoutOrigin: true });
    const path = planFile(plan);
    const out = numbered('out.json');
    const run = await runSignerProcess(['sign', path, '--key-file', file('key', bip84Account(chain, network).xprv), '--yes', '--out', out]);
    t.is(run.code, 0, run.stderr);
    verifySigned(t, JSON.parse(readFileSync(out, 'utf8')) as SignedFile, plan, chain.networks[network]!.params);
  });
}

test('Bitcoin mainnet: a plan signed in this process with the mnemonic (xpub account, bc1 addresses), written to standard output', async (t) => {
  const { plan } = sweep(BTC, 'bitcoin');
  const run = await runSignerHere(['sign', planFile(plan), '--key-stdin', '--yes', '--out', '-'], MNEMONIC);
  t.is(run.code, 0, run.stderr);
  t.true(plan.inputs[0]!.address.startsWith('bc1q'));
  t.regex(run.stderr, /OWN at m\/84'\/0'\/0'\/1\/0/);
  verifySigned(t, JSON.parse(run.stdout) as SignedFile, plan, bitcoin.networks.bitcoin);
});

test('Litecoin mainnet: the Ltpv account key signs; the plan is in ltc1 addresses', async (t) => {
  const { plan } = sweep(LTC, 'litecoin');
  const account = bip84Account(LTC, 'litecoin');
  t.true(account.xprv.startsWith('Ltpv'));
  const run = await runSignerHere(['sign', planFile(plan), '--key-stdin', '--yes', '--out', '-'], account.xprv);
  t.is(run.code, 0, run.stderr);
  t.regex(run.stderr, /OWN at m\/84'\/2'\/0'\/1\/0/);
  verifySigned(t, JSON.parse(run.stdout) as SignedFile, plan, LTC.networks['litecoin']!.params);
});

test("an account private key of account 2 signs the plan of its wallet registered without origin (paths under the key's own account 2'), and only under that account", async (t) => {
  const { plan } = sweep(BTC, 'regtest', { withoutOrigin: true, account: 2 });
  t.is(plan.accounts[0]!.path, "m/84'/1'/2'");
  const accountKey = bip84Account(BTC, 'regtest', MNEMONIC, 2).xprv;
  const run = await runSignerHere(['sign', planFile(plan), '--key-stdin', '--yes', '--out', '-'], accountKey);
  t.is(run.code, 0, run.stderr);
  verifySigned(t, JSON.parse(run.stdout) as SignedFile, plan, bitcoin.networks.regtest);
  const byMnemonic = await runSignerHere(['sign', planFile(plan), '--key-stdin', '--yes', '--out', '-'], MNEMONIC);
  t.is(byMnemonic.code, 0, byMnemonic.stderr);
  // The same plan saying account 0': the account key is account 2', whatever the paths say (finding 10).
  const renamed = editPlan(plan, (p) => {
    p.accounts[0].path = "m/84'/1'/0'";
    for (const input of p.inputs) input.path = input.path.replace("/2'/", "/0'/");
    for (const output of p.outputs) if (output.destination.kind === 'own') output.destination.path = output.destination.path.replace("/2'/", "/0'/");
  });
  t.regex(
    await expectRefused(t, renamed, 'wrong_key', accountKey),
    /accounts\[0\]\.path m\/84'\/1'\/0' names account 0'; the account private key is account 2'/,
  );
});

test("a plan with origin at account 3 signs with the mnemonic; an account path under another coin type than the network kind's is refused", async (t) => {
  const { plan } = sweep(BTC, 'regtest', { account: 3 });
  const run = await runSignerHere(['sign', planFile(plan), '--key-stdin', '--yes', '--out', '-'], MNEMONIC);
  t.is(run.code, 0, run.stderr);
  t.regex(run.stderr, /key m\/84'\/1'\/3'\/0\/0/);
  verifySigned(t, JSON.parse(run.stdout) as SignedFile, plan, bitcoin.networks.regtest);

  // A test-network plan under the mainnet coin type: its signature would spend the seed's mainnet coins (exp5).
  const mainnetCoinType = sweep(BTC, 'testnet', { coinType: 0 }).plan;
  t.is(mainnetCoinType.accounts[0]!.path, "m/84'/0'/0'");
  t.regex(await expectRefused(t, mainnetCoinType, 'wrong_network'), /coin type 0', which is not Bitcoin's on a testnet network \(1'\)/);
  t.regex(await expectRefused(t, sweep(BTC, 'regtest', { coinType: 0 }).plan, 'wrong_network'), /coin type 0'/);
  // Litecoin's coin type (2') is no Bitcoin path at all; a Litecoin test network plan under 2' neither.
  t.regex(await expectRefused(t, sweep(BTC, 'regtest', { coinType: 2 }).plan, 'wrong_network'), /coin type 2', which is not Bitcoin's/);
  t.regex(await expectRefused(t, sweep(LTC, 'regtest', { coinType: 2 }).plan, 'wrong_network'), /coin type 2', which is not Litecoin's on a testnet network/);
  // A mainnet plan under the test coin type 1'.
  t.regex(
    await expectRefused(t, sweep(LTC, 'litecoin', { coinType: 1 }).plan, 'wrong_network'),
    /coin type 1', which is not Litecoin's on a mainnet network \(2'\)/,
  );
});

test("a high fee and a registered fingerprint that is not the seed's are pointed out, and signed", async (t) => {
  const { plan } = btcPlan({
    chain: BTC,
    network: 'regtest',
    inputs: [{ index: 2, value: 20_000n }],
    outputs: [{ external: externalAddress(bitcoin.networks.regtest), value: 18_000n }],
    fee: 2_000n,
  });
  const run = await runSignerHere(
    ['sign', planFile(editPlan(plan, (p) => (p.accounts[0].fingerprint = 'deadbeef'))), '--key-stdin', '--yes', '--out', '-'],
    MNEMONIC,
  );
  t.is(run.code, 0, run.stderr);
  t.regex(run.stderr, /Fee: +0\.00002000 BTC \(2000 sat\), 10\.00% of the value/);
  t.regex(run.stderr, /!!! The fee is more than 5% of the value moved !!!/);
  t.regex(run.stderr, /Note: the wallet was registered with master fingerprint deadbeef, this seed's is 73c5da0a/);
  verifySigned(t, JSON.parse(run.stdout) as SignedFile, plan, bitcoin.networks.regtest);
});

test('refused: the plan says an output pays more than the PSBT does (fee kept consistent)', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  const stderr = await expectRefused(
    t,
    editPlan(plan, (p) => {
      p.outputs[0].amount_units = '301000';
      p.fee_units = '1000';
    }),
    'plan_mismatch',
  );
  t.regex(stderr, /output #0: the PSBT pays 300000 sat; the plan says 301000/);
});

test('refused: the plan says an input is worth other than the PSBT spends', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  await expectRefused(
    t,
    editPlan(plan, (p) => {
      p.inputs[1].amount_units = '251000';
      p.fee_units = '3000';
    }),
    'plan_mismatch',
  );
});

test('refused: the plan shows another destination than the PSBT pays', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  await expectRefused(
    t,
    editPlan(plan, (p) => (p.outputs[0].address = externalAddress(bitcoin.networks.regtest))),
    'plan_mismatch',
  );
});

test('refused: the plan spends another outpoint than the PSBT', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  await expectRefused(
    t,
    editPlan(plan, (p) => (p.inputs[0].output_index = 0)),
    'plan_mismatch',
  );
});

test('refused: the PSBT is another transaction than the plan names', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  const other = sweep(BTC, 'regtest').plan;
  await expectRefused(
    t,
    editPlan(plan, (p) => (p.unsigned = other.unsigned)),
    'plan_mismatch',
  );
});

test('refused: inputs minus outputs are not the fee of the plan', async (t) => {
  const { plan } = sweep(BTC, 'regtest', { fee: 1_500n });
  const stderr = await expectRefused(t, plan, 'fee_mismatch');
  t.regex(stderr, /are 2000, not the plan's fee of 1500/);
});

test('refused: an input without witnessUtxo, whose value cannot be checked', async (t) => {
  const { plan } = sweep(BTC, 'regtest', { withoutWitnessUtxo: true });
  await expectRefused(t, plan, 'input_value_missing');
});

test('refused: an own output at a path where the seed derives another address', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  await expectRefused(
    t,
    editPlan(plan, (p) => (p.outputs[1].destination.path = "m/84'/1'/0'/1/1")),
    'own_output_mismatch',
  );
});

test('refused: an external address presented as own', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  const stderr = await expectRefused(
    t,
    editPlan(plan, (p) => (p.outputs[0].destination = { kind: 'own', account: 0, path: "m/84'/1'/0'/1/0" })),
    'own_output_mismatch',
  );
  t.regex(stderr, /output #0: the plan calls bcrt1\S+ own at m\/84'\/1'\/0'\/1\/0, but the secret derives bcrt1/);
});

test('refused: an input whose path does not derive its address', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  await expectRefused(
    t,
    editPlan(plan, (p) => (p.inputs[0].path = "m/84'/1'/0'/0/7")),
    'input_key_mismatch',
  );
});

test('refused: another seed, a wrong passphrase, another account key', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  t.regex(await expectRefused(t, plan, 'wrong_key', OTHER_MNEMONIC), /is not the plan's account key/);
  await expectRefused(t, plan, 'wrong_key', MNEMONIC, ['--passphrase-file', file('passphrase', 'TREZOR\n')]);
  t.regex(await expectRefused(t, plan, 'wrong_key', bip84Account(BTC, 'regtest', MNEMONIC, 1).xprv), /names account 0'; the account private key is account 1'/);
  t.regex(
    await expectRefused(t, plan, 'wrong_key', bip84Account(BTC, 'regtest', OTHER_MNEMONIC).xprv),
    /The account private key is not the plan's account key/,
  );
});

test('refused: a plan for a network the key does not belong to', async (t) => {
  const mainnet = sweep(BTC, 'bitcoin').plan;
  t.regex(
    await expectRefused(t, mainnet, 'wrong_network', bip84Account(BTC, 'regtest').xprv),
    /This is a testnet key \(tprv\); the plan is for a mainnet network/,
  );
  const regtest = sweep(BTC, 'regtest').plan;
  await expectRefused(t, regtest, 'wrong_network', bip84Account(BTC, 'bitcoin').xprv);
  // A Litecoin mainnet plan and a Litecoin testnet key (ttpv).
  await expectRefused(t, sweep(LTC, 'litecoin').plan, 'wrong_network', bip84Account(LTC, 'regtest').xprv);
  // Addresses of Bitcoin testnet (tb1) in a plan that says regtest (bcrt1).
  const testnet = sweep(BTC, 'testnet').plan;
  await expectRefused(
    t,
    editPlan(testnet, (p) => (p.network = 'regtest')),
    'wrong_network',
  );
});

test('refused: a PSBT asking for another sighash type than SIGHASH_ALL', async (t) => {
  const { plan, psbt } = sweep(BTC, 'regtest');
  psbt.updateInput(0, { sighashType: bitcoin.Transaction.SIGHASH_NONE | bitcoin.Transaction.SIGHASH_ANYONECANPAY });
  await expectRefused(
    t,
    editPlan(plan, (p) => (p.unsigned = { ...p.unsigned, data: psbt.toBase64() })),
    'unsupported',
  );
});

test('refused: unreadable plans', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  await expectRefused(
    t,
    editPlan(plan, (p) => (p.format = 'something-else')),
    'plan_unreadable',
  );
  await expectRefused(
    t,
    editPlan(plan, (p) => (p.outputs[0].amount_units = 300000)),
    'plan_unreadable',
  );
  await expectRefused(
    t,
    editPlan(plan, (p) => (p.unsigned = { ...p.unsigned, data: 'not a psbt' })),
    'plan_unreadable',
  );
});

test('the secret: standard input needs --yes; without a terminal or a source it is refused; never a flag', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  const path = planFile(plan);
  const noYes = await runSignerHere(['sign', path, '--key-stdin'], MNEMONIC);
  t.is(noYes.code, 1);
  t.regex(noYes.stderr, /refused \(not_confirmed\): Standard input carried the secret/);
  t.true(noYes.stderr.includes('Inputs ('), 'the plan was shown before asking');
  t.false(existsSync(signedPathOf(path)));

  const keyFileNoTerminal = await runSignerHere(['sign', path, '--key-file', file('key', MNEMONIC)], '');
  t.is(keyFileNoTerminal.code, 1);
  t.regex(keyFileNoTerminal.stderr, /refused \(not_confirmed\): Standard input is not a terminal/);

  const none = await runSignerHere(['sign', path, '--yes'], MNEMONIC);
  t.is(none.code, 1);
  t.regex(none.stderr, /refused \(secret_unreadable\)/);

  for (const flag of ['--key', '--mnemonic', '--xprv']) {
    const run = await runSignerHere(['sign', path, flag, MNEMONIC, '--yes'], '');
    t.is(run.code, 2, flag);
    t.regex(run.stderr, /refused \(usage\): Unknown option/);
  }
  const missingKey = await runSignerHere(['sign', path, '--key-file', join(dir, 'no-such-key'), '--yes'], '');
  t.regex(missingKey.stderr, /refused \(secret_unreadable\): Cannot read the key file .*ENOENT/);
  const missingPlan = await runSignerHere(['sign', join(dir, 'no-such-plan.json'), '--key-stdin', '--yes'], MNEMONIC);
  t.regex(missingPlan.stderr, /refused \(plan_unreadable\): Cannot read the plan file/);
  const garbage = await runSignerHere(
    ['sign', path, '--key-stdin', '--yes'],
    'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon',
  );
  t.regex(garbage.stderr, /refused \(secret_unreadable\): The words are not a valid BIP 39/);
  t.false(existsSync(signedPathOf(path)));
});

/** The plan with its PSBT replaced by `psbt` (its id recomputed): a hostile gateway's plan. */
const withPsbt = (plan: PlanFile, psbt: bitcoin.Psbt): PlanFile => {
  const tx = bitcoin.Transaction.fromBuffer((psbt.data.globalMap.unsignedTx as unknown as { toBuffer(): Uint8Array }).toBuffer());
  return editPlan(plan, (p) => (p.unsigned = { format: 'psbt', data: psbt.toBase64(), txid: tx.getId() }));
};

test('refused: a PSBT without the previous transactions, with which two sessions lying about one input each would pay a fee never shown', async (t) => {
  // Each session shows a fee of 1,000 sat; combined, the two signatures pay 90,000 (exp3).
  const { plan, psbt } = btcPlan({
    chain: BTC,
    network: 'regtest',
    inputs: [
      { index: 0, value: 100_000n },
      { index: 1, value: 100_000n },
    ],
    outputs: [{ external: externalAddress(bitcoin.networks.regtest), value: 110_000n }],
    fee: 90_000n,
    withoutPreviousTransaction: true,
  });
  const lie = editPlan(withPsbt(plan, psbt), (p) => {
    p.inputs[1].amount_units = '11000';
    p.fee_units = '1000';
  });
  const lying = bitcoin.Psbt.fromBase64(psbt.toBase64(), { network: bitcoin.networks.regtest });
  lying.data.inputs[1]!.witnessUtxo = { script: lying.data.inputs[1]!.witnessUtxo!.script, value: 11_000n };
  const stderr = await expectRefused(
    t,
    editPlan(lie, (p) => (p.unsigned.data = lying.toBase64())),
    'input_value_missing',
  );
  t.regex(stderr, /input #0: the PSBT carries no previous transaction \(nonWitnessUtxo\)\. The plan must carry the previous transaction of every input/);
  // An honest plan without them is refused too: nothing tells an honest one from a lying one.
  await expectRefused(t, withPsbt(plan, psbt), 'input_value_missing');
});

test('refused: a previous transaction that is not the one spent, or whose output is not the witnessUtxo', async (t) => {
  const { plan, psbt } = sweep(BTC, 'regtest');
  const other = sweep(BTC, 'regtest').psbt;
  const swapped = bitcoin.Psbt.fromBase64(psbt.toBase64(), { network: bitcoin.networks.regtest });
  swapped.data.inputs[0]!.nonWitnessUtxo = other.data.inputs[0]!.nonWitnessUtxo!;
  t.regex(
    await expectRefused(
      t,
      editPlan(plan, (p) => (p.unsigned.data = swapped.toBase64())),
      'plan_mismatch',
    ),
    /input #0: the PSBT's previous transaction is \w+, not/,
  );
  // The witnessUtxo and the plan say 11,000 where the previous transaction says 100,000.
  const lying = bitcoin.Psbt.fromBase64(psbt.toBase64(), { network: bitcoin.networks.regtest });
  lying.data.inputs[0]!.witnessUtxo = { script: lying.data.inputs[0]!.witnessUtxo!.script, value: 11_000n };
  const stderr = await expectRefused(
    t,
    editPlan(plan, (p) => {
      p.unsigned.data = lying.toBase64();
      p.inputs[0].amount_units = '11000';
    }),
    'plan_mismatch',
  );
  t.regex(
    stderr,
    /input #0: output 1 of the previous transaction \w+ is not the one the PSBT's witnessUtxo describes \(100000 in the transaction, 11000 in witnessUtxo\)/,
  );
});

test("refused: Litecoin with a key in Bitcoin's versions (xprv, zprv, tprv), even when it is the Litecoin account's key", async (t) => {
  const reversion = (key: string, version: number): string => {
    const payload = Buffer.from(bs58check.decode(key));
    payload.writeUInt32BE(version, 0);
    return bs58check.encode(payload);
  };
  const mainnet = sweep(LTC, 'litecoin').plan;
  const asXprv = reversion(bip84Account(LTC, 'litecoin').xprv, 0x0488ade4);
  t.true(asXprv.startsWith('xprv'));
  t.regex(await expectRefused(t, mainnet, 'wrong_key', asXprv), /This is a Bitcoin account key \(xprv\); it signs no Litecoin plan \(accepted: Ltpv\)/);
  t.regex(await expectRefused(t, mainnet, 'wrong_key', reversion(bip84Account(LTC, 'litecoin').xprv, 0x04b2430c)), /Bitcoin account key \(zprv\)/);
  t.regex(
    await expectRefused(t, sweep(LTC, 'regtest').plan, 'wrong_key', reversion(bip84Account(LTC, 'regtest').xprv, 0x04358394)),
    /Bitcoin account key \(tprv\)/,
  );
  // And Bitcoin takes no Litecoin key.
  t.regex(
    await expectRefused(t, sweep(BTC, 'bitcoin').plan, 'wrong_key', bip84Account(LTC, 'litecoin').xprv),
    /Litecoin account key \(Ltpv\); it signs no Bitcoin plan/,
  );
});

test('refused: an output to a segwit version 2 address (anyone could spend it); the script type of each output is shown', async (t) => {
  const { plan, psbt } = sweep(BTC, 'regtest');
  const v2 = bitcoin.address.toBech32(Buffer.alloc(32, 7), 2, bitcoin.networks.regtest.bech32);
  const rebuilt = new bitcoin.Psbt({ network: bitcoin.networks.regtest });
  psbt.txInputs.forEach((input, i) => rebuilt.addInput({ ...input, ...psbt.data.inputs[i]! }));
  rebuilt.addOutput({ script: bitcoin.address.toOutputScript(v2, bitcoin.networks.regtest), value: 300_000n });
  rebuilt.addOutput(psbt.txOutputs[1]!);
  const hostile = editPlan(withPsbt(plan, rebuilt), (p) => (p.outputs[0].address = v2));
  t.regex(await expectRefused(t, hostile, 'unsupported'), /output #0: bcrt1z\w+ is a segwit version 2 address, which no rule protects yet/);

  const taproot = bitcoin.payments.p2tr({
    internalPubkey: bip32Of(bip84Account(BTC, 'regtest').xpub).publicKey.subarray(1),
    network: bitcoin.networks.regtest,
  });
  const toTaproot = btcPlan({
    chain: BTC,
    network: 'regtest',
    inputs: [{ index: 0, value: 100_000n }],
    outputs: [{ external: taproot.address!, value: 99_000n }],
    fee: 1_000n,
  }).plan;
  const run = await runSignerHere(['sign', planFile(toTaproot), '--key-stdin', '--yes', '--out', '-'], MNEMONIC);
  t.is(run.code, 0, run.stderr);
  t.regex(run.stderr, new RegExp(`${taproot.address!}  0\\.00099000 BTC \\(99000 sat\\)  P2TR\\n.*EXTERNAL`));
});

test('refused: a transaction version other than 2, a lock time, a sequence with a relative lock time', async (t) => {
  const variants: [string, (psbt: bitcoin.Psbt) => void, RegExp][] = [
    ['version', (psbt) => psbt.setVersion(7), /The transaction is version 7; the gateway writes version 2/],
    ['lock time', (psbt) => psbt.setLocktime(499_999_999), /lock time 499999999: it could not be mined before then/],
    ['sequence', (psbt) => psbt.setInputSequence(1, 0x0000ffff), /input #1: sequence 0xffff sets a relative lock time/],
  ];
  for (const [, change, message] of variants) {
    const { plan, psbt } = sweep(BTC, 'regtest');
    change(psbt);
    t.regex(await expectRefused(t, withPsbt(plan, psbt), 'unsupported'), message);
  }
  // A final sequence without RBF is signed.
  const { plan, psbt } = sweep(BTC, 'regtest');
  psbt.setInputSequence(0, 0xffffffff);
  const run = await runSignerHere(['sign', planFile(withPsbt(plan, psbt)), '--key-stdin', '--yes', '--out', '-'], MNEMONIC);
  t.is(run.code, 0, run.stderr);
});

test('refused: PSBT input fields beyond witnessUtxo, nonWitnessUtxo, bip32Derivation and sighashType (taproot keys and scripts, a redeem script)', async (t) => {
  const pubkey = bitcoin.payments.p2wpkh({ address: sweep(BTC, 'regtest').plan.inputs[0]!.address, network: bitcoin.networks.regtest }).hash!;
  const fields: [string, Parameters<bitcoin.Psbt['updateInput']>[1]][] = [
    ['tapInternalKey', { tapInternalKey: Buffer.alloc(32, 2) }],
    [
      'tapLeafScript',
      {
        tapLeafScript: [
          {
            leafVersion: 0xc0,
            script: bitcoin.script.compile([Buffer.alloc(32, 3), bitcoin.opcodes.OP_CHECKSIG]),
            controlBlock: Buffer.concat([Buffer.from([0xc0]), Buffer.alloc(32, 1)]),
          },
        ],
      },
    ],
    ['redeemScript', { redeemScript: bitcoin.script.compile([bitcoin.opcodes.OP_0, pubkey]) }],
  ];
  for (const [name, data] of fields) {
    const { plan, psbt } = sweep(BTC, 'regtest');
    // Set directly: bitcoinjs itself refuses to mix taproot fields with bip32Derivation; a hostile gateway writes its own bytes.
    Object.assign(psbt.data.inputs[0]!, data);
    t.regex(
      await expectRefused(
        t,
        editPlan(plan, (p) => (p.unsigned.data = psbt.toBase64())),
        'unsupported',
      ),
      new RegExp(`input #0: the PSBT input carries ${name}`),
    );
  }
});

test('the fee rate is computed from the transaction; a plan stating another is pointed out', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  const run = await runSignerHere(['sign', planFile(editPlan(plan, (p) => (p.fee_rate = '0.5'))), '--key-stdin', '--yes', '--out', '-'], MNEMONIC);
  t.is(run.code, 0, run.stderr);
  t.regex(run.stderr, /rate 9\.56 sat\/vB for 209 vB \(computed from the transaction\)/);
  t.regex(run.stderr, /Note: the plan states a fee rate of 0\.5 sat\/vB; this transaction pays 9\.56\./);
  t.false(run.stderr.includes('rate 0.5 sat'));
});

test('own outputs on the receive branch or beyond index 10,000 are pointed out', async (t) => {
  const { plan } = btcPlan({
    chain: BTC,
    network: 'regtest',
    inputs: [{ index: 0, value: 100_000n }],
    outputs: [
      { change: 10_001, value: 49_000n },
      { change: 1, value: 50_000n },
    ],
    fee: 1_000n,
  });
  const run = await runSignerHere(['sign', planFile(plan), '--key-stdin', '--yes', '--out', '-'], MNEMONIC);
  t.is(run.code, 0, run.stderr);
  t.regex(run.stderr, /Note: output #0 pays own address index 10001, beyond 10000/);
  t.false(run.stderr.includes('output #1 pays'));

  // An own output at receive index 3 (the plan names it on branch 0).
  const receive = bitcoin.payments.p2wpkh({
    pubkey: bip32Of(bip84Account(BTC, 'regtest').xpub).derive(0).derive(3).publicKey,
    network: bitcoin.networks.regtest,
  });
  const { plan: toReceive } = btcPlan({
    chain: BTC,
    network: 'regtest',
    inputs: [{ index: 0, value: 100_000n }],
    outputs: [{ external: receive.address!, value: 99_000n }],
    fee: 1_000n,
  });
  const own = editPlan(toReceive, (p) => (p.outputs[0].destination = { kind: 'own', account: 0, path: "m/84'/1'/0'/0/3" }));
  const shown = await runSignerHere(['sign', planFile(own), '--key-stdin', '--yes', '--out', '-'], MNEMONIC);
  t.is(shown.code, 0, shown.stderr);
  t.regex(shown.stderr, /Note: output #0 pays own receive address m\/84'\/1'\/0'\/0\/3: change goes to the change branch/);
});

test('nothing from the plan reaches the terminal as a control character: a plan_id is plain, every message escaped', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  const escape = await expectRefused(
    t,
    editPlan(plan, (p) => (p.plan_id = 'p1 (sweep): FAKE\n\x1b[8m')),
    'plan_unreadable',
  );
  t.regex(escape, /plan_id must be 1 to 100 characters/);
  const address = await expectRefused(
    t,
    editPlan(plan, (p) => (p.outputs[0].address = 'bcrt1q\x1b[2J\u009b\u202eevil')),
    'wrong_network',
  );
  t.false(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/.test(address), JSON.stringify(address));
  t.true(address.includes('bcrt1q\\x1b[2J\\x9b\\u202eevil'), address);
  for (const id of ['plan-1', 'pl_2026-11-28:sweep.01']) {
    const run = await runSignerHere(['sign', planFile(editPlan(plan, (p) => (p.plan_id = id))), '--key-stdin', '--yes', '--out', '-'], MNEMONIC);
    t.is(run.code, 0, run.stderr);
  }
});

test('the signed file: never written through a link, never over an existing file without --force, mode 0600', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  const path = planFile(plan);
  const out = signedPathOf(path);
  const victim = file('victim', 'precious\n');
  // A link where the signed file goes, and one where the old code wrote its temporary file.
  symlinkSync(victim, out);
  symlinkSync(victim, `${out}.partial`);
  const run = await runSignerHere(['sign', path, '--key-stdin', '--yes'], MNEMONIC);
  t.is(run.code, 1, run.stderr);
  t.regex(run.stderr, /refused \(output_exists\): \S+ exists; give another --out, remove it, or replace it with --force/);
  t.is(readFileSync(victim, 'utf8'), 'precious\n');

  const forced = await runSignerHere(['sign', path, '--key-stdin', '--yes', '--force'], MNEMONIC);
  t.is(forced.code, 0, forced.stderr);
  t.is(readFileSync(victim, 'utf8'), 'precious\n', 'the link is replaced, its target untouched');
  t.false(lstatSync(out).isSymbolicLink());
  t.is(lstatSync(out).mode & 0o777, 0o600);
  verifySigned(t, JSON.parse(readFileSync(out, 'utf8')) as SignedFile, plan, bitcoin.networks.regtest);
  t.deepEqual(
    readdirSync(dirname(out)).filter((name) => name.includes('.partial') && !name.endsWith('.signed.json.partial')),
    [],
    'no temporary file is left',
  );

  const again = await runSignerHere(['sign', path, '--key-stdin', '--yes'], MNEMONIC);
  t.regex(again.stderr, /refused \(output_exists\)/);
});
