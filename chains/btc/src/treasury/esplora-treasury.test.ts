/**
 * The treasury's Esplora calls against a local HTTP server (node:http on 127.0.0.1) answering
 * HANDWRITTEN responses in the format of Esplora's API documentation (Blockstream's esplora
 * API.md; electrs's error bodies `sendrawtransaction RPC error: {...}`): fee estimates, broadcast
 * as a plain-text body, transaction status, unspent outputs. The node kinds (Core, bcoin) run
 * against real nodes in plugins/watchers/test (btc-treasury-bcoin, ltc-treasury-litecoind).
 */
import test from 'ava';
import * as bitcoin from 'bitcoinjs-lib';
import { ProviderError, type ChainTreasury } from '@gw/chain-api';
import { treasuryOnLocalProvider, type LocalProviderTreasury, type ReceivedRequest } from '../testing/local-provider-treasury.js';

const TXID = 'f'.repeat(64);
const BLOCK = '0'.repeat(12) + 'ab'.repeat(26);
const ADDRESS = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const received: ReceivedRequest[] = [];
let answers: Record<string, [number, string]> = {};
let provider: LocalProviderTreasury;
let treasury: ChainTreasury;

test.before(async () => {
  provider = await treasuryOnLocalProvider('esplora', (request) => {
    received.push(request);
    const [status, body] = answers[`${request.method} ${request.path}`] ?? [404, 'Not Found'];
    return { status, contentType: 'text/plain', body };
  });
  ({ treasury } = provider);
});
test.after.always(() => provider?.close());

test.serial(
  'fee-estimates: targets 1 and 6 rounded up to whole sat/vB, the lowest listed as the minimum; an empty answer (regtest) is a provider error',
  async (t) => {
    answers = { 'GET /fee-estimates': [200, JSON.stringify({ '1': 87.882, '2': 87.882, '3': 60.1, '6': 20.000001, '144': 1.027, '1008': 0.5 })] };
    t.deepEqual(await treasury.feeEstimate(), { nextBlock: 88n, hour: 21n, minimum: 1n });
    answers = { 'GET /fee-estimates': [200, JSON.stringify({ '1': 12, '6': 7, '144': 3.2 })] };
    t.deepEqual(await treasury.feeEstimate(), { nextBlock: 12n, hour: 7n, minimum: 4n });
    answers = { 'GET /fee-estimates': [200, '{}'] };
    await t.throwsAsync(treasury.feeEstimate(), { instanceOf: ProviderError });
  },
);

test.serial(
  'POST /tx sends the raw hex as text; "already in block chain" counts as sent; another 400 is treasury_broadcast_rejected; a 5xx is a provider failure',
  async (t) => {
    const tx = { txid: TXID, hex: '0200000001abcd' };
    received.length = 0;
    answers = { 'POST /tx': [200, TXID] };
    t.is(await treasury.broadcast(tx), TXID);
    t.like(received[0], { method: 'POST', path: '/tx', contentType: 'text/plain', body: tx.hex });
    answers = { 'POST /tx': [400, 'sendrawtransaction RPC error: {"code":-27,"message":"Transaction already in block chain"}'] };
    t.is(await treasury.broadcast(tx), TXID);
    answers = { 'POST /tx': [400, 'sendrawtransaction RPC error: {"code":-26,"message":"min relay fee not met, 100 < 141"}'] };
    const error = await t.throwsAsync(treasury.broadcast(tx));
    t.like(error, { code: 'treasury_broadcast_rejected', details: { txid: TXID } });
    t.regex(error!.message, /min relay fee not met/);
    answers = { 'POST /tx': [503, 'busy'] };
    await t.throwsAsync(treasury.broadcast(tx), { instanceOf: ProviderError });
  },
);

test.serial('GET /tx/:txid: confirmations from the tip, fee and vsize; unconfirmed; unknown is null', async (t) => {
  const tx = (status: object) => JSON.stringify({ txid: TXID, version: 2, locktime: 0, vin: [], vout: [], size: 222, weight: 561, fee: 1410, status });
  answers = {
    [`GET /tx/${TXID}`]: [200, tx({ confirmed: true, block_height: 800_000, block_hash: BLOCK, block_time: 1_690_000_000 })],
    'GET /blocks/tip/height': [200, '800002'],
  };
  t.deepEqual(await treasury.transaction(TXID), { txid: TXID, confirmations: 3, blockHeight: 800_000, blockHash: BLOCK, feeUnits: 1410n, size: 141 });
  answers = { [`GET /tx/${TXID}`]: [200, tx({ confirmed: false })] };
  t.deepEqual(await treasury.transaction(TXID), { txid: TXID, confirmations: 0, blockHeight: null, blockHash: null, feeUnits: 1410n, size: 141 });
  answers = {};
  t.is(await treasury.transaction(TXID), null);
});

test.serial('GET /address/:a/utxo per address: confirmed with their height, mempool with none; addresses without outputs are absent', async (t) => {
  answers = {
    [`GET /address/${ADDRESS}/utxo`]: [
      200,
      JSON.stringify([
        { txid: TXID, vout: 1, status: { confirmed: true, block_height: 799_990, block_hash: BLOCK, block_time: 1 }, value: 150_000 },
        { txid: 'e'.repeat(64), vout: 0, status: { confirmed: false }, value: 2_000 },
      ]),
    ],
    'GET /address/bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g/utxo': [200, '[]'],
  };
  const found = await treasury.unspentAt([ADDRESS, 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g', ADDRESS]);
  t.deepEqual(
    [...found.entries()],
    [
      [
        ADDRESS,
        [
          { txHash: TXID, outputIndex: 1, amountUnits: 150_000n, blockHeight: 799_990 },
          { txHash: 'e'.repeat(64), outputIndex: 0, amountUnits: 2_000n, blockHeight: null },
        ],
      ],
    ],
  );
});

test.serial(
  'rawTransactions: GET /tx/:txid/hex per id, checked to hash to it; an id the server does not know is absent; another transaction is a provider error',
  async (t) => {
    const transactionOf = (seed: number) => {
      const tx = new bitcoin.Transaction();
      tx.version = 2;
      tx.addInput(Buffer.alloc(32, seed), 0);
      tx.addOutput(bitcoin.address.toOutputScript(ADDRESS, bitcoin.networks.bitcoin), 50_000n + BigInt(seed));
      return tx;
    };
    const [a, b] = [transactionOf(1), transactionOf(2)];
    answers = { [`GET /tx/${a.getId()}/hex`]: [200, a.toHex()], [`GET /tx/${b.getId()}/hex`]: [200, `${b.toHex()}\n`] };
    received.length = 0;
    const found = await treasury.rawTransactions([a.getId(), TXID, b.getId(), a.getId()]);
    t.deepEqual(
      [...found.entries()].sort(),
      [
        [a.getId(), a.toHex()],
        [b.getId(), b.toHex()],
      ].sort(),
    );
    t.is(received.length, 3, 'one request per distinct id');
    t.deepEqual(await treasury.rawTransactions([]), new Map());
    answers = { [`GET /tx/${a.getId()}/hex`]: [200, b.toHex()] };
    await t.throwsAsync(treasury.rawTransactions([a.getId()]), { instanceOf: ProviderError, message: /does not hash to/ });
  },
);

test.serial('fee-estimates: a target answered 0 is floored at the minimum', async (t) => {
  answers = { 'GET /fee-estimates': [200, JSON.stringify({ '1': 0, '6': 0, '144': 1.5 })] };
  t.deepEqual(await treasury.feeEstimate(), { nextBlock: 1n, hour: 1n, minimum: 1n });
});

test.serial('POST /tx: a refusal after which GET /tx/:txid knows the transaction counts as sent; an answer with another txid is malformed', async (t) => {
  const tx = { txid: TXID, hex: '0200000001abcd' };
  answers = {
    'POST /tx': [400, 'sendrawtransaction RPC error: {"code":-25,"message":"bad-txns-inputs-missingorspent"}'],
    [`GET /tx/${TXID}`]: [200, JSON.stringify({ txid: TXID, status: { confirmed: false } })],
  };
  t.is(await treasury.broadcast(tx), TXID);
  answers = { 'POST /tx': [200, 'e'.repeat(64)] };
  const error = await t.throwsAsync(treasury.broadcast(tx), { instanceOf: ProviderError });
  t.is((error as ProviderError).failure, 'malformed');
});

test.serial('GET /tx/:txid answering another transaction is malformed', async (t) => {
  answers = { [`GET /tx/${TXID}`]: [200, JSON.stringify({ txid: 'e'.repeat(64), status: { confirmed: false } })] };
  const error = await t.throwsAsync(treasury.transaction(TXID), { instanceOf: ProviderError });
  t.is((error as ProviderError).failure, 'malformed');
});

test.serial('GET /address/:a/utxo listing an output twice is malformed', async (t) => {
  const utxo = { txid: TXID, vout: 1, status: { confirmed: false }, value: 1_000 };
  answers = { [`GET /address/${ADDRESS}/utxo`]: [200, JSON.stringify([utxo, utxo])] };
  const error = await t.throwsAsync(treasury.unspentAt([ADDRESS]), { instanceOf: ProviderError, message: /twice/ });
  t.is((error as ProviderError).failure, 'malformed');
});
