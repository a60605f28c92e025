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
import { bech32 } from 'bech32';
import { ProviderError, ProviderPool, type AccountKey, type AppError, type ChainAdapterDeps, type SpendInput, type UnsignedTransaction } from '@gw/chain-api';
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
const TIP = JSON.parse(fixture('preprod/block-1923042.json')) as { slot: number; height: number; hash: string };
const TIP_HASH = TIP.hash;
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
  /** Answers BUILT by a test for a hostile or broken provider (status and body), served before anything else. */
  hostile?: (request: string) => [number, string] | undefined;
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
      const hostile = state.hostile?.(key);
      if (hostile) return send(...hostile);
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

async function treasuryFor(
  t: ExecutionContext,
  urls: string[],
  clock: () => number = () => NOW,
  limits?: { blockHeightCache: number; utxoPages: number },
): Promise<AdaTreasury> {
  const providers = new ProviderPool({
    chain: 'ada',
    network: PREPROD.id,
    endpoints: urls.map((url, i) => ({ name: `p${i}`, url, headers: { project_id: 'test-project' } })),
    timeoutMs: 5_000,
  });
  const treasury = adapter.createTreasury!({ network: PREPROD, providers });
  t.true(treasury instanceof AdaTreasury);
  return new AdaTreasury({ network: PREPROD, providers }, clock, limits);
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
  const error = codeOf(t, () => treasury.build({ inputs: [input(0, 5_000_000n)], outputs: [{ address: EXTERNAL }], feeRate: 44n }));
  t.is(error.code, 'validation_error', 'a catalogued error, not a plain Error (a 500)');
  t.regex(error.message, /feeEstimate\(\) first/);
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

  // No output takes the rest: the fee is what is left over, taken only when feeUnits asks for exactly that.
  const exact = treasury.build({ inputs, outputs: [{ address: EXTERNAL, amountUnits: 4_800_000n }], feeRate: 44n, feeUnits: 200_000n });
  t.is(exact.feeUnits, 200_000n);
  const silent = codeOf(t, () => treasury.build({ inputs, outputs: [{ address: EXTERNAL, amountUnits: 1_000_000n }], feeRate: 44n }));
  t.is(silent.code, 'validation_error', 'a leftover of 4 ADA never silently becomes the fee');
  t.regex(silent.message, /leave 4000000 lovelace as the fee: give feeUnits/);
  t.is(
    codeOf(t, () => treasury.build({ inputs, outputs: [{ address: EXTERNAL, amountUnits: 1_000_000n }], feeRate: 44n, feeUnits: 200_000n })).code,
    'validation_error',
  );
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
    assets: [],
  });
  t.deepEqual(outputs[99], {
    txHash: 'f965fe6c264c06a31dc92d392b029905601ce52c8d63493d4b95b8fc08f45d9d',
    outputIndex: 49,
    amountUnits: 1_000_000n,
    blockHeight: 1_949_750,
    assets: [],
  });
  t.true(server.served.includes(`GET /addresses/${UTXO_ADDRESS}/utxos?page=2&count=100`), 'a full page asks for the next');
  t.is(server.served.filter((s) => s.startsWith('GET /blocks/')).length, 2);

  await treasury.unspentAt([UTXO_ADDRESS]);
  t.is(server.served.filter((s) => s.startsWith('GET /blocks/')).length, 2, 'block heights are remembered');
});

// --- refusals (issue 35 review) ------------------------------------------------------------------

/** CBOR written by hand where a hostile signer's bytes are not what CSL would write (RFC 8949 heads). */
const cbor = {
  head: (major: number, n: number): Buffer =>
    n < 24 ? Buffer.from([(major << 5) | n]) : n < 256 ? Buffer.from([(major << 5) | 24, n]) : Buffer.from([(major << 5) | 25, n >> 8, n & 255]),
  bytes: (b: Uint8Array): Buffer => Buffer.concat([cbor.head(2, b.length), Buffer.from(b)]),
  array: (items: Buffer[]): Buffer => Buffer.concat([cbor.head(4, items.length), ...items]),
  map: (entries: [number, Buffer][]): Buffer => Buffer.concat([cbor.head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor.head(0, k), v])]),
  /** A transaction: [body, witness set, is_valid, auxiliary data]. */
  tx: (body: Uint8Array, witnesses: Buffer, valid = true, auxiliary: Buffer = Buffer.from([0xf6])): string =>
    Buffer.concat([Buffer.from([0x84]), Buffer.from(body), witnesses, Buffer.from([valid ? 0xf5 : 0xf4]), auxiliary]).toString('hex'),
};

/** The vkey witnesses of an honestly signed transaction, each as a CBOR [vkey, signature]. */
function witnessesOf(signed: CSL.FixedTransaction): Buffer[] {
  const vkeys = signed.witness_set().vkeys()!;
  return Array.from({ length: vkeys.len() }, (_, i) =>
    cbor.array([cbor.bytes(vkeys.get(i).vkey().public_key().as_bytes()), cbor.bytes(vkeys.get(i).signature().to_bytes())]),
  );
}

async function twoInputPlan(t: ExecutionContext) {
  const server = await replay(t);
  const treasury = await treasuryFor(t, [server.url]);
  await treasury.feeEstimate();
  const plan = treasury.build({ inputs: [input(0, 5_000_000n), input(1, 3_000_000n)], outputs: [{ address: EXTERNAL }], feeRate: 44n });
  const signed = sign(plan.data, [privateKey(0, 0), privateKey(0, 1)]);
  return { server, treasury, plan, signed, body: signed.raw_body(), vkeys: witnessesOf(signed) };
}

test('build refuses a request of the wrong shape with validation_error, never a plain Error', async (t) => {
  const server = await replay(t);
  const treasury = await treasuryFor(t, [server.url]);
  await treasury.feeEstimate();
  const i0 = input(0, 5_000_000n);
  const out = [{ address: EXTERNAL }];
  const MAX = 2n ** 64n - 1n;
  const cases: [string, unknown][] = [
    ['outputIndex 70000 (above 65535)', { inputs: [input(0, 5_000_000n, { outputIndex: 70_000 })], outputs: out, feeRate: 44n }],
    ['outputIndex 2^32+1 (would wrap to 1)', { inputs: [input(0, 5_000_000n, { outputIndex: 2 ** 32 + 1 })], outputs: out, feeRate: 44n }],
    ['outputIndex 1.5', { inputs: [input(0, 5_000_000n, { outputIndex: 1.5 })], outputs: out, feeRate: 44n }],
    ['index 2^31 (hardened)', { inputs: [{ ...i0, index: 2 ** 31 }], outputs: out, feeRate: 44n }],
    ['index -1', { inputs: [{ ...i0, index: -1 }], outputs: out, feeRate: 44n }],
    ['index 0.5', { inputs: [{ ...i0, index: 0.5 }], outputs: out, feeRate: 44n }],
    ['branch 2', { inputs: [{ ...i0, branch: 2 }], outputs: out, feeRate: 44n }],
    ['a key that is no account key', { inputs: [{ ...i0, key: { ...KEY, canonical: 'zz' } }], outputs: out, feeRate: 44n }],
    ['a key of another chain', { inputs: [{ ...i0, key: { ...KEY, chain: 'btc' } }], outputs: out, feeRate: 44n }],
    ['an input address that is no string', { inputs: [{ ...i0, address: 12345 }], outputs: out, feeRate: 44n }],
    ['an input amount as a number', { inputs: [{ ...i0, amountUnits: 5_000_000 }], outputs: out, feeRate: 44n }],
    ['a zero-value input', { inputs: [{ ...i0, amountUnits: 0n }], outputs: out, feeRate: 44n }],
    ['a negative input', { inputs: [{ ...i0, amountUnits: -1n }], outputs: out, feeRate: 44n }],
    ['an output address that is no string', { inputs: [i0], outputs: [{ address: 12345 }], feeRate: 44n }],
    ['an output amount as a number', { inputs: [i0], outputs: [{ address: EXTERNAL, amountUnits: 2_000_000 }, { address: EXTERNAL }], feeRate: 44n }],
    ['an output of 2^64', { inputs: [i0], outputs: [{ address: EXTERNAL, amountUnits: MAX + 1n }], feeRate: 44n }],
    ['a rest output above 2^64-1', { inputs: [input(0, MAX), input(1, MAX)], outputs: out, feeRate: 44n }],
    ['a fee rate as a number', { inputs: [i0], outputs: out, feeRate: 44 }],
    ['a negative fee rate', { inputs: [i0], outputs: out, feeRate: -1n }],
    ['a negative fee', { inputs: [i0], outputs: out, feeRate: 44n, feeUnits: -1n }],
    ['an own output at an external address', { inputs: [i0], outputs: [{ address: EXTERNAL, own: { branch: 1, index: 0 } }], feeRate: 44n }],
    ['an own output at another path', { inputs: [i0], outputs: [{ ...change(0), own: { branch: 1, index: 1 } }], feeRate: 44n }],
    ['an own output at index 2^31', { inputs: [i0], outputs: [{ ...change(0), own: { branch: 1, index: 2 ** 31 } }], feeRate: 44n }],
  ];
  for (const [name, request] of cases) {
    const error = t.throws(() => treasury.build(request as Parameters<AdaTreasury['build']>[0]), undefined, name) as AppError | undefined;
    t.is(error?.code, 'validation_error', `${name}: ${error?.message}`);
  }
  // The own output derived at its path from the inputs' account key is taken.
  const own = treasury.build({ inputs: [i0], outputs: [{ address: EXTERNAL, amountUnits: 2_000_000n }, change(4)], feeRate: 44n });
  t.deepEqual(own.outputs[1]!.own, { branch: 1, index: 4 });
});

test('an input that also holds native tokens is treasury_input_holds_tokens; one holding none is spent', async (t) => {
  const server = await replay(t);
  const treasury = await treasuryFor(t, [server.url]);
  await treasury.feeEstimate();
  const unit = `${'5c'.repeat(28)}${Buffer.from('HOSKY').toString('hex')}`;
  const error = codeOf(t, () =>
    treasury.build({ inputs: [{ ...input(0, 5_000_000n), assets: [{ unit, quantity: 7n }] }], outputs: [{ address: EXTERNAL }], feeRate: 44n }),
  );
  t.is(error.code, 'treasury_input_holds_tokens');
  t.is(error.status, 422);
  t.deepEqual(error.details?.['units'], [unit]);
  t.is(treasury.build({ inputs: [{ ...input(0, 5_000_000n), assets: [] }], outputs: [{ address: EXTERNAL }], feeRate: 44n }).inputs.length, 1);
  t.is(
    codeOf(t, () =>
      treasury.build({ inputs: [{ ...input(0, 5_000_000n), assets: [{ unit: 'lovelace', quantity: 1n }] }], outputs: [{ address: EXTERNAL }], feeRate: 44n }),
    ).code,
    'validation_error',
  );
});

test('a destination whose header is no payment address (a reward address under the addr_test prefix) is treasury_wrong_network', async (t) => {
  const server = await replay(t);
  const treasury = await treasuryFor(t, [server.url]);
  await treasury.feeEstimate();
  const reward = CSL.RewardAddress.new(0, CSL.Credential.from_keyhash(CSL.Ed25519KeyHash.from_hex('11'.repeat(28))))
    .to_address()
    .to_bytes();
  t.is(reward[0]! >> 4, 14, 'header type 14: a reward address');
  const disguised = bech32.encode('addr_test', bech32.toWords(reward), 1000);
  const error = codeOf(t, () => treasury.build({ inputs: [input(0, 5_000_000n)], outputs: [{ address: disguised }], feeRate: 44n }));
  t.is(error.code, 'treasury_wrong_network');
  t.regex(error.message, /not a payment address/);
});

test('verifySigned refuses a plan of another format or unreadable data with validation_error', async (t) => {
  const { treasury, plan, signed } = await twoInputPlan(t);
  t.is(codeOf(t, () => treasury.verifySigned({ ...plan, format: 'psbt' }, signed.to_hex())).code, 'validation_error');
  t.is(codeOf(t, () => treasury.verifySigned({ ...plan, data: 'zz' }, signed.to_hex())).code, 'validation_error');
  t.is(
    codeOf(t, () => treasury.verifySigned({ ...plan, inputs: [{ ...plan.inputs[0]!, key: { ...KEY, chain: 'ltc' } }] }, signed.to_hex())).code,
    'validation_error',
  );
});

test('verifySigned refuses a plan whose transaction is not what its summary states (a second guard)', async (t) => {
  const { treasury, plan, signed } = await twoInputPlan(t);
  const refused = (changed: UnsignedTransaction) => codeOf(t, () => treasury.verifySigned(changed, signed.to_hex()));
  const outputs = refused({ ...plan, outputs: [{ ...plan.outputs[0]!, amountUnits: plan.outputs[0]!.amountUnits - 1_000_000n }] });
  t.is(outputs.code, 'treasury_signed_mismatch');
  t.deepEqual(outputs.details?.['differences'], ['outputs']);
  t.deepEqual(refused({ ...plan, outputs: [{ ...plan.outputs[0]!, address: change(0).address }] }).details?.['differences'], ['outputs']);
  t.deepEqual(refused({ ...plan, inputs: [...plan.inputs].reverse() }).details?.['differences'], ['inputs']);
  t.deepEqual(refused({ ...plan, feeUnits: plan.feeUnits + 1n }).details?.['differences'], ['fee']);
  t.deepEqual(refused({ ...plan, txid: 'ab'.repeat(32) }).details?.['differences'], ['txid']);
  t.is(treasury.verifySigned(plan, signed.to_hex()).txid, plan.txid);
});

test('verifySigned refuses each extra a signer may add, empty lists included: treasury_signed_mismatch naming it', async (t) => {
  const { treasury, plan, body, vkeys } = await twoInputPlan(t);
  const vkeyEntry: [number, Buffer] = [0, cbor.array(vkeys)];
  const metadata = CSL.GeneralTransactionMetadata.new();
  metadata.insert(CSL.BigNum.from_str('674'), CSL.TransactionMetadatum.new_text('pay me instead'));
  const auxiliary = CSL.AuxiliaryData.new();
  auxiliary.set_metadata(metadata);
  const bootstrap = cbor.array([
    cbor.array([cbor.bytes(new Uint8Array(32)), cbor.bytes(new Uint8Array(64)), cbor.bytes(new Uint8Array(32)), cbor.bytes(new Uint8Array([0xa0]))]),
  ]);
  const cases: [string, string, string][] = [
    ['is_valid false', cbor.tx(body, cbor.map([vkeyEntry]), false), 'is_valid false'],
    ['auxiliary data (metadata)', cbor.tx(body, cbor.map([vkeyEntry]), true, Buffer.from(auxiliary.to_bytes())), 'auxiliary data'],
    ['auxiliary data (an empty map)', cbor.tx(body, cbor.map([vkeyEntry]), true, Buffer.from([0xa0])), 'auxiliary data'],
    ['a native script', cbor.tx(body, cbor.map([vkeyEntry, [1, cbor.array([cbor.array([cbor.head(0, 1), cbor.array([])])])]])), 'native scripts'],
    ['an empty native script list', cbor.tx(body, cbor.map([vkeyEntry, [1, cbor.array([])]])), 'native scripts'],
    ['a bootstrap witness', cbor.tx(body, cbor.map([vkeyEntry, [2, bootstrap]])), 'bootstrap witnesses'],
    ['an empty bootstrap list', cbor.tx(body, cbor.map([vkeyEntry, [2, cbor.array([])]])), 'bootstrap witnesses'],
    ['a Plutus V1 script', cbor.tx(body, cbor.map([vkeyEntry, [3, cbor.array([cbor.bytes(new Uint8Array([1, 2, 3]))])]])), 'plutus scripts'],
    ['an empty Plutus V1 list', cbor.tx(body, cbor.map([vkeyEntry, [3, cbor.array([])]])), 'plutus scripts'],
    ['an empty Plutus V2 list', cbor.tx(body, cbor.map([vkeyEntry, [6, cbor.array([])]])), 'plutus scripts'],
    ['an empty Plutus V3 list', cbor.tx(body, cbor.map([vkeyEntry, [7, cbor.array([])]])), 'plutus scripts'],
    ['Plutus data', cbor.tx(body, cbor.map([vkeyEntry, [4, cbor.array([cbor.head(0, 1)])]])), 'plutus data'],
    ['redeemers (an empty list)', cbor.tx(body, cbor.map([vkeyEntry, [5, cbor.array([])]])), 'redeemers'],
  ];
  for (const [name, signed, difference] of cases) {
    const error = t.throws(() => treasury.verifySigned(plan, signed), undefined, name) as AppError | undefined;
    t.is(error?.code, 'treasury_signed_mismatch', `${name}: ${error?.message}`);
    t.true((error?.details?.['differences'] as string[] | undefined)?.includes(difference), `${name}: ${String(error?.details?.['differences'])}`);
  }
  // The same witnesses alone, written by hand, are accepted: the refusals above are the extras'.
  t.is(treasury.verifySigned(plan, cbor.tx(body, cbor.map([vkeyEntry]))).txid, plan.txid);
});

test('verifySigned refuses a key witnessed twice: one witness per key, and no more bytes than the fee pays for', async (t) => {
  const { treasury, plan, body, vkeys } = await twoInputPlan(t);
  // Byte for byte the same witness twice: CSL's view drops the copy, the bytes (and the fee owed) keep it.
  const copy = codeOf(t, () => treasury.verifySigned(plan, cbor.tx(body, cbor.map([[0, cbor.array([vkeys[0]!, vkeys[1]!, vkeys[0]!])]]))));
  t.is(copy.code, 'treasury_signed_mismatch');
  t.deepEqual(copy.details?.['differences'], ['size']);
  t.is(copy.details?.['plan_size'], plan.size);
  // The same key again with another (invalid) signature.
  const invalid = cbor.array([cbor.bytes(inputPaymentKeyOf(0)), cbor.bytes(new Uint8Array(64))]);
  const second = codeOf(t, () => treasury.verifySigned(plan, cbor.tx(body, cbor.map([[0, cbor.array([vkeys[0]!, vkeys[1]!, invalid])]]))));
  t.is(second.code, 'treasury_signed_mismatch');
  t.deepEqual(second.details?.['differences'], ['witnesses']);
});

const inputPaymentKeyOf = (index: number): Uint8Array => privateKey(0, index).to_public().as_bytes();

test('the signed body is compared by its bytes: the same fields in another order are a mismatch (encoding)', async (t) => {
  const { treasury, plan } = await twoInputPlan(t);
  const body = CSL.FixedTransaction.from_hex(plan.data).body();
  // Keys 0, 1, 3, 2 instead of 0, 1, 2, 3: the same body to a decoder, another id.
  const reordered = Buffer.concat([
    cbor.head(5, 4),
    cbor.head(0, 0),
    Buffer.from(body.inputs().to_bytes()),
    cbor.head(0, 1),
    Buffer.from(body.outputs().to_bytes()),
    cbor.head(0, 3),
    Buffer.from(body.ttl_bignum()!.to_bytes()),
    cbor.head(0, 2),
    Buffer.from(body.fee().to_bytes()),
  ]);
  const unsignedHex = cbor.tx(reordered, cbor.map([]));
  t.is(CSL.FixedTransaction.from_hex(unsignedHex).body().to_json(), body.to_json(), 'CSL reads the same fields');
  const signed = sign(unsignedHex, [privateKey(0, 0), privateKey(0, 1)]);
  const error = codeOf(t, () => treasury.verifySigned(plan, signed.to_hex()));
  t.is(error.code, 'treasury_signed_mismatch');
  t.deepEqual(error.details?.['differences'], ['encoding']);
  t.not(error.details?.['signed_txid'], plan.txid);
});

test('broadcast refuses a transaction whose id is not the one given, or no transaction, with validation_error', async (t) => {
  const server = await replay(t);
  const treasury = await treasuryFor(t, [server.url]);
  const verified = await signedPlan(t, treasury);
  t.is(((await t.throwsAsync(treasury.broadcast({ ...verified, txid: 'ab'.repeat(32) }))) as AppError).code, 'validation_error');
  t.is(((await t.throwsAsync(treasury.broadcast({ ...verified, hex: 'zz' }))) as AppError).code, 'validation_error');
  t.deepEqual(server.submitted, [], 'nothing was sent');
});

test('a repeated broadcast resolves only when the provider shows this very transaction, not any 200', async (t) => {
  // Built hostile answers: /txs/{id} answers the recorded transaction 93ac37bf… (another id); /mempool/{id} answers {}.
  const lying = await replay(t, 'inputs_spent');
  lying.hostile = (request) => (request.startsWith('GET /txs/') ? [200, fixture('preprod/tx-93ac37bf.json')] : undefined);
  const honest = await replay(t, 'inputs_spent');
  const treasury = await treasuryFor(t, [lying.url, honest.url]);
  const verified = await signedPlan(t, treasury);
  const refused = (await t.throwsAsync(treasury.broadcast(verified))) as AppError;
  t.is(refused.code, 'treasury_broadcast_rejected', 'the lying provider is passed over; the honest one lacks the transaction');
  t.is(honest.submitted.length, 1);

  const emptyMempool = await replay(t, 'inputs_spent');
  emptyMempool.hostile = (request) => (request.startsWith('GET /mempool/') ? [200, '{}'] : undefined);
  const alone = await treasuryFor(t, [emptyMempool.url]);
  const malformed = (await t.throwsAsync(alone.broadcast(await signedPlan(t, alone)))) as ProviderError;
  t.true(malformed instanceof ProviderError);
  t.is(malformed.failure, 'malformed');
});

/** A built page of `GET /addresses/{a}/utxos`: `count` outputs of 1 ada at `address`, numbered from `first`. */
function utxoPage(address: string, first: number, count: number, block = '6babe4ccf4a30a6491bc3ba56bbd980d790f4bca355da4fde2639820072e1e75'): string {
  return JSON.stringify(
    Array.from({ length: count }, (_, i) => ({
      address,
      tx_hash: 'ed726da664b0a1a812c8c635230e5efcc29ae7310406287d1134348c5b5b7109',
      output_index: first + i,
      amount: [{ unit: 'lovelace', quantity: '1000000' }],
      block,
      data_hash: null,
      inline_datum: null,
      reference_script_hash: null,
    })),
  );
}
const utxoRequest = /^GET \/addresses\/([^/?]+)\/utxos\?page=(\d+)&count=100$/;

test('unspentAt refuses a provider that ignores ?page= (the same outputs again) as malformed, after two pages', async (t) => {
  const server = await replay(t);
  server.hostile = (request) => (utxoRequest.test(request) ? [200, utxoPage(UTXO_ADDRESS, 0, 100)] : undefined);
  const treasury = await treasuryFor(t, [server.url]);
  const error = (await t.throwsAsync(treasury.unspentAt([UTXO_ADDRESS]))) as ProviderError;
  t.true(error instanceof ProviderError);
  t.is(error.failure, 'malformed');
  t.regex(error.message, /listed twice/);
  t.is(server.served.filter((s) => utxoRequest.test(s)).length, 2);
});

test('unspentAt reads a bounded number of pages: a provider answering full pages forever is malformed', async (t) => {
  const server = await replay(t);
  server.hostile = (request) => {
    const page = utxoRequest.exec(request)?.[2];
    return page === undefined ? undefined : [200, utxoPage(UTXO_ADDRESS, (Number(page) - 1) * 100, 100)];
  };
  const treasury = await treasuryFor(t, [server.url], () => NOW, { blockHeightCache: 10, utxoPages: 3 });
  const error = (await t.throwsAsync(treasury.unspentAt([UTXO_ADDRESS]))) as ProviderError;
  t.is(error.failure, 'malformed');
  t.regex(error.message, /more than 3 full pages/);
  t.is(server.served.filter((s) => utxoRequest.test(s)).length, 3);
});

test('unspentAt refuses outputs of another address and amounts given as numbers; it reports native tokens', async (t) => {
  const other = deriveAdaAddress(KEY.canonical, 'testnet', 6).address;
  const server = await replay(t);
  // Built: the recorded page of UTXO_ADDRESS served for another address.
  server.hostile = (request) => (request.startsWith(`GET /addresses/${other}/`) ? [200, fixture('preprod/address-utxos-qzwuqsd7-page1.json')] : undefined);
  const treasury = await treasuryFor(t, [server.url]);
  const wrongAddress = (await t.throwsAsync(treasury.unspentAt([other]))) as ProviderError;
  t.is(wrongAddress.failure, 'malformed');
  t.regex(wrongAddress.message, /not the address asked for/);

  const page = JSON.parse(utxoPage(other, 0, 1)) as { amount: { unit: string; quantity: unknown }[] }[];
  page[0]!.amount = [{ unit: 'lovelace', quantity: 1_000_000 }];
  server.hostile = (request) => (request.startsWith(`GET /addresses/${other}/`) ? [200, JSON.stringify(page)] : undefined);
  t.is(((await t.throwsAsync(treasury.unspentAt([other]))) as ProviderError).failure, 'malformed', 'a quantity is a decimal string');

  // Built: an output holding 2 ada and a token (Blockfrost lists each unit with its quantity).
  const unit = `${'5c'.repeat(28)}${Buffer.from('HOSKY').toString('hex')}`;
  page[0]!.amount = [
    { unit: 'lovelace', quantity: '2000000' },
    { unit, quantity: '250' },
  ];
  server.hostile = (request) => (request.startsWith(`GET /addresses/${other}/`) ? [200, JSON.stringify(page)] : undefined);
  const found = await treasury.unspentAt([other]);
  t.like(found.get(other)![0], { amountUnits: 2_000_000n, assets: [{ unit, quantity: 250n }], blockHeight: 1_949_748 });
});

test('unspentAt gives every output its block height even when the height cache overflows during the call', async (t) => {
  const server = await replay(t);
  const addresses = [0, 1, 2].map((i) => deriveAdaAddress(KEY.canonical, 'testnet', 10 + i).address);
  // Built: one output per address, each in its own block (the two recorded ones and the tip's).
  const blocks = [
    '6babe4ccf4a30a6491bc3ba56bbd980d790f4bca355da4fde2639820072e1e75',
    'f8194283f2cf8a782d5233f11ff35f46441a1453f3e839c04fe19044efa86ec7',
    TIP_HASH,
  ];
  server.hostile = (request) => {
    const match = utxoRequest.exec(request);
    if (match === null) return request === `GET /blocks/${TIP_HASH}` ? [200, fixture('preprod/block-1923042.json')] : undefined;
    const i = addresses.indexOf(decodeURIComponent(match[1]!));
    return [200, utxoPage(addresses[i]!, i, 1, blocks[i])];
  };
  const treasury = await treasuryFor(t, [server.url], () => NOW, { blockHeightCache: 2, utxoPages: 200 });
  for (let round = 0; round < 2; round++) {
    const found = await treasury.unspentAt(addresses);
    t.deepEqual(
      addresses.map((address) => found.get(address)![0]!.blockHeight),
      [1_949_748, 1_949_750, TIP.height],
      `round ${round}: no output is taken for unconfirmed`,
    );
  }
});

test('rawTransactions: a Cardano plan needs no previous transaction; the answer is empty and no provider is asked', async (t) => {
  // A provider that does not exist: any request would fail.
  const treasury = await treasuryFor(t, ['http://127.0.0.1:9']);
  t.deepEqual(await treasury.rawTransactions(['ab'.repeat(32)]), new Map());
});

test('providers that are Koios only: every provider call is treasury_providers_unsupported, naming the fix; nothing is sent', async (t) => {
  const server = await replay(t);
  const providers = new ProviderPool({
    chain: 'ada',
    network: PREPROD.id,
    endpoints: [{ name: 'koios-public', url: server.url, kind: 'koios' }],
    timeoutMs: 5_000,
  });
  const treasury = new AdaTreasury({ network: PREPROD, providers }, () => NOW);
  // A signed plan made where a Blockfrost provider answered.
  const verified = await signedPlan(t, await treasuryFor(t, [(await replay(t)).url]));
  for (const call of [
    () => treasury.feeEstimate(),
    () => treasury.transaction(RECORDED_TX),
    () => treasury.unspentAt([UTXO_ADDRESS]),
    () => treasury.broadcast(verified),
  ]) {
    const error = await t.throwsAsync(call());
    t.is((error as AppError).code, 'treasury_providers_unsupported');
    t.is((error as AppError).status, 422);
    t.regex(error!.message, /Koios only.*Blockfrost provider/);
  }
  t.deepEqual(server.served, []);
  // Nothing to ask: no provider needed.
  t.deepEqual(await treasury.rawTransactions([RECORDED_TX]), new Map());
  t.deepEqual(await treasury.unspentAt([]), new Map());
});

test('a pool of both kinds: the treasury asks its Blockfrost providers only', async (t) => {
  const server = await replay(t);
  const outcomes: string[] = [];
  const providers = new ProviderPool({
    chain: 'ada',
    network: PREPROD.id,
    // The Koios endpoint comes first and would answer Blockfrost's paths with errors.
    endpoints: [
      { name: 'koios-public', url: 'http://127.0.0.1:9/never', kind: 'koios' },
      { name: 'blockfrost', url: server.url, headers: { project_id: 'test-project' } },
    ],
    timeoutMs: 5_000,
    onOutcome: (o) => outcomes.push(`${o.operation} ${o.provider} ${o.outcome}`),
  });
  const treasury = new AdaTreasury({ network: PREPROD, providers }, () => NOW);
  t.deepEqual(await treasury.feeEstimate(), { nextBlock: 44n, hour: 44n, minimum: 44n });
  t.deepEqual(outcomes, ['fee_estimate blockfrost ok'], 'with the pool’s outcome reports');
});
