/**
 * TON payouts (issue 37) against @ton/sandbox served as toncenter v3 (test/toncenter-sandbox.ts):
 * real V5R1 wallet and TEP-74 jetton code run by the emulator. A pool subwallet pays two recipients
 * TON (one external each, seqnos consecutive, one stage each), then the same subwallet, now
 * deployed, pays as the operator's funding account (its key read from the chain) and pays jettons.
 * Steps are signed as the offline signer would (test/sign-step.ts).
 */
import test from 'ava';
import { Address, toNano } from '@ton/core';
import { mnemonicNew, mnemonicToPrivateKey, type KeyPair } from '@ton/crypto';
import {
  AppError,
  type AccountPayoutRequest,
  type AccountPlanBuild,
  type AccountSource,
  type AccountTreasury,
  type ChainAdapterDeps,
  type OperatorAccount,
} from '@gw/chain-api';
import { jettonSandbox, type JettonSandbox } from '../../test/jetton-sandbox.js';
import { signTonStep } from '../../test/sign-step.js';
import { sandboxTreasury, tonWithJetton } from '../../test/toncenter-sandbox.js';
import { tonChain } from '../index.js';
import { decodeStepData } from './ton-step-data.js';
import { TON_TRANSFER_DEPLOY_FEE, TON_TRANSFER_FEE } from './ton-fees.js';

const adapter = tonChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, tonChain.definition);

interface World extends JettonSandbox {
  keys: KeyPair;
  sources: AccountSource[];
  treasury: AccountTreasury;
  recipients: string[];
}

async function buildWorld(): Promise<World> {
  const keys = await mnemonicToPrivateKey(await mnemonicNew(24));
  const key = adapter.parseAccountKey(keys.publicKey.toString('hex'), 'testnet');
  const sources = [0, 1].map((index) => ({ address: adapter.deriveAddress(key, index).address, key, index }));
  // Recipients: other subwallets of another key (fresh addresses, non-bounceable friendly forms).
  const other = adapter.parseAccountKey((await mnemonicToPrivateKey(await mnemonicNew(24))).publicKey.toString('hex'), 'testnet');
  const recipients = [0, 1].map((i) => adapter.deriveAddress(other, i).address);
  const jettons = await jettonSandbox();
  await jettons.pay(sources[0]!.address, toNano('2'), 9_000_000n);
  await jettons.pay(sources[1]!.address, toNano('0.01'));
  await jettons.sandbox.listen();
  const { treasury } = sandboxTreasury(jettons.sandbox.url, tonWithJetton(jettons.minter));
  return { ...jettons, keys, sources, treasury, recipients };
}

const worldPromise = buildWorld();
test.after.always(async () => (await worldPromise).sandbox.close());

/** Signs and verifies every step, then sends stage by stage (each external lands before the next). */
async function signAndSend(w: World, plan: AccountPlanBuild): Promise<void> {
  const verified = plan.steps.map((step) => ({ step, v: w.treasury.verifySigned(step, signTonStep(step, w.keys.secretKey)) }));
  for (const stage of [...new Set(plan.steps.map((s) => s.stage))].sort((a, b) => a - b)) {
    await w.treasury.checkFresh(plan.steps);
    for (const { v } of verified.filter((x) => x.step.stage === stage)) {
      if (v.kind !== 'transaction') throw new Error('TON steps are transactions');
      await w.treasury.broadcast(v.tx);
    }
  }
}

const code = (error: unknown): string | undefined => (error instanceof AppError ? error.code : undefined);

test.serial('native payout to two recipients from a pool subwallet: one external each, seqnos consecutive, one stage each; amounts arrive', async (t) => {
  const w = await worldPromise;
  const amounts = [toNano('0.3'), toNano('0.125')];
  const request: AccountPayoutRequest = {
    coin: 'ton',
    from: { kind: 'deposit', source: w.sources[0]! },
    recipients: w.recipients.map((address, i) => ({ reference: `refund-${i}`, address, units: amounts[i]! })),
    operatorAccounts: {},
  };
  const plan = await w.treasury.buildPayout!(request);
  t.like(plan, { method: 'payout', coin: 'ton', rounds: 1, movedUnits: amounts[0]! + amounts[1]!, operatorPaysUnits: 0n });
  t.is(plan.feeUnits, TON_TRANSFER_DEPLOY_FEE + TON_TRANSFER_FEE);
  t.deepEqual(JSON.parse(String(plan.context['recipients'])), [
    { reference: 'refund-0', address: w.recipients[0], units: amounts[0]!.toString() },
    { reference: 'refund-1', address: w.recipients[1], units: amounts[1]!.toString() },
  ]);
  plan.steps.forEach((step, i) => {
    t.like(step, { id: `payout-${i}`, stage: i, nonce: BigInt(i), to: w.recipients[i], kind: 'transaction' });
    t.deepEqual(step.moves, { ton: amounts[i] });
    t.is(decodeStepData(step.unsigned.data).state_init === null, i > 0, 'only the first external deploys the wallet');
  });
  await signAndSend(w, plan);
  for (const [i, address] of w.recipients.entries()) t.is(await w.tonOf(address), amounts[i]!);
});

test.serial('the deployed subwallet pays as the funding account (key read from the chain) and pays jettons', async (t) => {
  const w = await worldPromise;
  const funding: OperatorAccount = { role: 'funding', address: w.sources[0]!.address, path: "m/44'/607'/0'/0'" };
  const plan = await w.treasury.buildPayout!({
    coin: 'usdt_ton',
    from: { kind: 'operator', account: funding },
    recipients: [{ reference: 'payout-a', address: w.recipients[0]!, units: 4_000_000n }],
    operatorAccounts: { funding },
  });
  t.like(plan.steps[0], { nonce: 2n, stage: 0, to: w.recipients[0], signer: { kind: 'operator', account: funding } });
  t.is(plan.operatorPaysUnits, plan.feeUnits);
  await signAndSend(w, plan);
  t.is(await w.jettonsOf(w.recipients[0]!), 4_000_000n);
  t.is(await w.jettonsOf(w.sources[0]!.address), 5_000_000n);
});

test.serial('payout refusals: more than held, fees not covered, another network, an undeployed funding subwallet, no recipient', async (t) => {
  const w = await worldPromise;
  const request = (extra: Partial<AccountPayoutRequest>): AccountPayoutRequest => ({
    coin: 'ton',
    from: { kind: 'deposit', source: w.sources[1]! },
    recipients: [{ reference: 'x', address: w.recipients[0]!, units: toNano('0.009') }],
    operatorAccounts: {},
    ...extra,
  });
  const short = await t.throwsAsync(w.treasury.buildPayout!(request({})));
  t.is(code(short), 'treasury_insufficient_value');
  t.like((short as AppError).details, { coin: 'ton' });
  const jettons = await t.throwsAsync(
    w.treasury.buildPayout!(
      request({
        coin: 'usdt_ton',
        from: { kind: 'deposit', source: w.sources[0]! },
        recipients: [{ reference: 'x', address: w.recipients[0]!, units: 6_000_000n }],
      }),
    ),
  );
  t.like((jettons as AppError).details, { coin: 'usdt_ton', needed_units: '6000000', held_units: '5000000' });
  const mainnet = Address.parse(w.recipients[0]!).toString({ testOnly: false, bounceable: false });
  t.is(
    code(await t.throwsAsync(w.treasury.buildPayout!(request({ recipients: [{ reference: 'x', address: mainnet, units: 1n }] })))),
    'treasury_wrong_network',
  );
  const undeployed: OperatorAccount = { role: 'funding', address: w.sources[1]!.address, path: "m/44'/607'/0'/1'" };
  t.is(code(await t.throwsAsync(w.treasury.buildPayout!(request({ from: { kind: 'operator', account: undeployed } })))), 'treasury_method_unavailable');
  t.is(code(await t.throwsAsync(w.treasury.buildPayout!(request({ recipients: [] })))), 'validation_error');
});
