/**
 * jetton_batch planning over given wallet states (pure: no chain). The sandbox test
 * (ton-treasury.test.ts) runs a small batch on real contract code; here the shapes too big or too
 * particular for it: more than 255 top-ups, and a subwallet that already holds its gas.
 */
import test from 'ava';
import { Address, loadMessageRelaxed, type Cell } from '@ton/core';
import type { AccountSource, ChainAdapterDeps, OperatorAccount } from '@gw/chain-api';
import { tonChain } from '../index.js';
import { buildJettonBatchPlan, JETTON_MOVE_TON } from './build-jetton-batch.js';
import type { PreparedSource, TonPlanContext } from './plan-context.js';
import { JETTON_TRANSFER_VALUE } from './ton-fees.js';
import { decodeStepData } from './ton-step-data.js';
import type { WalletState } from './wallet-states.js';

const adapter = tonChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, tonChain.definition);
const key = adapter.parseAccountKey('71ced1c4c69e53eb7ede24658375f56c142d22cdb21d0728138cb53b817e454e', 'testnet');
const destination = adapter.deriveAddress(key, 9000).address;
const ctx: TonPlanContext = {
  network: 'testnet',
  publicKey: Buffer.from(key.canonical, 'hex'),
  destination: Address.parse(destination),
  destinationText: destination,
  destinationBounce: false,
  validUntil: 1_900_000_000,
  nativeCoin: 'ton',
};
const gasAddress = adapter.deriveAddress(key, 7000);
const master = Address.parse(adapter.deriveAddress(key, 8000).address); // stands in for the jetton master: pure planning reads no chain
const gasAccount: OperatorAccount = { role: 'gas', address: gasAddress.address, path: gasAddress.path };

function state(index: number, ton: bigint, jettons: bigint, seqno = 0): WalletState {
  const address = Address.parse(adapter.deriveAddress(key, index).address);
  return { address, status: seqno > 0 ? 'active' : 'uninit', ton, seqno, deployed: seqno > 0, jettonWallet: address, jettons };
}
const source = (index: number, ton: bigint, jettons: bigint, seqno = 0): PreparedSource => ({
  source: { address: adapter.deriveAddress(key, index).address, key, index } satisfies AccountSource,
  subwallet: index,
  state: state(index, ton, jettons, seqno),
});

/** The out-messages of a step's payload with their send modes. */
function outMessages(payload: Cell): { mode: number; value: bigint; to: string }[] {
  const s = payload.beginParse();
  s.skip(32 + 32 + 32 + 32); // op, wallet id, valid_until, seqno
  const list = s.loadMaybeRef();
  const out: { mode: number; value: bigint; to: string }[] = [];
  let cell = list;
  while (cell && cell.bits.length > 0) {
    const a = cell.beginParse();
    const prev = a.loadRef();
    a.loadUint(32); // action_send_msg tag
    const mode = a.loadUint(8);
    const message = loadMessageRelaxed(a.loadRef().beginParse());
    if (message.info.type !== 'internal') throw new Error('internal expected');
    out.unshift({ mode, value: message.info.value.coins, to: message.info.dest.toRawString() });
    cell = prev;
  }
  return out;
}

test('more than 255 top-ups: one external per 255 from the gas subwallet, consecutive seqnos, each its own stage, transfers last', async (t) => {
  const sources = Array.from({ length: 300 }, (_, i) => source(i, 0n, 1_000_000n));
  const gas = { account: gasAccount, subwallet: 7000, state: state(7000, 100_000_000_000n, 0n, 5) };
  const plan = await buildJettonBatchPlan(ctx, 'usdt_ton', master, sources, gas, 0n);
  const topUps = plan.steps.filter((s) => s.id.startsWith('topup-'));
  t.deepEqual(
    topUps.map((s) => [s.stage, s.nonce]),
    [
      [1, 5n],
      [2, 6n],
    ],
  );
  t.is(outMessages(decodeStepData(topUps[0]!.unsigned.data).payloadCell).length, 255);
  t.is(outMessages(decodeStepData(topUps[1]!.unsigned.data).payloadCell).length, 45);
  t.true(plan.steps.filter((s) => s.id.startsWith('transfer-')).every((s) => s.stage === 3));
  t.is(plan.movedUnits, 300_000_000n);
});

test('a subwallet that holds its gas gets no top-up and sends the transfer value paying its fee apart; a topped-up one sends its whole balance', async (t) => {
  const rich = source(1, 2_000_000_000n, 5n, 3);
  const poor = source(2, 1_000n, 7n);
  const gas = { account: gasAccount, subwallet: 7000, state: state(7000, 1_000_000_000n, 0n, 1) };
  const plan = await buildJettonBatchPlan(ctx, 'usdt_ton', master, [rich, poor], gas, 0n);
  const topUp = outMessages(decodeStepData(plan.steps[0]!.unsigned.data).payloadCell);
  t.deepEqual(topUp, [{ mode: 1 + 2, value: JETTON_MOVE_TON - 1_000n, to: poor.state.address.toRawString() }]);
  const richOut = outMessages(decodeStepData(plan.steps.find((s) => s.id === 'transfer-1')!.unsigned.data).payloadCell);
  t.deepEqual(
    richOut.map((m) => [m.mode, m.value]),
    [[1 + 2, JETTON_TRANSFER_VALUE]],
  );
  const poorOut = outMessages(decodeStepData(plan.steps.find((s) => s.id === 'transfer-2')!.unsigned.data).payloadCell);
  t.deepEqual(
    poorOut.map((m) => [m.mode, m.value]),
    [[128 + 2, 0n]],
  );
  t.is(plan.steps.find((s) => s.id === 'transfer-1')!.nonce, 3n);
  // The transfer's data states the jetton master and the subwallet's jetton wallet, for the signer to show.
  const data = decodeStepData(plan.steps.find((s) => s.id === 'transfer-2')!.unsigned.data);
  t.true(Address.parse(data.jetton_master!).equals(master));
  t.true(Address.parse(data.jetton_wallet!).equals(poor.state.jettonWallet!));
  t.is(decodeStepData(plan.steps[0]!.unsigned.data).jetton_master, undefined);
});

test('a frozen subwallet is left out: it cannot run the external', async (t) => {
  const frozen = { ...source(4, 0n, 9n, 2), state: { ...state(4, 0n, 9n, 2), status: 'frozen' as const, deployed: false } };
  const gas = { account: gasAccount, subwallet: 7000, state: state(7000, 1_000_000_000n, 0n, 1) };
  const plan = await buildJettonBatchPlan(ctx, 'usdt_ton', master, [frozen, source(2, 0n, 7n)], gas, 0n);
  t.deepEqual(
    plan.skipped.map((s) => s.address),
    [frozen.source.address],
  );
  t.is(plan.movedUnits, 7n);
});

test('a gas subwallet that cannot pay the top-ups refuses the plan', async (t) => {
  const gas = { account: gasAccount, subwallet: 7000, state: state(7000, 10_000_000n, 0n, 1) };
  await t.throwsAsync(() => buildJettonBatchPlan(ctx, 'usdt_ton', master, [source(2, 0n, 7n)], gas, 0n), { code: 'treasury_insufficient_value' } as never);
});
