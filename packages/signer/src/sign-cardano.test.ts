import test, { type ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { bech32 } from 'bech32';
import type { PlanFile, SignedFile } from '@gw/chain-api';
import { BTC } from './chains.js';
import {
  adaPlan,
  bip84Account,
  cardanoAccount,
  editPlan,
  expectRefused,
  tempFolder,
  externalCardanoAddress,
  MNEMONIC,
  OTHER_MNEMONIC,
  runSignerHere,
  runSignerProcess,
  signedPathOf,
  type AdaPlanOptions,
} from './testing.js';

const { file } = tempFolder('gateway-signer-ada-');
const planFile = (plan: PlanFile): string => file('plan.json', JSON.stringify(plan, null, 2));

function sweep(network: AdaPlanOptions['network'] = 'preprod', extra: Partial<AdaPlanOptions> = {}) {
  return adaPlan({
    network,
    inputs: [
      { index: 0, value: 5_000_000n },
      { index: 3, value: 2_000_000n },
    ],
    outputs: [
      { external: externalCardanoAddress(network === 'cardano' ? 1 : 0), value: 6_000_000n },
      { change: 0, value: 830_000n },
    ],
    fee: 170_000n,
    ...extra,
  });
}

const paymentKeyHashOf = (address: string): string => CSL.BaseAddress.from_address(CSL.Address.from_bech32(address))!.payment_cred().to_keyhash()!.to_hex();

/**
 * Checks a signed file with CSL alone: the body is the plan's, byte for byte; there is one key
 * witness per input key, each a valid Ed25519 signature of the transaction id, and the witnesses'
 * keys are exactly the payment keys of the input addresses.
 */
function verifySigned(t: ExecutionContext, signedFile: SignedFile, plan: PlanFile): void {
  t.is(signedFile.format, 'gateway-treasury-signed');
  t.is(signedFile.plan_id, plan.plan_id);
  const signed = CSL.FixedTransaction.from_hex(signedFile.signed);
  const unsigned = CSL.FixedTransaction.from_hex(plan.unsigned.data);
  t.is(Buffer.from(signed.raw_body()).toString('hex'), Buffer.from(unsigned.raw_body()).toString('hex'));
  t.is(signed.transaction_hash().to_hex(), plan.unsigned.txid);
  const vkeys = signed.witness_set().vkeys()!;
  const hash = signed.transaction_hash().to_bytes();
  const signers: string[] = [];
  for (let i = 0; i < vkeys.len(); i++) {
    const witness = vkeys.get(i);
    const key = witness.vkey().public_key();
    t.true(key.verify(hash, witness.signature()), `witness #${i}`);
    t.false(key.verify(Buffer.alloc(32), witness.signature()), 'the check can fail');
    signers.push(key.hash().to_hex());
  }
  t.deepEqual(signers.sort(), [...new Set(plan.inputs.map((input) => paymentKeyHashOf(input.address)))].sort());
}

test('Cardano preprod: the command signs a sweep with the mnemonic in a file; CSL verifies every witness', async (t) => {
  const { plan } = sweep();
  const path = planFile(plan);
  const run = await runSignerProcess(['sign', path, '--key-file', file('key', `${MNEMONIC}\n`), '--yes']);
  t.is(run.code, 0, run.stderr);
  verifySigned(t, JSON.parse(readFileSync(signedPathOf(path), 'utf8')) as SignedFile, plan);
  t.regex(run.stderr, new RegExp(`${plan.outputs[0]!.address}  6\\.000000 ADA \\(6000000 lovelace\\)\\n.*EXTERNAL`));
  t.regex(run.stderr, new RegExp(`${plan.outputs[1]!.address}  0\\.830000 ADA \\(830000 lovelace\\)\\n\\s+OWN at m/1852'/1815'/0'/1/0`));
  t.regex(run.stderr, /Fee: +0\.170000 ADA \(170000 lovelace\), 2\.43% of the value/);
  t.regex(run.stderr, /\nValid: +from now, until slot 90000000 \(TTL\)\n/);
});

test('Cardano: the validity interval is shown, a start slot and a missing TTL included', async (t) => {
  const { plan } = adaPlan({
    network: 'preprod',
    inputs: [{ index: 0, value: 5_000_000n }],
    outputs: [{ external: externalCardanoAddress(0), value: 4_800_000n }],
    fee: 200_000n,
    editBody: (body) => {
      body.set_validity_start_interval_bignum(CSL.BigNum.from_str('123456'));
      body.remove_ttl();
    },
  });
  const run = await runSignerHere(['sign', planFile(plan), '--key-stdin', '--yes', '--out', '-'], MNEMONIC);
  t.is(run.code, 0, run.stderr);
  t.regex(run.stderr, /\nValid: +from slot 123456, with no time limit \(no TTL\)\n/);
});

test('Cardano mainnet: the acct_xsk account key signs; two inputs at one address get one witness', async (t) => {
  const { plan } = adaPlan({
    network: 'cardano',
    inputs: [
      { index: 2, value: 3_000_000n },
      { index: 2, value: 1_500_000n },
    ],
    outputs: [{ external: externalCardanoAddress(1), value: 4_320_000n }],
    fee: 180_000n,
  });
  const xsk = bech32.encode('acct_xsk', bech32.toWords(cardanoAccount().prv.as_bytes()), 1000);
  const run = await runSignerHere(['sign', planFile(plan), '--key-stdin', '--yes', '--out', '-'], xsk);
  t.is(run.code, 0, run.stderr);
  verifySigned(t, JSON.parse(run.stdout) as SignedFile, plan);
});

test('refused: the body pays another amount or address than the plan shows', async (t) => {
  const { plan } = sweep();
  await expectRefused(
    t,
    editPlan(plan, (p) => {
      p.outputs[0].amount_units = '6100000';
      p.inputs[0].amount_units = '5100000';
    }),
    'plan_mismatch',
  );
  await expectRefused(
    t,
    editPlan(plan, (p) => (p.outputs[0].address = externalCardanoAddress(0))),
    'plan_mismatch',
  );
  await expectRefused(
    t,
    editPlan(plan, (p) => (p.inputs[1].output_index = 1)),
    'plan_mismatch',
  );
});

test("refused: the body's fee is not the plan's, or the plan's inputs minus outputs are not the fee", async (t) => {
  const { plan } = sweep();
  t.regex(
    await expectRefused(
      t,
      editPlan(plan, (p) => (p.fee_units = '160000')),
      'fee_mismatch',
    ),
    /fee is 170000 lovelace; the plan says 160000/,
  );
  await expectRefused(
    t,
    editPlan(plan, (p) => (p.inputs[0].amount_units = '5500000')),
    'fee_mismatch',
  );
});

test('refused: an own output that is not the seed’s address there, an input whose key is not its address’s', async (t) => {
  const { plan } = sweep();
  await expectRefused(
    t,
    editPlan(plan, (p) => (p.outputs[1].destination.path = "m/1852'/1815'/0'/1/4")),
    'own_output_mismatch',
  );
  await expectRefused(
    t,
    editPlan(plan, (p) => (p.inputs[1].path = "m/1852'/1815'/0'/0/4")),
    'input_key_mismatch',
  );
});

test('refused: another seed, a Bitcoin key, addresses of another network', async (t) => {
  const { plan } = sweep();
  await expectRefused(t, plan, 'wrong_key', OTHER_MNEMONIC);
  await expectRefused(t, plan, 'wrong_key', bip84Account(BTC, 'bitcoin').xprv);
  await expectRefused(
    t,
    editPlan(plan, (p) => (p.network = 'cardano')),
    'wrong_network',
  );
});

test('refused: a body that does more than move lovelace (a treasury donation, metadata hash)', async (t) => {
  t.regex(
    await expectRefused(t, sweep('preprod', { editBody: (body) => body.set_donation(CSL.BigNum.from_str('1')) }).plan, 'unsupported'),
    /a treasury donation/,
  );
  const withMetadataHash = sweep('preprod', { editBody: (body) => body.set_auxiliary_data_hash(CSL.AuxiliaryDataHash.from_bytes(new Uint8Array(32))) }).plan;
  await expectRefused(t, withMetadataHash, 'unsupported');
});
