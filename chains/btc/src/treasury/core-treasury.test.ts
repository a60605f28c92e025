/**
 * The treasury's calls through a `bitcoin-core` node against a local JSON-RPC server answering
 * HANDWRITTEN batches in Bitcoin Core's format: broadcast refusals of Core 28 that mean the
 * transaction is known, the look-up after any other refusal, the shape of `getrawtransaction`
 * answers, and `scantxoutset` answers that cannot be right. The real nodes run in
 * plugins/watchers/test (btc-treasury-bcoin, ltc-treasury-litecoind).
 */
import test from 'ava';
import { ProviderError, type AppError, type ChainTreasury } from '@gw/chain-api';
import { jsonRpcBatch, treasuryOnLocalProvider, type JsonRpcReply, type LocalProviderTreasury } from '../testing/local-provider-treasury.js';

const TXID = 'f'.repeat(64);
const OTHER = 'e'.repeat(64);
const BLOCK = '0'.repeat(12) + 'ab'.repeat(26);
const ADDRESS = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const SCRIPT = '0014c0cebcd6c3d3ca8c75dc5ec62ebe55330ef910e2';
/** Another mainnet P2WPKH address's script (not asked for). */
const OTHER_SCRIPT = '0014' + '11'.repeat(20);
let answer: (method: string, params: unknown[]) => JsonRpcReply = () => ({ result: null });
const asked: string[] = [];
let provider: LocalProviderTreasury;
let treasury: ChainTreasury;

test.before(async () => {
  provider = await treasuryOnLocalProvider(
    'bitcoin-core',
    jsonRpcBatch((method, params) => {
      asked.push(method);
      return answer(method, params);
    }),
  );
  ({ treasury } = provider);
});
test.after.always(() => provider?.close());

const tx = { txid: TXID, hex: '0200000001abcd' };
const mined = { txid: TXID, confirmations: 3, blockhash: BLOCK, vsize: 141 };
/** A node that refuses `sendrawtransaction` with `error` and knows the transaction as `known` (null: not at all). */
const node =
  (error: { code: number; message: string }, known: object | null): typeof answer =>
  (method) => {
    if (method === 'sendrawtransaction') return { error };
    if (method === 'getrawtransaction') return known ? { result: known } : { error: { code: -5, message: 'No such mempool or blockchain transaction' } };
    if (method === 'getblockcount') return { result: 800_002 };
    return { error: { code: -5, message: 'Transaction not in mempool' } };
  };

test.serial(
  'broadcast: Core 28 "Transaction outputs already in utxo set" and "txn-same-nonwitness-data-in-mempool" mean the txid is known: sent',
  async (t) => {
    answer = node({ code: -27, message: 'Transaction outputs already in utxo set' }, null);
    t.is(await treasury.broadcast(tx), TXID);
    answer = node({ code: -26, message: 'txn-same-nonwitness-data-in-mempool' }, null);
    t.is(await treasury.broadcast(tx), TXID);
  },
);

test.serial('broadcast: after another refusal the txid is looked up: known is sent, unknown (or missingorspent) is treasury_broadcast_rejected', async (t) => {
  answer = node({ code: -25, message: 'bad-txns-inputs-missingorspent' }, mined);
  asked.length = 0;
  t.is(await treasury.broadcast(tx), TXID);
  t.true(asked.includes('getrawtransaction'));
  answer = node({ code: -25, message: 'bad-txns-inputs-missingorspent' }, null);
  const error = await t.throwsAsync(treasury.broadcast(tx));
  t.like(error, { code: 'treasury_broadcast_rejected', details: { txid: TXID } });
  t.regex(error!.message, /missingorspent/);
  // A look-up that fails leaves the refusal standing.
  answer = (method) => (method === 'sendrawtransaction' ? { error: { code: -26, message: 'min relay fee not met' } } : { result: 'garbage' });
  t.like(await t.throwsAsync(treasury.broadcast(tx)), { code: 'treasury_broadcast_rejected' });
});

test.serial('broadcast: sendrawtransaction answering another txid is a malformed answer', async (t) => {
  answer = (method) => (method === 'sendrawtransaction' ? { result: OTHER } : { result: null });
  await t.throwsAsync(treasury.broadcast(tx), { instanceOf: ProviderError, message: /not f{64}/ });
});

test.serial('transaction: confirmations a count up to the tip + 1, a block hash only with confirmations, the txid asked; else malformed', async (t) => {
  const with_ =
    (raw: object): typeof answer =>
    (method) =>
      method === 'getblockcount'
        ? { result: 100 }
        : method === 'getrawtransaction'
          ? { result: raw }
          : { error: { code: -5, message: 'Transaction not in mempool' } };
  answer = with_({ ...mined, confirmations: 6 });
  t.like(await treasury.transaction(TXID), { confirmations: 6, blockHeight: 95, blockHash: BLOCK });
  answer = with_({ ...mined, confirmations: 101 });
  t.like(await treasury.transaction(TXID), { confirmations: 101, blockHeight: 0 });
  for (const bad of [
    { ...mined, confirmations: '6' },
    { ...mined, confirmations: 102 },
    { ...mined, confirmations: -1 },
    { txid: TXID, blockhash: BLOCK },
    { ...mined, txid: OTHER },
  ]) {
    answer = with_(bad);
    const error = await t.throwsAsync(treasury.transaction(TXID), { instanceOf: ProviderError }, JSON.stringify(bad));
    t.is((error as ProviderError).failure, 'malformed');
  }
  // In the mempool: neither field.
  answer = with_({ txid: TXID, vsize: 141 });
  t.like(await treasury.transaction(TXID), { confirmations: 0, blockHeight: null, blockHash: null });
});

test.serial('transaction: a malformed txid is validation_error, before any request', async (t) => {
  asked.length = 0;
  for (const txid of ['F'.repeat(64), 'f'.repeat(63), 42 as unknown as string]) {
    t.is(((await t.throwsAsync(treasury.transaction(txid))) as AppError).code, 'validation_error');
  }
  t.deepEqual(asked, []);
});

test.serial('scantxoutset: an output listed twice or to an address not asked for is a malformed answer', async (t) => {
  const unspent = (scriptPubKey: string, vout = 0) => ({ txid: TXID, vout, scriptPubKey, desc: `addr(${ADDRESS})`, amount: 0.5, height: 10 });
  const scan =
    (unspents: object[]): typeof answer =>
    () => ({ result: { success: true, txouts: 1, height: 20, unspents, total_amount: 1 } });
  answer = scan([unspent(SCRIPT, 0), unspent(SCRIPT, 1)]);
  t.is((await treasury.unspentAt([ADDRESS])).get(ADDRESS)!.length, 2);
  answer = scan([unspent(SCRIPT), unspent(SCRIPT)]);
  t.is(((await t.throwsAsync(treasury.unspentAt([ADDRESS]), { message: /twice/ })) as ProviderError).failure, 'malformed');
  answer = scan([unspent(SCRIPT), unspent(OTHER_SCRIPT, 1)]);
  t.is(((await t.throwsAsync(treasury.unspentAt([ADDRESS]), { message: /not asked for/ })) as ProviderError).failure, 'malformed');
});
