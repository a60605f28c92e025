/**
 * The Cardano treasury. Signing happens here, in the test, with TEST-ONLY keys derived as Cardano
 * wallets derive them (CSL `Bip32PrivateKey.from_bip39_entropy` of the "abandon … about" mnemonic,
 * 1852'/1815'/0'/<role>/<index>, `make_vkey_witness`); the gateway's code only ever sees the
 * account public key.
 *
 * Provider calls go to a local HTTP server that REPLAYS RECORDED REAL Blockfrost responses (preprod,
 * chains/ada/test/fixtures/preprod; the README there names each recording and says which answers
 * were built because no recording exists: the submit success, the mempool answer, two block
 * answers and an empty page).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { ProviderPool, type AccountKey, type AppError, type ChainAdapterDeps, type SpendInput, type UnsignedTransaction } from '@gw/chain-api';
import { adaChain, deriveAdaAddress } from '../index.js';
import { AdaTreasury, INPUT_WITH_WITNESS_BYTES } from './ada-treasury.js';
import { TTL_MARGIN_SLOTS } from './build-transaction.js';

const fixture = (name: string): string => readFileSync(new URL(`../../test/fixtures/${name}`, import.meta.url), 'utf8');

const PREPROD = adaChain.definition.networks.testnets[0];
const adapter = adaChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, adaChain.definition);

// TEST-ONLY keys: the "abandon ×11 about" mnemonic (16 zero bytes of entropy), account 0'.
const hardened = (n: number) => 0x80000000 + n;
const ACCOUNT_PRIVATE = CSL.Bip32PrivateKey.from_bip39_entropy(new Uint8Array(16), new Uint8Array(0))
  .derive(hardened(1852))
  .derive(hardened(1815))
  .derive(hardened(0));
const KEY: AccountKey = adapter.parseAccountKey(Buffer.from(ACCOUNT_PRIVATE.to_public().as_bytes()).toString('hex'), 'testnet');
const privateKey = (branch: 0 | 1, index: number) => ACCOUNT_PRIVATE.derive(branch).derive(index).to_raw_key();

// Recorded preprod answers (fixtures/README.md).
const TIP = JSON.parse(fixture('preprod/block-1923042.json')) as { slot: number; height: number };
const PARAMS = JSON.parse(fixture('preprod/epochs-latest-parameters.json')) as { min_fee_a: number; min_fee_b: number };
const UTXO_ADDRESS = 'addr_test1qzwuqsd70k70wcm8smxs6jw34r59r83ywm867t5nu3nutceksz8m2cq3qzq36wt37xengqnuweh8pmr4wrxqcavz996sj2cqw8';
const RECORDED_TX = '93ac37bf94ee2f8bc991ccdfee458c853b5c5548a15e4b5ec45bb1f113a51236';
const EXTERNAL = 'addr_test1qpxghn6cjkmawmxnufpvvc5kempxumyt9xv2tvzyswarmhenpjux68s5nrdttupgzq6wwg8m84kre34tlq8t2n2nxwqsxgf4vp';

const ROUTES: Record<string, string> = {
  'GET /epochs/latest/parameters': fixture('preprod/epochs-latest-parameters.json'),
  'GET /blocks/latest': fixture('preprod/block-1923042.json'),
  [`GET /txs/${RECORDED_TX}`]: fixture('preprod/tx-93ac37bf.json'),
  [`GET /addresses/${UTXO_ADDRESS}/utxos?page=1&count=100`]: fixture('preprod/address-utxos-qzwuqsd7-page1.json'),
  [`GET /addresses/${UTXO_ADDRESS}/utxos?page=2&count=100`]: fixture('preprod/address-utxos-qzwuqsd7-page2.json'),
  'GET /blocks/6babe4ccf4a30a6491bc3ba56bbd980d790f4bca355da4fde2639820072e1e75': fixture('preprod/block-6babe4cc.json'),
  'GET /blocks/f8194283f2cf8a782d5233f11ff35f46441a1453f3e839c04fe19044efa86ec7': fixture('preprod/block-f8194283.json'),
};

/** How the replay server answers `POST /tx/submit`. */
type SubmitMode = 'accept' | 'inputs_spent' | 'invalid_cbor' | 'e500';

interface Replay {
  readonly url: string;
  /** Requests served, as `METHOD path`. */
  readonly served: string[];
  /** Bodies posted to /tx/submit, hex, with their content type. */
  readonly submitted: { contentType: string | undefined; hex: string }[];
  submit: SubmitMode;
  /** Transaction ids the replayed provider shows in its mempool (answered with the OpenAPI example). */
  readonly mempool: Set<string>;
}

async function replay(t: ExecutionContext, submit: SubmitMode = 'accept'): Promise<Replay> {
  const state: Replay = { url: '', served: [], submitted: [], submit, mempool: new Set() };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const key = `${req.method} ${req.url}`;
      const send = (status: number, body: string) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body);
      };
      if (req.headers['project_id'] !== 'test-project') return send(403, '{"error":"Forbidden","message":"Invalid project token.","status_code":403}');
      state.served.push(key);
      if (key === 'POST /tx/submit') {
        const hex = Buffer.concat(chunks).toString('hex');
        state.submitted.push({ contentType: req.headers['content-type'], hex });
        switch (state.submit) {
          case 'e500':
            return send(500, fixture('error-500.json'));
          case 'inputs_spent':
            return send(400, fixture('preprod/tx-submit-inputs-spent.json'));
          case 'invalid_cbor':
            return send(400, fixture('preprod/tx-submit-invalid-cbor.json'));
          default:
            // Built (no recording of a success exists): Blockfrost's documented 200, the id as a JSON string.
            return send(200, JSON.stringify(CSL.FixedTransaction.from_hex(hex).transaction_hash().to_hex()));
        }
      }
      const mempoolId = /^GET \/mempool\/([0-9a-f]{64})$/.exec(key)?.[1];
      if (mempoolId && state.mempool.has(mempoolId)) {
        // Built: the OpenAPI example of /mempool/{hash} with this transaction's id.
        const example = JSON.parse(fixture('preprod/mempool-tx-openapi-example.json')) as { tx: { hash: string } };
        example.tx.hash = mempoolId;
        return send(200, JSON.stringify(example));
      }
      const body = ROUTES[key];
      return body === undefined ? send(404, fixture('error-404.json')) : send(200, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return Object.assign(state, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);

async function treasuryFor(t: ExecutionContext, urls: string[], clock: () => number = () => NOW): Promise<AdaTreasury> {
  const providers = new ProviderPool({
    chain: 'ada',
    network: PREPROD.id,
    endpoints: urls.map((url, i) => ({ name: `p${i}`, url, headers: { project_id: 'test-project' } })),
    timeoutMs: 5_000,
  });
  const treasury = adapter.createTreasury!({ network: PREPROD, providers });
  t.true(treasury instanceof AdaTreasury);
  return new AdaTreasury({ network: PREPROD, providers }, clock);
}

/** A pool output of the test account at `branch`/`index`. */
function input(index: number, amountUnits: bigint, options: { branch?: 0 | 1; txByte?: string; outputIndex?: number } = {}): SpendInput {
  const branch = options.branch ?? 0;
  return {
    txHash: (options.txByte ?? index.toString(16).padStart(2, '0')).repeat(32),
    outputIndex: options.outputIndex ?? 0,
    address: deriveAdaAddress(KEY.canonical, 'testnet', index, branch).address,
    amountUnits,
    key: KEY,
    branch,
    index,
  };
}

const MAINNET_ADDRESS = deriveAdaAddress(KEY.canonical, 'mainnet', 0).address;
const change = (index: number) => ({ address: deriveAdaAddress(KEY.canonical, 'testnet', index, 1).address, own: { branch: 1 as const, index } });

/** Signs as a wallet does: one vkey witness over the body hash per listed key. */
function sign(txHex: string, keys: readonly CSL.PrivateKey[]): CSL.FixedTransaction {
  const tx = CSL.FixedTransaction.from_hex(txHex);
  for (const key of keys) tx.add_vkey_witness(CSL.make_vkey_witness(tx.transaction_hash(), key));
  return tx;
}

/** The plan's body with `change` applied, signed by the plan's keys: what a tampering signer returns. */
function tamper(plan: UnsignedTransaction, change: { output?: number; delta?: bigint; fee?: bigint }): string {
  const body = CSL.FixedTransaction.from_hex(plan.data).body();
  const outputs = CSL.TransactionOutputs.new();
  for (let i = 0; i < body.outputs().len(); i++) {
    const output = body.outputs().get(i);
    const coin = BigInt(output.amount().coin().to_str()) + (i === change.output ? (change.delta ?? 0n) : 0n);
    outputs.add(CSL.TransactionOutput.new(output.address(), CSL.Value.new(CSL.BigNum.from_str(coin.toString()))));
  }
  const tampered = CSL.TransactionBody.new_tx_body(body.inputs(), outputs, CSL.BigNum.from_str((change.fee ?? BigInt(body.fee().to_str())).toString()));
  tampered.set_ttl(body.ttl_bignum()!);
  const tx = CSL.Transaction.new(tampered, CSL.TransactionWitnessSet.new());
  return sign(tx.to_hex(), [privateKey(0, 0), privateKey(0, 1)]).to_hex();
}

const codeOf = (t: ExecutionContext, fn: () => unknown): AppError => t.throws(fn) as AppError;

// --- build -------------------------------------------------------------------------------------

test('feeEstimate reads the recorded protocol parameters and tip: the rate is min_fee_a', async (t) => {
  const server = await replay(t);
  const treasury = await treasuryFor(t, [server.url]);
  t.deepEqual(await treasury.feeEstimate(), { nextBlock: 44n, hour: 44n, minimum: 44n });
  t.like(treasury.ledger, { minFeeA: 44n, minFeeB: 155381n, coinsPerUtxoByte: 4310n, maxTxSize: 16384, tipSlot: TIP.slot, readAtMs: NOW });
  t.deepEqual(server.served, ['GET /epochs/latest/parameters', 'GET /blocks/latest']);
  t.is(treasury.sizeUnit, 'byte');
  t.is(treasury.unsignedFormat, 'cardano-tx');
});

test('build needs the ledger snapshot that feeEstimate reads', async (t) => {
  const server = await replay(t);
  const treasury = await treasuryFor(t, [server.url]);
  const error = t.throws(() => treasury.build({ inputs: [input(0, 5_000_000n)], outputs: [{ address: EXTERNAL }], feeRate: 44n }));
  t.regex(error!.message, /feeEstimate\(\) first/);
});

test('build → sign with wallet-derived keys → verifySigned accepts; the fee is the linear fee of the signed size', async (t) => {
  const server = await replay(t);
  let now = NOW;
  const treasury = await treasuryFor(t, [server.url], () => now);
  await treasury.feeEstimate();
  now += 90_000; // the plan is built 90 s after the tip was read

  // Two outputs of receive key 0, one of receive key 1, one of change key 3: three signing keys.
  const inputs = [
    input(0, 3_000_000n, { txByte: 'b1' }),
    input(1, 2_500_000n),
    input(0, 4_000_000n, { txByte: 'a7', outputIndex: 2 }),
    input(3, 1_700_000n, { branch: 1 }),
  ];
  const plan = treasury.build({ inputs, outputs: [{ address: EXTERNAL, amountUnits: 6_000_000n }, change(0)], feeRate: 44n });

  t.is(plan.format, 'cardano-tx');
  const decoded = CSL.FixedTransaction.from_hex(plan.data);
  t.is(decoded.transaction_hash().to_hex(), plan.txid);
  t.is(decoded.witness_set().vkeys(), undefined, 'the plan carries an empty witness set');
  const body = decoded.body();
  t.deepEqual(
    Array.from({ length: body.inputs().len() }, (_, i) => `${body.inputs().get(i).transaction_id().to_hex()}#${body.inputs().get(i).index()}`),
    inputs.map((i) => `${i.txHash}#${i.outputIndex}`),
    'inputs in the given order',
  );
  t.is(body.ttl_bignum()!.to_str(), String(TIP.slot + 90 + TTL_MARGIN_SLOTS));
  const total = 3_000_000n + 2_500_000n + 4_000_000n + 1_700_000n;
  t.is(plan.outputs[0]!.amountUnits, 6_000_000n);
  t.is(plan.outputs[1]!.amountUnits, total - 6_000_000n - plan.feeUnits, 'the change output takes the rest');
  t.is(plan.feeUnits, BigInt(PARAMS.min_fee_a) * BigInt(plan.size) + BigInt(PARAMS.min_fee_b));
  t.is(body.fee().to_str(), plan.feeUnits.toString());

  const signed = sign(plan.data, [privateKey(0, 0), privateKey(0, 1), privateKey(1, 3)]);
  t.is(signed.to_bytes().length, plan.size, 'the size planned for is the signed size');
  // CSL's own fee function over the signed transaction agrees with the plan's fee.
  t.is(
    CSL.min_fee(CSL.Transaction.from_bytes(signed.to_bytes()), CSL.LinearFee.new(CSL.BigNum.from_str('44'), CSL.BigNum.from_str('155381'))).to_str(),
    plan.feeUnits.toString(),
  );

  const verified = treasury.verifySigned(plan, signed.to_hex());
  t.deepEqual(verified, { txid: plan.txid, hex: signed.to_hex() });
  // CSL verifies every witness over the body hash.
  const witnesses = signed.witness_set().vkeys()!;
  t.is(witnesses.len(), 3);
  for (let i = 0; i < witnesses.len(); i++)
    t.true(witnesses.get(i).vkey().public_key().verify(signed.transaction_hash().to_bytes(), witnesses.get(i).signature()));
});

test('verifySigned also takes a CIP-30 witness set and a cardano-cli text envelope', async (t) => {
  const server = await replay(t);
  const treasury = await treasuryFor(t, [server.url]);
  await treasury.feeEstimate();
  const plan = treasury.build({ inputs: [input(0, 5_000_000n)], outputs: [{ address: EXTERNAL }], feeRate: 44n });
  const signed = sign(plan.data, [privateKey(0, 0)]);

  const fromWitnesses = treasury.verifySigned(plan, signed.witness_set().to_hex());
  t.is(fromWitnesses.txid, plan.txid);
  t.is(fromWitnesses.hex, signed.to_hex());
  const envelope = JSON.stringify({ type: 'Tx ConwayEra', description: 'Ledger Cddl Format', cborHex: signed.to_hex() });
  t.is(treasury.verifySigned(plan, envelope).hex, signed.to_hex());
});

test('a changed output or fee is treasury_signed_mismatch, naming what differs', async (t) => {
  const server = await replay(t);
  const treasury = await treasuryFor(t, [server.url]);
  await treasury.feeEstimate();
  const plan = treasury.build({
    inputs: [input(0, 5_000_000n), input(1, 5_000_000n)],
    outputs: [{ address: EXTERNAL, amountUnits: 3_000_000n }, change(0)],
    feeRate: 44n,
  });

  const output = codeOf(t, () => treasury.verifySigned(plan, tamper(plan, { output: 0, delta: 1_000_000n })));
  t.is(output.code, 'treasury_signed_mismatch');
  t.deepEqual(output.details?.['differences'], ['outputs']);

  const fee = codeOf(t, () => treasury.verifySigned(plan, tamper(plan, { output: 1, delta: -50_000n, fee: plan.feeUnits + 50_000n })));
  t.is(fee.code, 'treasury_signed_mismatch');
  t.deepEqual(fee.details?.['differences'], ['outputs', 'fee']);
  t.is(fee.details?.['plan_txid'], plan.txid);
});

test('a missing witness, a witness by another key, or a bad signature is treasury_signed_incomplete', async (t) => {
  const server = await replay(t);
  const treasury = await treasuryFor(t, [server.url]);
  await treasury.feeEstimate();
  const plan = treasury.build({ inputs: [input(0, 5_000_000n), input(1, 5_000_000n)], outputs: [{ address: EXTERNAL }], feeRate: 44n });

  const missing = codeOf(t, () => treasury.verifySigned(plan, sign(plan.data, [privateKey(0, 0)]).to_hex()));
  t.is(missing.code, 'treasury_signed_incomplete');
  t.like((missing.details?.['missing'] as unknown[])[0], { path: "m/1852'/1815'/0'/0/1", reason: 'no_witness' });

  // Input 1's witness made by key 0/7 (same seed, wrong path): its key hash is not the input's.
  const other = codeOf(t, () => treasury.verifySigned(plan, sign(plan.data, [privateKey(0, 0), privateKey(0, 7)]).to_hex()));
  t.is(other.code, 'treasury_signed_incomplete');
  t.is((other.details?.['missing'] as unknown[]).length, 1);

  // The right key, a signature over something else.
  const wrong = sign(plan.data, [privateKey(0, 0)]);
  wrong.add_vkey_witness(CSL.make_vkey_witness(CSL.TransactionHash.from_hex('00'.repeat(32)), privateKey(0, 1)));
  const bad = codeOf(t, () => treasury.verifySigned(plan, wrong.to_hex()));
  t.is(bad.code, 'treasury_signed_incomplete');
  t.like((bad.details?.['missing'] as unknown[])[0], { path: "m/1852'/1815'/0'/0/1", reason: 'invalid_signature' });

  // Every input signed, plus a witness the plan does not name: larger than the fee paid for.
  const extra = codeOf(t, () => treasury.verifySigned(plan, sign(plan.data, [privateKey(0, 0), privateKey(0, 1), privateKey(0, 9)]).to_hex()));
  t.is(extra.code, 'treasury_signed_mismatch');
});

test('what is not a Cardano transaction is treasury_signed_unreadable', async (t) => {
  const server = await replay(t);
  const treasury = await treasuryFor(t, [server.url]);
  await treasury.feeEstimate();
  const plan = treasury.build({ inputs: [input(0, 5_000_000n)], outputs: [{ address: EXTERNAL }], feeRate: 44n });
  for (const signed of ['hello', 'abcd', '{"type":"Tx ConwayEra"}', '{not json', Buffer.from('cHNidP8B').toString('hex')]) {
    t.is(codeOf(t, () => treasury.verifySigned(plan, signed)).code, 'treasury_signed_unreadable', signed);
  }
});

test('build refuses outputs below min-ADA, too little value, a destination of another network, an input its path does not derive', async (t) => {
  const server = await replay(t);
  const treasury = await treasuryFor(t, [server.url]);
  await treasury.feeEstimate();
  const build =
    (outputs: { address: string; amountUnits?: bigint }[], inputs = [input(0, 5_000_000n)]) =>
    () =>
      treasury.build({ inputs, outputs, feeRate: 44n });

  const dust = codeOf(t, build([{ address: EXTERNAL, amountUnits: 900_000n }, change(0)]));
  t.is(dust.code, 'treasury_dust_output');
  t.is(dust.details?.['minimum_units'], String(4310 * (160 + 65)), 'min-ADA = coins_per_utxo_size × (160 + the 65 bytes of the serialized output)');
  // The rest, after a 4.2 ADA output and the fee, is below min-ADA.
  t.is(codeOf(t, build([{ address: EXTERNAL, amountUnits: 4_200_000n }, change(0)])).code, 'treasury_dust_output');
  t.is(codeOf(t, build([{ address: EXTERNAL, amountUnits: 5_000_000n }, change(0)])).code, 'treasury_insufficient_value');
  t.is(codeOf(t, build([{ address: EXTERNAL, amountUnits: 5_000_001n }])).code, 'treasury_insufficient_value');
  t.is(codeOf(t, build([{ address: MAINNET_ADDRESS }])).code, 'treasury_wrong_network');
  t.is(codeOf(t, build([{ address: 'addr_test1qz' }])).code, 'treasury_wrong_network');
  t.is(codeOf(t, build([{ address: EXTERNAL }], [{ ...input(0, 5_000_000n), index: 4 }])).code, 'validation_error');
  t.is(codeOf(t, build([{ address: EXTERNAL }], [input(0, 5_000_000n), input(0, 5_000_000n)])).code, 'validation_error', 'an input twice');
  t.is(codeOf(t, build([{ address: EXTERNAL }, change(0)])).code, 'validation_error', 'two outputs take the rest');
});

test('a transaction above max_tx_size is refused: plan fewer inputs', async (t) => {
  const server = await replay(t);
  const treasury = await treasuryFor(t, [server.url]);
  await treasury.feeEstimate();
  const inputs = Array.from({ length: 130 }, (_, i) => input(i, 2_000_000n, { txByte: (i % 256).toString(16).padStart(2, '0'), outputIndex: i }));
  const error = codeOf(t, () => treasury.build({ inputs, outputs: [{ address: EXTERNAL }], feeRate: 44n }));
  t.is(error.code, 'validation_error');
  t.regex(error.message, /above the network's limit of 16384/);
  t.is(treasury.build({ inputs: inputs.slice(0, 100), outputs: [{ address: EXTERNAL }], feeRate: 44n }).inputs.length, 100);
});

test('feeUnits replaces the computed fee; below the minimum it is refused; a low rate is raised to min_fee_a', async (t) => {
  const server = await replay(t);
  const treasury = await treasuryFor(t, [server.url]);
  await treasury.feeEstimate();
  const inputs = [input(0, 5_000_000n)];
  const computed = treasury.build({ inputs, outputs: [{ address: EXTERNAL }], feeRate: 44n });
  t.deepEqual(treasury.build({ inputs, outputs: [{ address: EXTERNAL }], feeRate: 1n }).feeUnits, computed.feeUnits);

  const fixed = treasury.build({ inputs, outputs: [{ address: EXTERNAL }], feeRate: 44n, feeUnits: 250_000n });
  t.is(fixed.feeUnits, 250_000n);
  t.is(fixed.outputs[0]!.amountUnits, 4_750_000n);
  t.is(codeOf(t, () => treasury.build({ inputs, outputs: [{ address: EXTERNAL }], feeRate: 44n, feeUnits: computed.feeUnits - 1n })).code, 'validation_error');

  // No output takes the rest: the fee is what is left over.
  const exact = treasury.build({ inputs, outputs: [{ address: EXTERNAL, amountUnits: 4_800_000n }], feeRate: 44n });
  t.is(exact.feeUnits, 200_000n);
  t.is(treasury.inputCost(44n), 44n * INPUT_WITH_WITNESS_BYTES);
  t.is(treasury.inputCost(1n), 44n * INPUT_WITH_WITNESS_BYTES);
});

// --- providers ---------------------------------------------------------------------------------

async function signedPlan(t: ExecutionContext, treasury: AdaTreasury) {
  await treasury.feeEstimate();
  const plan = treasury.build({ inputs: [input(0, 5_000_000n)], outputs: [{ address: EXTERNAL }], feeRate: 44n });
  return treasury.verifySigned(plan, sign(plan.data, [privateKey(0, 0)]).to_hex());
}

test('broadcast posts the CBOR to /tx/submit and resolves with the id the provider answers', async (t) => {
  const server = await replay(t);
  const treasury = await treasuryFor(t, [server.url]);
  const verified = await signedPlan(t, treasury);
  t.is(await treasury.broadcast(verified), verified.txid);
  t.deepEqual(server.submitted, [{ contentType: 'application/cbor', hex: verified.hex }]);
});

test('a provider failing with 500 passes the broadcast to the next', async (t) => {
  const failing = await replay(t, 'e500');
  const healthy = await replay(t);
  const treasury = await treasuryFor(t, [failing.url, healthy.url]);
  const verified = await signedPlan(t, treasury);
  t.is(await treasury.broadcast(verified), verified.txid);
  t.is(failing.submitted.length, 1);
  t.is(healthy.submitted.length, 1);
});

test('a repeated broadcast ("All inputs are spent") of a transaction the provider has resolves; of one it lacks is refused', async (t) => {
  const server = await replay(t, 'inputs_spent');
  const treasury = await treasuryFor(t, [server.url]);
  const verified = await signedPlan(t, treasury);

  const refused = await t.throwsAsync(treasury.broadcast(verified));
  t.is((refused as AppError).code, 'treasury_broadcast_rejected');
  t.regex(refused!.message, /All inputs are spent/);
  t.true(server.served.includes(`GET /txs/${verified.txid}`) && server.served.includes(`GET /mempool/${verified.txid}`));

  server.mempool.add(verified.txid);
  t.is(await treasury.broadcast(verified), verified.txid);
});

test('a transaction the node cannot decode is treasury_broadcast_rejected, tried on one provider only', async (t) => {
  const first = await replay(t, 'invalid_cbor');
  const second = await replay(t);
  const treasury = await treasuryFor(t, [first.url, second.url]);
  const verified = await signedPlan(t, treasury);
  const refused = await t.throwsAsync(treasury.broadcast(verified));
  t.is((refused as AppError).code, 'treasury_broadcast_rejected');
  t.regex(String((refused as AppError).details?.['provider_message']), /DeserialiseFailure/);
  t.is(second.submitted.length, 0, 'a node refusal is not a provider failure');
});

test('transaction: confirmations from the recorded transaction and tip; the mempool; unknown is null', async (t) => {
  const server = await replay(t);
  const treasury = await treasuryFor(t, [server.url]);
  t.deepEqual(await treasury.transaction(RECORDED_TX), {
    txid: RECORDED_TX,
    confirmations: TIP.height - 1_905_581 + 1,
    blockHeight: 1_905_581,
    blockHash: '9a5bb9d16cab2c2f9da47889298b72b08d5ff6015ec04ea29ffea1fe1bf74b48',
    feeUnits: 240_257n,
    size: 1747,
  });
  const pending = 'ab'.repeat(32);
  t.is(await treasury.transaction(pending), null);
  server.mempool.add(pending);
  t.deepEqual(await treasury.transaction(pending), { txid: pending, confirmations: 0, blockHeight: null, blockHash: null, feeUnits: 182_485n, size: 433 });
  t.is(((await t.throwsAsync(treasury.transaction('xyz'))) as AppError).code, 'validation_error');
});

test('unspentAt pages through an address, counts lovelace, resolves block heights once, and leaves out addresses without outputs', async (t) => {
  const server = await replay(t);
  const treasury = await treasuryFor(t, [server.url]);
  const unknown = deriveAdaAddress(KEY.canonical, 'testnet', 5).address;

  const found = await treasury.unspentAt([UTXO_ADDRESS, unknown]);

  t.deepEqual([...found.keys()], [UTXO_ADDRESS]);
  const outputs = found.get(UTXO_ADDRESS)!;
  t.is(outputs.length, 100);
  t.deepEqual(outputs[0], {
    txHash: 'ed726da664b0a1a812c8c635230e5efcc29ae7310406287d1134348c5b5b7109',
    outputIndex: 0,
    amountUnits: 1_000_000n,
    blockHeight: 1_949_748,
  });
  t.deepEqual(outputs[99], {
    txHash: 'f965fe6c264c06a31dc92d392b029905601ce52c8d63493d4b95b8fc08f45d9d',
    outputIndex: 49,
    amountUnits: 1_000_000n,
    blockHeight: 1_949_750,
  });
  t.true(server.served.includes(`GET /addresses/${UTXO_ADDRESS}/utxos?page=2&count=100`), 'a full page asks for the next');
  t.is(server.served.filter((s) => s.startsWith('GET /blocks/')).length, 2);

  await treasury.unspentAt([UTXO_ADDRESS]);
  t.is(server.served.filter((s) => s.startsWith('GET /blocks/')).length, 2, 'block heights are remembered');
});
