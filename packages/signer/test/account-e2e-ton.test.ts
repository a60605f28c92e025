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
import { Address, beginCell, toNano } from '@ton/core';
import { deriveEd25519Path } from '@ton/crypto';
import type { SandboxContract, TreasuryContract } from '@ton/sandbox';
import { JettonMinter } from '@ton-community/assets-sdk/dist/jetton/JettonMinter.js';
import { JettonWallet } from '@ton-community/assets-sdk/dist/jetton/JettonWallet.js';
import { mnemonicToSeedSync } from '@scure/bip39';
import {
  accountPlanFile,
  ProviderPool,
  type AccountPlanBuild,
  type AccountSource,
  type AccountTreasury,
  type ChainAdapterDeps,
  type ChainDefinition,
  type OperatorAccount,
} from '@gw/chain-api';
import { tonChain, tonDefinition } from '@gw/chain-ton';
import { ToncenterSandbox } from '@gw/chain-ton/testing';
import { keyPairFromSeed } from '@ton/crypto';
import { parseAccountSecret } from '../src/account-keys.js';
import { checkAccountPlan, signAccountPlan } from '../src/account-sign.js';
import { MNEMONIC } from '../src/testing.js';

const network = tonDefinition.networks.testnets[0]!;
const GAS_SUBWALLET = 1000;

interface World {
  sandbox: ToncenterSandbox;
  sources: AccountSource[];
  gas: OperatorAccount;
  cold: SandboxContract<TreasuryContract>;
  minter: Address;
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

  const sandbox = await ToncenterSandbox.create(52_000_000, 1_760_000_000);
  const bc = sandbox.blockchain;
  const payer = await bc.treasury('payer');
  const issuer = await bc.treasury('issuer');
  const cold = await bc.treasury('cold');
  const minter = bc.openContract(JettonMinter.createFromConfig({ admin: issuer.address, content: beginCell().storeUint(0, 8).endCell() }));
  await sandbox.commit(() => minter.sendDeploy(issuer.getSender(), toNano('1')));
  await sandbox.commit(() => minter.sendMint(issuer.getSender(), payer.address, 100_000_000n, { value: toNano('0.2') }));
  const payerJettons = bc.openContract(JettonWallet.createFromAddress(await minter.getWalletAddress(payer.address)));
  for (const [i, s] of sources.entries()) {
    await sandbox.commit(() => payer.send({ to: Address.parse(s.address), value: toNano(1 + i), bounce: false }));
    await sandbox.commit(() =>
      payerJettons.send(payer.getSender(), Address.parse(s.address), BigInt(i + 1) * 1_000_000n, {
        notify: { amount: 1n },
        returnExcess: true,
        value: toNano('0.1'),
      }),
    );
  }
  await sandbox.commit(() => payer.send({ to: Address.parse(gas.address), value: toNano('1'), bounce: false }));
  await sandbox.listen();
  const definition: ChainDefinition = {
    ...tonDefinition,
    coins: tonDefinition.coins.map((c) =>
      c.id === 'usdt_ton' ? { ...c, contracts: { ...c.contracts, [network.id]: minter.address.toString({ testOnly: true }) } } : c,
    ),
  };
  const providers = new ProviderPool({ chain: 'ton', network: network.id, endpoints: [{ name: 'sandbox', url: sandbox.url }], timeoutMs: 10_000 });
  const treasury = tonChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, definition).createAccountTreasury!({ network, providers });
  return { sandbox, sources, gas, cold, minter: minter.address, treasury };
}

const worldPromise = buildWorld();
test.after.always(async () => (await worldPromise).sandbox.close());

const tonOf = async (w: World, address: string | Address): Promise<bigint> =>
  (await w.sandbox.blockchain.getContract(typeof address === 'string' ? Address.parse(address) : address)).balance;
async function jettonsOf(w: World, owner: string | Address): Promise<bigint> {
  const minter = w.sandbox.blockchain.openContract(JettonMinter.createFromAddress(w.minter));
  const wallet = w.sandbox.blockchain.openContract(
    JettonWallet.createFromAddress(await minter.getWalletAddress(typeof owner === 'string' ? Address.parse(owner) : owner)),
  );
  const contract = await w.sandbox.blockchain.getContract(wallet.address);
  return contract.accountState?.type === 'active' ? (await wallet.getData()).balance : 0n;
}

/** The plan's file, signed by the signer's code, every signed step verified by the treasury, then broadcast stage by stage. */
async function signVerifySend(t: import('ava').ExecutionContext, w: World, build: AccountPlanBuild): Promise<void> {
  const file = accountPlanFile(
    {
      planId: `plan-${build.method}`,
      chain: 'ton',
      network: network.id,
      coin: build.coin,
      method: build.method,
      round: 1,
      destination: build.destination,
      movedUnits: build.movedUnits,
      feeUnits: build.feeUnits,
      context: build.context,
      createdAt: new Date(),
    },
    build.steps,
  );
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
  const coldBefore = await tonOf(w, w.cold.address);
  const build = await w.treasury.build({
    coin: 'ton',
    sources: w.sources,
    destination: w.cold.address.toString({ testOnly: true, bounceable: false }),
    operatorAccounts: {},
  });
  t.is(build.method, 'native');
  t.is(build.steps.length, 3);
  await signVerifySend(t, w, build);
  for (const s of w.sources) t.is(await tonOf(w, s.address), 0n);
  t.true((await tonOf(w, w.cold.address)) - coldBefore > toNano('5.9'));
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
  for (const s of w.sources) t.is(await jettonsOf(w, s.address), 0n);
  t.is(await jettonsOf(w, w.cold.address), 6_000_000n);
});
