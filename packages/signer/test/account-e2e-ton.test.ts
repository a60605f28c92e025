/**
 * End to end on TON (issue 36): the REAL TonTreasury (@gw/chain-ton) builds native and jetton_batch
 * plans against @ton/sandbox served as toncenter v3 (chains/ton/test/toncenter-sandbox.ts: real V5R1
 * wallet code, real TEP-74 jetton code run by the TON emulator), `accountPlanFile` (@gw/chain-api)
 * writes each plan's file, the signer's own code (`checkAccountPlan`, `signAccountPlan`: what
 * `gateway-signer sign` runs) signs it from the BIP 39 test mnemonic (SLIP-10 m/44'/607'/0', the one
 * key behind every subwallet), the treasury verifies every signed step and broadcasts it; the
 * balances move on the sandbox.
 */
import test from 'ava';
import { toNano } from '@ton/core';
import { deriveEd25519Path } from '@ton/crypto';
import { mnemonicToSeedSync } from '@scure/bip39';
import { type AccountPlanBuild, type AccountSource, type AccountTreasury, type ChainAdapterDeps, type OperatorAccount } from '@gw/chain-api';
import { tonChain, tonDefinition } from '@gw/chain-ton';
import { jettonSandbox, type JettonSandbox } from '@gw/chain-ton/testing/jettons';
import { sandboxTreasury, tonWithJetton } from '@gw/chain-ton/testing';
import { keyPairFromSeed } from '@ton/crypto';
import { parseAccountSecret } from '../src/account-keys.js';
import { checkAccountPlan, signAccountPlan } from '../src/account-sign.js';
import { planFileOf } from '../src/account-testing.js';
import { MNEMONIC } from '../src/testing.js';

const network = tonDefinition.networks.testnets[0]!;
const GAS_SUBWALLET = 1000;

interface World extends JettonSandbox {
  sources: AccountSource[];
  gas: OperatorAccount;
  treasury: AccountTreasury;
}

async function buildWorld(): Promise<World> {
  // The operator registers the public key of SLIP-10 m/44'/607'/0' of the mnemonic; subwallet i is receive index i.
  const keys = keyPairFromSeed(await deriveEd25519Path(Buffer.from(mnemonicToSeedSync(MNEMONIC)), [44, 607, 0]));
  const adapter = tonChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, tonChain.definition);
  const key = adapter.parseAccountKey(keys.publicKey.toString('hex'), 'testnet');
  const sources = [0, 1, 2].map((index) => ({ address: adapter.deriveAddress(key, index).address, key, index }));
  const gasAddress = adapter.deriveAddress(key, GAS_SUBWALLET);
  const gas: OperatorAccount = { role: 'gas', address: gasAddress.address, path: gasAddress.path };

  const jettons = await jettonSandbox();
  for (const [i, s] of sources.entries()) await jettons.pay(s.address, toNano(1 + i), BigInt(i + 1) * 1_000_000n);
  await jettons.pay(gas.address, toNano('1'));
  await jettons.sandbox.listen();
  const { treasury } = sandboxTreasury(jettons.sandbox.url, tonWithJetton(jettons.minter));
  return { ...jettons, sources, gas, treasury };
}

const worldPromise = buildWorld();
test.after.always(async () => (await worldPromise).sandbox.close());

/** The plan's file, signed by the signer's code, every signed step verified by the treasury, then broadcast stage by stage. */
async function signVerifySend(t: import('ava').ExecutionContext, w: World, build: AccountPlanBuild): Promise<void> {
  const file = planFileOf(build, 'ton', network.id);
  const secret = await parseAccountSecret(MNEMONIC, '');
  // A top-up batch names its subwallets in `to`; one more address than its messages go to is refused.
  const batch = file.steps.find((s) => s.to.includes(','));
  if (batch) {
    const tampered = { ...file, steps: file.steps.map((s) => (s === batch ? { ...s, to: `${s.to},${build.destination}` } : s)) };
    t.is(t.throws(() => checkAccountPlan(JSON.parse(JSON.stringify(tampered)), secret, { allowUnlistedTokens: [w.minter.toString()] }))?.name, 'SignerError');
  }
  // The sandbox's own jetton: a master the signer does not list, allowed as --allow-unlisted-token would.
  const checked = checkAccountPlan(JSON.parse(JSON.stringify(file)), secret, { allowUnlistedTokens: [w.minter.toString()] });
  const signed = signAccountPlan(checked);
  const verified = build.steps.map((step, i) => {
    t.is(signed.signed[i]!.id, step.id);
    return { step, verified: w.treasury.verifySigned(step, signed.signed[i]!.signed) };
  });
  await w.treasury.checkFresh(build.steps);
  for (const stage of [...new Set(build.steps.map((s) => s.stage))].sort((a, b) => a - b)) {
    for (const { verified: v } of verified.filter((x) => x.step.stage === stage)) {
      if (v.kind !== 'transaction') throw new Error('TON steps are transactions');
      await w.treasury.broadcast(v.tx);
    }
  }
}

test.serial('TON native: TonTreasury builds, the signer signs, verifySigned accepts, the sandbox moves the coins', async (t) => {
  const w = await worldPromise;
  const coldBefore = await w.tonOf(w.cold.address);
  const build = await w.treasury.build({
    coin: 'ton',
    sources: w.sources,
    destination: w.cold.address.toString({ testOnly: true, bounceable: false }),
    operatorAccounts: {},
  });
  t.is(build.method, 'native');
  t.is(build.steps.length, 3);
  await signVerifySend(t, w, build);
  for (const s of w.sources) t.is(await w.tonOf(s.address), 0n);
  t.true((await w.tonOf(w.cold.address)) - coldBefore > toNano('5.9'));
});

test.serial('TON jetton_batch: TonTreasury builds, the signer signs, verifySigned accepts, the sandbox moves the jettons', async (t) => {
  const w = await worldPromise;
  // The native sweep drained the subwallets: the gas subwallet tops them up in stage 1.
  const build = await w.treasury.build({
    coin: 'usdt_ton',
    sources: w.sources,
    destination: w.cold.address.toString({ testOnly: true, bounceable: false }),
    operatorAccounts: { gas: w.gas },
  });
  t.is(build.method, 'jetton_batch');
  t.is(build.movedUnits, 6_000_000n);
  t.true(build.steps.some((s) => s.to.split(',').length === 3));
  await signVerifySend(t, w, build);
  for (const s of w.sources) t.is(await w.jettonsOf(s.address), 0n);
  t.is(await w.jettonsOf(w.cold.address), 6_000_000n);
});

test.serial(
  'TON payout: the gas subwallet (deployed by its top-ups) pays two recipients as the funding account; the signer signs, the sandbox pays them',
  async (t) => {
    const w = await worldPromise;
    const funding: OperatorAccount = { ...w.gas, role: 'funding' };
    // Fresh subwallets (nothing there yet): a non-bounceable payment stays there whole.
    const adapter = tonChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, tonChain.definition);
    const recipients = [50, 51].map((i) => adapter.deriveAddress(w.sources[0]!.key, i).address);
    const before = await Promise.all(recipients.map((r) => w.tonOf(r)));
    const build = await w.treasury.buildPayout!({
      coin: 'ton',
      from: { kind: 'operator', account: funding },
      recipients: recipients.map((address, i) => ({ reference: `p${i}`, address, units: toNano('0.05') * BigInt(i + 1) })),
      operatorAccounts: { funding },
    });
    t.deepEqual(
      build.steps.map((s) => s.stage),
      [0, 1],
    );
    await signVerifySend(t, w, build);
    for (const [i, r] of recipients.entries()) t.is((await w.tonOf(r)) - before[i]!, toNano('0.05') * BigInt(i + 1));
  },
);
