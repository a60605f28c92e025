/**
 * The TON account treasury against @ton/sandbox served as toncenter v3 (test/toncenter-sandbox.ts):
 * real V5R1 wallet code and real TEP-74 jetton minter/wallet code (@ton-community/assets-sdk) run
 * by the TON emulator; no recorded answers. Steps are signed here as the offline signer would, with
 * a key from a fresh TON mnemonic (@ton/crypto), through test/sign-step.ts.
 */
import test from 'ava';
import { Address, beginCell, Cell, external, loadMessage, storeMessage, toNano } from '@ton/core';
import { mnemonicNew, mnemonicToPrivateKey, type KeyPair } from '@ton/crypto';
import {
  type AccountKey,
  type AccountPlanBuild,
  type AccountSource,
  type AccountTreasury,
  type ChainAdapterDeps,
  type ChainDefinition,
  type OperatorAccount,
  type WatcherOptions,
} from '@gw/chain-api';
import { jettonSandbox, type JettonSandbox } from '../../test/jetton-sandbox.js';
import { signTonStep } from '../../test/sign-step.js';
import { sandboxTreasury, tonWithJetton } from '../../test/toncenter-sandbox.js';
import { TonTreasury, tonChain } from '../index.js';
import { decodeStepData } from './ton-step-data.js';
import { JETTON_MOVE_TON } from './build-jetton-batch.js';
import { JETTON_TRANSFER_FEE, TON_TRANSFER_DEPLOY_FEE } from './ton-fees.js';

const adapter = tonChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, tonChain.definition);
const GAS_SUBWALLET = 1000;
const TON_PAID = [toNano('1.5'), toNano('0.8'), toNano('0.02'), 0n];
const JETTONS_PAID = [0n, 25_000_000n, 7_500_000n, 1_000_000n];

interface World extends JettonSandbox {
  keys: KeyPair;
  key: AccountKey;
  sources: AccountSource[];
  gas: OperatorAccount;
  treasury: AccountTreasury;
  definition: ChainDefinition;
  options: WatcherOptions;
}

async function buildWorld(): Promise<World> {
  const keys = await mnemonicToPrivateKey(await mnemonicNew(24));
  const key = adapter.parseAccountKey(keys.publicKey.toString('hex'), 'testnet');
  const sources = [0, 1, 2, 3].map((index) => ({ address: adapter.deriveAddress(key, index).address, key, index }));
  const gasAddress = adapter.deriveAddress(key, GAS_SUBWALLET);
  const gas: OperatorAccount = { role: 'gas', address: gasAddress.address, path: gasAddress.path };

  const jettons = await jettonSandbox();
  for (const [i, s] of sources.entries()) await jettons.pay(s.address, TON_PAID[i]!, JETTONS_PAID[i]!);
  await jettons.pay(gas.address, toNano('1'));
  await jettons.sandbox.listen();
  const definition = tonWithJetton(jettons.minter);
  const { treasury, options } = sandboxTreasury(jettons.sandbox.url, definition);
  return { ...jettons, keys, key, sources, gas, treasury, definition, options };
}

const worldPromise = buildWorld();
test.after.always(async () => (await worldPromise).sandbox.close());

const coldText = (w: World) => w.cold.address.toString({ testOnly: true, bounceable: false });

/** Signs, verifies and broadcasts a plan stage by stage (each stage's transactions land before the next is sent). */
async function signAndSend(w: World, plan: AccountPlanBuild): Promise<string[]> {
  const verified = plan.steps.map((step) => ({ step, tx: w.treasury.verifySigned(step, signTonStep(step, w.keys.secretKey)) }));
  await w.treasury.checkFresh(plan.steps);
  const txids: string[] = [];
  const stages = [...new Set(plan.steps.map((s) => s.stage))].sort((a, b) => a - b);
  for (const stage of stages) {
    // A plan resumed after some stages landed is still fresh: those externals are its own.
    await w.treasury.checkFresh(plan.steps);
    for (const { tx } of verified.filter((v) => v.step.stage === stage)) {
      if (tx.kind !== 'transaction') throw new Error('TON steps are transactions');
      txids.push(await w.treasury.broadcast(tx.tx));
    }
  }
  return txids;
}

test.serial('holdings: TON and jetton balances per subwallet, seqno 0 while undeployed, gas each jetton lacks, dust', async (t) => {
  const w = await worldPromise;
  const holdings = await w.treasury.holdings(w.sources.map((s) => s.address));
  for (const [i, s] of w.sources.entries()) {
    const h = holdings.get(s.address)!;
    t.is(h.nonce, 0n);
    // A jetton payment forwards 1 nanoton with its notification (which an undeployed wallet's storage fee may take).
    t.true(h.balances['ton']! >= TON_PAID[i]! && h.balances['ton']! <= TON_PAID[i]! + 1n, `ton of ${i}`);
    t.is(h.balances['usdt_ton'], JETTONS_PAID[i]);
    const token = h.tokens.find((k) => k.coin === 'usdt_ton')!;
    t.is(token.dust, JETTONS_PAID[i] === 0n);
    t.is(token.moveCostUnits, JETTON_TRANSFER_FEE);
    t.is(token.gasLackingUnits, h.balances['ton']! >= JETTON_MOVE_TON ? 0n : JETTON_MOVE_TON - h.balances['ton']!);
    t.is(h.nativeMoveCostUnits, TON_TRANSFER_DEPLOY_FEE);
  }
  t.is(holdings.get(w.sources[1]!.address)!.tokens[0]!.gasLackingUnits, 0n);
  t.true(holdings.get(w.sources[2]!.address)!.tokens[0]!.gasLackingUnits > 0n);
});

test.serial('native: each subwallet sends its whole balance; the subwallets end at zero and the destination gets the sum less real fees', async (t) => {
  const w = await worldPromise;
  const before = await Promise.all(w.sources.map((s) => w.tonOf(s.address)));
  const coldBefore = await w.tonOf(w.cold.address);
  const plan = await w.treasury.build({ coin: 'ton', sources: w.sources, destination: coldText(w), operatorAccounts: {} });
  t.is(plan.method, 'native');
  // Subwallet 3 holds only the 1 nanoton of its jetton notification: not worth its fee.
  t.deepEqual(
    plan.skipped.map((s) => s.address),
    [w.sources[3]!.address],
  );
  t.deepEqual(
    plan.steps.map((s) => [s.id, s.stage, s.nonce]),
    [
      ['transfer-0', 1, 0n],
      ['transfer-1', 1, 0n],
      ['transfer-2', 1, 0n],
    ],
  );
  // Undeployed subwallets: the first external carries the StateInit.
  t.true(plan.steps.every((s) => decodeStepData(s.unsigned.data).state_init !== null));

  const txids = await signAndSend(w, plan);
  for (const i of [0, 1, 2]) t.is(await w.tonOf(w.sources[i]!.address), 0n, `subwallet ${i} drained`);
  const received = (await w.tonOf(w.cold.address)) - coldBefore;
  const sent = before[0]! + before[1]! + before[2]!;
  t.true(received < sent);
  // The destination pays its own gas for each incoming message (0.00012 TON here): not the plan's fee.
  const destinationGas = 3n * 200_000n;
  t.true(sent - received - destinationGas <= plan.feeUnits, `fees ${sent - received} within the plan's ${plan.feeUnits}`);
  t.true(received + destinationGas >= plan.movedUnits, 'the estimate never promises more than arrives');

  const state = await w.treasury.transaction(txids[0]!);
  t.truthy(state);
  t.true(state!.confirmations >= 1);
  // Broadcasting again is idempotent: the external is on chain, its seqno is past.
  const again = w.treasury.verifySigned(plan.steps[0]!, signTonStep(plan.steps[0]!, w.keys.secretKey));
  t.is(await w.treasury.broadcast((again as { tx: { txid: string; hex: string } }).tx), txids[0]!);
  // Every seqno moved on, by the plan's own externals: not stale.
  await t.notThrowsAsync(() => w.treasury.checkFresh(plan.steps));
});

test.serial('jetton_batch: one top-up external from the gas subwallet, then each subwallet sends its jettons; balances end at zero', async (t) => {
  const w = await worldPromise;
  const coldJettons = await w.jettonsOf(w.cold.address);
  const gasBefore = await w.tonOf(w.gas.address);
  const plan = await w.treasury.build({ coin: 'usdt_ton', sources: w.sources, destination: coldText(w), operatorAccounts: { gas: w.gas } });
  t.is(plan.method, 'jetton_batch');
  t.is(plan.movedUnits, 25_000_000n + 7_500_000n + 1_000_000n);
  t.deepEqual(
    plan.skipped.map((s) => s.address),
    [w.sources[0]!.address],
  );
  t.deepEqual(
    plan.steps.map((s) => [s.id, s.stage, s.nonce]),
    [
      ['topup-0', 1, 0n],
      ['transfer-1', 2, 1n],
      ['transfer-2', 2, 1n],
      ['transfer-3', 2, 0n],
    ],
  );
  const topUp = plan.steps[0]!;
  t.is(topUp.signer.kind, 'operator');
  t.is(topUp.to.split(',').length, 3);
  t.not(decodeStepData(topUp.unsigned.data).state_init, null, 'the undeployed gas subwallet deploys with its top-up');
  t.not(decodeStepData(plan.steps[3]!.unsigned.data).state_init, null, 'subwallet 3 was never deployed');
  t.is(decodeStepData(plan.steps[1]!.unsigned.data).state_init, null);
  const quotes = await w.treasury.quote({ coin: 'usdt_ton', sources: w.sources, destination: coldText(w), operatorAccounts: { gas: w.gas } });
  t.like(quotes[0], { method: 'jetton_batch', available: true, sources: 3, steps: 4, rounds: 1 });
  const noGas = await w.treasury.quote({ coin: 'usdt_ton', sources: w.sources, destination: coldText(w), operatorAccounts: {} });
  t.like(noGas[0], { method: 'jetton_batch', available: false });
  t.regex(noGas[0]!.reason!, /gas subwallet/);
  await t.throwsAsync(() => w.treasury.build({ coin: 'usdt_ton', sources: w.sources, destination: coldText(w), method: 'native', operatorAccounts: {} }), {
    code: 'treasury_method_unavailable',
  } as never);
  await t.throwsAsync(
    () => w.treasury.build({ coin: 'ton', sources: w.sources, destination: w.cold.address.toString({ testOnly: false }), operatorAccounts: {} }),
    {
      code: 'treasury_wrong_network',
    } as never,
  );

  await signAndSend(w, plan);
  for (const i of [0, 1, 2, 3]) {
    t.is(await w.jettonsOf(w.sources[i]!.address), 0n, `jettons of ${i}`);
    t.true((await w.tonOf(w.sources[i]!.address)) < toNano('0.001'), `TON of ${i} near zero`);
  }
  t.is((await w.jettonsOf(w.cold.address)) - coldJettons, plan.movedUnits);
  const gasSpent = gasBefore - (await w.tonOf(w.gas.address));
  t.true(gasSpent > 0n && gasSpent <= plan.operatorPaysUnits, `the gas subwallet spent ${gasSpent}, planned ${plan.operatorPaysUnits}`);
});

test.serial('a tampered signed external is refused; a signature by another key is refused; a stale seqno is refused before signing', async (t) => {
  const w = await worldPromise;
  await w.pay(w.sources[0]!.address, toNano('2'));
  const plan = await w.treasury.build({ coin: 'ton', sources: [w.sources[0]!], destination: coldText(w), operatorAccounts: {} });
  const step = plan.steps[0]!;

  // Same wallet, same seqno, but the payload says something else (sent elsewhere), validly signed.
  const other = await w.treasury.build({ coin: 'ton', sources: [w.sources[0]!], destination: w.gas.address, operatorAccounts: {} });
  t.throws(() => w.treasury.verifySigned(step, signTonStep(other.steps[0]!, w.keys.secretKey)), { code: 'treasury_signed_mismatch' } as never);

  // The step's payload signed by another key.
  const stranger = await mnemonicToPrivateKey(await mnemonicNew(24));
  t.throws(() => w.treasury.verifySigned(step, signTonStep(step, stranger.secretKey)), { code: 'treasury_signed_incomplete' } as never);

  // A bit flipped in the signed body.
  const good = loadMessage(Cell.fromBase64(signTonStep(step, w.keys.secretKey)).beginParse());
  const bits = good.body.beginParse();
  const flipped = beginCell().storeBit(!bits.loadBit()).storeSlice(bits).endCell();
  const tampered = beginCell()
    .store(storeMessage(external({ to: good.info.dest as Address, init: good.init ?? undefined, body: flipped })))
    .endCell();
  t.throws(() => w.treasury.verifySigned(step, tampered.toBoc().toString('base64')), { code: 'treasury_signed_mismatch' } as never);
  t.throws(() => w.treasury.verifySigned(step, 'not a boc'), { code: 'treasury_signed_unreadable' } as never);

  // The subwallet sends another external (the destination-elsewhere plan) before this one: stale.
  await signAndSend(w, other);
  await t.throwsAsync(() => w.treasury.checkFresh(plan.steps), { code: 'treasury_nonce_stale', message: /another external used it/ } as never);
  // Nor one about to outlive its valid_until (a week after planning).
  const validUntil = decodeStepData(step.unsigned.data).valid_until;
  const later = new TonTreasury(w.definition, w.options, { now: () => validUntil - 60 });
  await t.throwsAsync(() => later.checkFresh(plan.steps), { code: 'treasury_nonce_stale', message: /expires/ } as never);
  // Nor is a plan fresh whose wallet is behind it (a seqno that was never reached).
  const ahead = { ...step, unsigned: { ...step.unsigned, data: step.unsigned.data.replace(/"seqno":\d+/, '"seqno":9') } };
  await t.throwsAsync(() => w.treasury.checkFresh([ahead]), { code: 'treasury_nonce_stale', message: /plan signed seqno 9/ } as never);
});
