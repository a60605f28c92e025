/**
 * The fee estimate through a `bitcoin-core` node against a local JSON-RPC server answering
 * HANDWRITTEN batches in Bitcoin Core's format (`estimatesmartfee` → `{ feerate, blocks }` in
 * BTC/kvB, `getmempoolinfo`) and bcoin's (`{ fee, blocks }`, -1 for none): a regtest node has no
 * estimates, so the real-node tests see only the error path.
 */
import test from 'ava';
import { ProviderError, type ChainTreasury } from '@gw/chain-api';
import { jsonRpcBatch, treasuryOnLocalProvider, type LocalProviderTreasury } from '../testing/local-provider-treasury.js';
import { perVbyteOfPerKvb } from './fee-estimates.js';

let results: Record<string, unknown> = {};
let provider: LocalProviderTreasury;
let treasury: ChainTreasury;

test.before(async () => {
  provider = await treasuryOnLocalProvider(
    'bitcoin-core',
    jsonRpcBatch((method, params) => ({ result: results[`${method} ${params.join(' ')}`.trim()] ?? null })),
  );
  ({ treasury } = provider);
});
test.after.always(() => provider?.close());

test('BTC/kvB to sat/vB, rounded up, without floating-point arithmetic', (t) => {
  t.is(perVbyteOfPerKvb(0.00001, 'x'), 1n);
  t.is(perVbyteOfPerKvb(0.00001001, 'x'), 2n);
  t.is(perVbyteOfPerKvb(0.0002, 'x'), 20n);
  t.is(perVbyteOfPerKvb(0.00123456, 'x'), 124n);
  t.is(perVbyteOfPerKvb(0.1, 'x'), 10_000n);
  t.throws(() => perVbyteOfPerKvb(0.000000001, 'x'), { instanceOf: ProviderError });
  t.throws(() => perVbyteOfPerKvb(-1, 'x'), { instanceOf: ProviderError });
});

test.serial('Core: estimatesmartfee 1 and 6, the mempool floor as minimum', async (t) => {
  results = {
    'estimatesmartfee 1': { feerate: 0.00052001, blocks: 2 },
    'estimatesmartfee 6': { feerate: 0.0002, blocks: 6 },
    getmempoolinfo: { size: 10, mempoolminfee: 0.00001, minrelaytxfee: 0.00001 },
  };
  t.deepEqual(await treasury.feeEstimate(), { nextBlock: 53n, hour: 20n, minimum: 1n });
  results = { ...results, getmempoolinfo: { size: 10, mempoolminfee: 0.0000301, minrelaytxfee: 0.00001 } };
  t.deepEqual((await treasury.feeEstimate()).minimum, 4n);
});

test.serial('bcoin: `fee` in BTC/kB; -1 (no estimate) is a provider error', async (t) => {
  results = { 'estimatesmartfee 1': { fee: 0.0001, blocks: 1 }, 'estimatesmartfee 6': { fee: 0.00005, blocks: 6 }, getmempoolinfo: { mempoolminfee: 0.00001 } };
  t.deepEqual(await treasury.feeEstimate(), { nextBlock: 10n, hour: 5n, minimum: 1n });
  results = { ...results, 'estimatesmartfee 1': { fee: -1, blocks: 1 } };
  await t.throwsAsync(treasury.feeEstimate(), { instanceOf: ProviderError, message: /estimatesmartfee 1/ });
  results = { ...results, 'estimatesmartfee 1': { errors: ['Insufficient data or no feerate found'], blocks: 0 } };
  await t.throwsAsync(treasury.feeEstimate(), { instanceOf: ProviderError, message: /Insufficient data/ });
});
