import test, { type ExecutionContext } from 'ava';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ecc from '@bitcoinerlab/secp256k1';
import * as bitcoin from 'bitcoinjs-lib';
import type { PlanFile, SignedFile } from '@gw/chain-api';
import { BTC, LTC, type Bip84Chain } from './chains.js';
import { bip84Account, btcPlan, externalAddress, MNEMONIC, OTHER_MNEMONIC, runSignerHere, runSignerProcess, type BtcPlanOptions } from './testing.js';

const dir = mkdtempSync(join(tmpdir(), 'gateway-signer-psbt-'));
let files = 0;
const file = (name: string, content: string): string => {
  const path = join(dir, `${files++}-${name}`);
  writeFileSync(path, content);
  return path;
};
const planFile = (plan: PlanFile): string => file('plan.json', JSON.stringify(plan, null, 2));
const signedPathOf = (planPath: string): string => planPath.replace(/\.json$/, '.signed.json');

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
    t.regex(run.stderr, new RegExp(`${plan.outputs[0]!.address}  0\\.00300000 ${chain.symbol} \\(300000 ${chain.unit}\\)\\n.*EXTERNAL`));
    t.regex(run.stderr, new RegExp(`${plan.outputs[1]!.address}  0\\.00048000 ${chain.symbol} \\(48000 ${chain.unit}\\)\\n\\s+OWN at m/84'/1'/0'/1/0`));
    t.regex(run.stderr, new RegExp(`Fee: +0\\.00002000 ${chain.symbol} \\(2000 ${chain.unit}\\), 0\\.58% of the value`));
  });

  test(`${chain.name} ${network}: the account private key in a file signs a plan of a wallet registered without key origin`, async (t) => {
    const { plan } = sweep(chain, network, { withoutOrigin: true });
    const path = planFile(plan);
    const out = join(dir, `${files++}-out.json`);
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

test("an account private key of account 2 signs the plan of its wallet registered without origin (paths under the default account 0')", async (t) => {
  const { plan } = sweep(BTC, 'regtest', { withoutOrigin: true, account: 2 });
  t.is(plan.accounts[0]!.path, "m/84'/1'/0'");
  const run = await runSignerHere(['sign', planFile(plan), '--key-stdin', '--yes', '--out', '-'], bip84Account(BTC, 'regtest', MNEMONIC, 2).xprv);
  t.is(run.code, 0, run.stderr);
  verifySigned(t, JSON.parse(run.stdout) as SignedFile, plan, bitcoin.networks.regtest);
  // The mnemonic derives account 0 at that path, which is not the registered key: refused, not mis-signed.
  const byMnemonic = await runSignerHere(['sign', planFile(plan), '--key-stdin', '--yes', '--out', '-'], MNEMONIC);
  t.is(byMnemonic.code, 1);
  t.regex(byMnemonic.stderr, /refused \(wrong_key\)/);
});

test('a plan with origin at account 3 signs with the mnemonic; an account path under another coin type is signed with a note', async (t) => {
  const { plan } = sweep(BTC, 'regtest', { account: 3 });
  const run = await runSignerHere(['sign', planFile(plan), '--key-stdin', '--yes', '--out', '-'], MNEMONIC);
  t.is(run.code, 0, run.stderr);
  t.regex(run.stderr, /key m\/84'\/1'\/3'\/0\/0/);
  verifySigned(t, JSON.parse(run.stdout) as SignedFile, plan, bitcoin.networks.regtest);

  const mainnetCoinType = sweep(BTC, 'regtest', { coinType: 0 }).plan;
  t.is(mainnetCoinType.accounts[0]!.path, "m/84'/0'/0'");
  const noted = await runSignerHere(['sign', planFile(mainnetCoinType), '--key-stdin', '--yes', '--out', '-'], MNEMONIC);
  t.is(noted.code, 0, noted.stderr);
  t.regex(noted.stderr, /Note: the account path m\/84'\/0'\/0' is not the usual testnet path \(coin type 1'\)/);
  verifySigned(t, JSON.parse(noted.stdout) as SignedFile, mainnetCoinType, bitcoin.networks.regtest);
  // Litecoin's coin type (2') is no Bitcoin path at all.
  t.regex(await refused(t, sweep(BTC, 'regtest', { coinType: 2 }).plan, 'wrong_network'), /coin type 2', which is not Bitcoin's/);
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
    ['sign', planFile(edit(plan, (p) => (p.accounts[0].fingerprint = 'deadbeef'))), '--key-stdin', '--yes', '--out', '-'],
    MNEMONIC,
  );
  t.is(run.code, 0, run.stderr);
  t.regex(run.stderr, /Fee: +0\.00002000 BTC \(2000 sat\), 10\.00% of the value/);
  t.regex(run.stderr, /!!! The fee is more than 5% of the value moved !!!/);
  t.regex(run.stderr, /Note: the wallet was registered with master fingerprint deadbeef, this seed's is 73c5da0a/);
  verifySigned(t, JSON.parse(run.stdout) as SignedFile, plan, bitcoin.networks.regtest);
});

/** Signs `plan` (as given: possibly inconsistent) with `secret` and expects the refusal `code`, nothing written. */
async function refused(t: ExecutionContext, plan: PlanFile, code: string, secret = MNEMONIC, extra: string[] = []): Promise<string> {
  const path = planFile(plan);
  const run = await runSignerHere(['sign', path, '--key-stdin', '--yes', ...extra], secret);
  t.is(run.code, 1, run.stderr);
  t.regex(run.stderr, new RegExp(`refused \\(${code}\\)`));
  t.false(existsSync(signedPathOf(path)), 'nothing is written');
  t.false(run.stderr.includes('Inputs ('), 'a refused plan is not shown as signable');
  return run.stderr;
}

const edit = (plan: PlanFile, change: (copy: { -readonly [K in keyof PlanFile]: any }) => void): PlanFile => {
  const copy = structuredClone(plan) as { -readonly [K in keyof PlanFile]: any };
  change(copy);
  return copy as PlanFile;
};

test('refused: the plan says an output pays more than the PSBT does (fee kept consistent)', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  const stderr = await refused(
    t,
    edit(plan, (p) => {
      p.outputs[0].amount_units = '301000';
      p.fee_units = '1000';
    }),
    'plan_mismatch',
  );
  t.regex(stderr, /output #0: the PSBT pays 300000 sat; the plan says 301000/);
});

test('refused: the plan says an input is worth other than the PSBT spends', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  await refused(
    t,
    edit(plan, (p) => {
      p.inputs[1].amount_units = '251000';
      p.fee_units = '3000';
    }),
    'plan_mismatch',
  );
});

test('refused: the plan shows another destination than the PSBT pays', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  await refused(
    t,
    edit(plan, (p) => (p.outputs[0].address = externalAddress(bitcoin.networks.regtest))),
    'plan_mismatch',
  );
});

test('refused: the plan spends another outpoint than the PSBT', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  await refused(
    t,
    edit(plan, (p) => (p.inputs[0].output_index = 0)),
    'plan_mismatch',
  );
});

test('refused: the PSBT is another transaction than the plan names', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  const other = sweep(BTC, 'regtest').plan;
  await refused(
    t,
    edit(plan, (p) => (p.unsigned = other.unsigned)),
    'plan_mismatch',
  );
});

test('refused: inputs minus outputs are not the fee of the plan', async (t) => {
  const { plan } = sweep(BTC, 'regtest', { fee: 1_500n });
  const stderr = await refused(t, plan, 'fee_mismatch');
  t.regex(stderr, /are 2000, not the plan's fee of 1500/);
});

test('refused: an input without witnessUtxo, whose value cannot be checked', async (t) => {
  const { plan } = sweep(BTC, 'regtest', { withoutWitnessUtxo: true });
  await refused(t, plan, 'input_value_missing');
});

test('refused: an own output at a path where the seed derives another address', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  await refused(
    t,
    edit(plan, (p) => (p.outputs[1].destination.path = "m/84'/1'/0'/1/1")),
    'own_output_mismatch',
  );
});

test('refused: an external address presented as own', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  const stderr = await refused(
    t,
    edit(plan, (p) => (p.outputs[0].destination = { kind: 'own', account: 0, path: "m/84'/1'/0'/1/0" })),
    'own_output_mismatch',
  );
  t.regex(stderr, /output #0: the plan calls bcrt1\S+ own at m\/84'\/1'\/0'\/1\/0, but the secret derives bcrt1/);
});

test('refused: an input whose path does not derive its address', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  await refused(
    t,
    edit(plan, (p) => (p.inputs[0].path = "m/84'/1'/0'/0/7")),
    'input_key_mismatch',
  );
});

test('refused: another seed, a wrong passphrase, another account key', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  t.regex(await refused(t, plan, 'wrong_key', OTHER_MNEMONIC), /is not the plan's account key/);
  await refused(t, plan, 'wrong_key', MNEMONIC, ['--passphrase-file', file('passphrase', 'TREZOR\n')]);
  t.regex(await refused(t, plan, 'wrong_key', bip84Account(BTC, 'regtest', MNEMONIC, 1).xprv), /The account private key is not the plan's account key/);
});

test('refused: a plan for a network the key does not belong to', async (t) => {
  const mainnet = sweep(BTC, 'bitcoin').plan;
  t.regex(await refused(t, mainnet, 'wrong_network', bip84Account(BTC, 'regtest').xprv), /This is a testnet key \(tprv\); the plan is for a mainnet network/);
  const regtest = sweep(BTC, 'regtest').plan;
  await refused(t, regtest, 'wrong_network', bip84Account(BTC, 'bitcoin').xprv);
  // A Litecoin mainnet plan and a Litecoin testnet key (ttpv).
  await refused(t, sweep(LTC, 'litecoin').plan, 'wrong_network', bip84Account(LTC, 'regtest').xprv);
  // Addresses of Bitcoin testnet (tb1) in a plan that says regtest (bcrt1).
  const testnet = sweep(BTC, 'testnet').plan;
  await refused(
    t,
    edit(testnet, (p) => (p.network = 'regtest')),
    'wrong_network',
  );
});

test('refused: a PSBT asking for another sighash type than SIGHASH_ALL', async (t) => {
  const { plan, psbt } = sweep(BTC, 'regtest');
  psbt.updateInput(0, { sighashType: bitcoin.Transaction.SIGHASH_NONE | bitcoin.Transaction.SIGHASH_ANYONECANPAY });
  await refused(
    t,
    edit(plan, (p) => (p.unsigned = { ...p.unsigned, data: psbt.toBase64() })),
    'unsupported',
  );
});

test('refused: unreadable plans', async (t) => {
  const { plan } = sweep(BTC, 'regtest');
  await refused(
    t,
    edit(plan, (p) => (p.format = 'something-else')),
    'plan_unreadable',
  );
  await refused(
    t,
    edit(plan, (p) => (p.outputs[0].amount_units = 300000)),
    'plan_unreadable',
  );
  await refused(
    t,
    edit(plan, (p) => (p.unsigned = { ...p.unsigned, data: 'not a psbt' })),
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
