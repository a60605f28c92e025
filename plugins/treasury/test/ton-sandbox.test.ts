/**
 * TON account plans through the treasury plugin (issue 36), on real PostgreSQL and @ton/sandbox
 * served as toncenter v3 (chains/ton/test/toncenter-sandbox.ts: real V5R1 wallet and TEP-74 jetton
 * code run by the TON emulator). TON and a jetton are sent to three subwallets (pool addresses) of
 * one key, which the watchers record; holdings, quote and sweeps (native, jetton_batch) go through
 * the REST API; plan files are signed by the real `gateway-signer` (packages/signer) run as a
 * process, imported, broadcast and tracked stage by stage by the plugin's track job.
 */
import test from 'ava';
import { Address, beginCell, toNano } from '@ton/core';
import { deriveEd25519Path, keyPairFromSeed, sign } from '@ton/crypto';
import type { SandboxContract, TreasuryContract } from '@ton/sandbox';
import { JettonMinter } from '@ton-community/assets-sdk/dist/jetton/JettonMinter.js';
import { JettonWallet } from '@ton-community/assets-sdk/dist/jetton/JettonWallet.js';
import { mnemonicToSeedSync } from '@scure/bip39';
import { CLI_ACTOR, defineChain, type ChainAdapterDeps } from '@gw/kernel';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { tonChain, tonDefinition, tonSignDataHash } from '@gw/chain-ton';
import { ToncenterSandbox, tonWithJetton } from '@gw/chain-ton/testing';
import { FAST_RETRIES, FIXED_RATES, MNEMONIC, stopAll } from '@gw/testing';
import { watchersPlugin } from '@gw/plugin-watchers';
import { WEBHOOK_PLUGINS } from '@gw/plugin-webhooks/testing';
import { treasuryPlugin } from '../src/index.js';
import { signOffline, treasuryApi } from './treasury-helpers.js';
import { scanOnce } from '@gw/plugin-watchers/testing';

const network = tonDefinition.networks.testnets[0]!;
const GAS_SUBWALLET = 1000;
const adapter = tonChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, tonChain.definition);

let sandbox: ToncenterSandbox;
let gw: TestKernel;
let token: string;
let minter: Address;
let cold: SandboxContract<TreasuryContract>;
let payer: SandboxContract<TreasuryContract>;
let sources: string[];
let destination: string;

test.before(async () => {
  // The operator's key: SLIP-10 m/44'/607'/0' of the test mnemonic, the one key behind every subwallet.
  const keys = keyPairFromSeed(await deriveEd25519Path(Buffer.from(mnemonicToSeedSync(MNEMONIC)), [44, 607, 0]));
  const publicKey = keys.publicKey.toString('hex');
  const key = adapter.parseAccountKey(publicKey, 'testnet');
  const gasAddress = adapter.deriveAddress(key, GAS_SUBWALLET);

  sandbox = await ToncenterSandbox.create(52_000_000, 1_760_000_000);
  const bc = sandbox.blockchain;
  payer = await bc.treasury('payer');
  const issuer = await bc.treasury('issuer');
  cold = await bc.treasury('cold');
  destination = cold.address.toString({ testOnly: true, bounceable: false });
  const jettonMinter = bc.openContract(JettonMinter.createFromConfig({ admin: issuer.address, content: beginCell().storeUint(0, 8).endCell() }));
  minter = jettonMinter.address;
  await sandbox.commit(() => jettonMinter.sendDeploy(issuer.getSender(), toNano('1')));
  await sandbox.commit(() => jettonMinter.sendMint(issuer.getSender(), payer.address, 100_000_000n, { value: toNano('0.2') }));
  await sandbox.commit(() => payer.send({ to: Address.parse(gasAddress.address), value: toNano('1'), bounce: false }));
  await sandbox.listen();

  // The sandbox's jetton as `usdt_ton` on the testnet.
  const definition = tonWithJetton(minter);
  gw = await startTestKernel({
    plugins: [...WEBHOOK_PLUGINS, watchersPlugin, treasuryPlugin],
    chains: [defineChain({ definition, createAdapter: tonChain.createAdapter })],
    role: 'gateway',
    config: {
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': { TON: FIXED_RATES.TON, USDT: FIXED_RATES.USDT },
      'plugins.watchers.chains': {
        ton: { [network.id]: { providers: [{ name: 'sandbox', url: sandbox.url }], startHeight: sandbox.blocks.at(-1)!.seqno + 1 } },
      },
      'plugins.address-pool.targetFree': 5,
      'plugins.address-pool.hardCap': 5,
      ...FAST_RETRIES,
      'plugins.treasury.networks': { ton: { [network.id]: { operatorAccounts: { gas: { address: gasAddress.address, path: gasAddress.path } } } } },
      'plugins.treasury.trackCron': '0 0 1 1 *',
      'plugins.treasury.reconcileCron': '0 0 1 1 *',
    },
  });
  const cradle = gw.kernel.cradle;
  const operatorId = (await cradle.tenancyOperators.create('ton-shop', CLI_ACTOR)).id;
  const projectId = (await cradle.tenancyProjects.create({ name: 'ton-shop', kind: 'testnet', operator: operatorId }, CLI_ACTOR)).project.id;
  const { challenge } = await cradle.walletsWallets.register({ projectId, chain: 'ton', xpub: publicKey }, CLI_ACTOR);
  // Ownership proof: TON Connect signData by subwallet 0, as wallet software makes it.
  const wallet = Address.parse(adapter.deriveAddress(key, 0).address);
  const timestamp = Math.floor(Date.now() / 1000);
  const domain = 'operator.example';
  const signature = sign(tonSignDataHash(wallet, domain, timestamp, challenge.message), keys.secretKey).toString('base64');
  await cradle.walletsWallets.verify(
    {
      projectId,
      chain: 'ton',
      signature: JSON.stringify({ signature, address: wallet.toRawString(), timestamp, domain, payload: { type: 'text', text: challenge.message } }),
    },
    CLI_ACTOR,
  );
  await cradle.addressPoolReplenisher.replenish({ projectId });
  const rows = await cradle.db('address_pool_addresses').where({ project_id: projectId, chain: 'ton' }).orderBy('derivation_index').select('address');
  sources = rows.slice(0, 3).map((r: { address: string }) => r.address);
  token = (await cradle.tenancyPats.create({ scopes: ['treasury:read', 'treasury:write'], operator: operatorId }, CLI_ACTOR)).token;
});
test.after.always(() => stopAll(gw, sandbox));

const api = treasuryApi(
  () => gw,
  () => token,
);
const ACCOUNTS = '/api/v1/treasury/accounts';
const tonOf = async (address: string | Address): Promise<bigint> =>
  (await sandbox.blockchain.getContract(typeof address === 'string' ? Address.parse(address) : address)).balance;
async function jettonsOf(owner: string | Address): Promise<bigint> {
  const master = sandbox.blockchain.openContract(JettonMinter.createFromAddress(minter));
  const wallet = sandbox.blockchain.openContract(
    JettonWallet.createFromAddress(await master.getWalletAddress(typeof owner === 'string' ? Address.parse(owner) : owner)),
  );
  const contract = await sandbox.blockchain.getContract(wallet.address);
  return contract.accountState?.type === 'active' ? (await wallet.getData()).balance : 0n;
}

/** The plan's file signed by gateway-signer, imported, broadcast, then tracked (each next stage sent by the track job) until it leaves `broadcast`. */
async function signBroadcastTrack(planId: string): Promise<any> {
  const file = await api('GET', `${ACCOUNTS}/plans/${planId}/file`);
  if (file.status !== 200) throw new Error(JSON.stringify(file.body));
  const { signed } = await signOffline(file.body, { allowUnlistedTokens: [minter.toString()] });
  const imported = await api('POST', `${ACCOUNTS}/plans/${planId}/signed`, { signed });
  if (imported.status !== 200) throw new Error(JSON.stringify(imported.body));
  const sent = await api('POST', `${ACCOUNTS}/plans/${planId}/broadcast`);
  if (sent.status !== 200) throw new Error(JSON.stringify(sent.body));
  for (let i = 0; i < 20; i++) {
    await scanOnce(gw, 'ton', network.id);
    await gw.kernel.cradle.treasuryAccountBroadcaster.track();
    const plan = (await api('GET', `${ACCOUNTS}/plans/${planId}`)).body;
    if (plan.status !== 'broadcast') return plan;
  }
  throw new Error('plan not settled');
}

test.serial(
  'TON and a jetton paid to three subwallets: holdings, quote, and sweeps (native, jetton_batch) signed by gateway-signer move everything to the destination',
  async (t) => {
    const master = sandbox.blockchain.openContract(JettonMinter.createFromAddress(minter));
    const payerJettons = sandbox.blockchain.openContract(JettonWallet.createFromAddress(await master.getWalletAddress(payer.address)));
    for (const [i, address] of sources.entries()) {
      await sandbox.commit(() => payer.send({ to: Address.parse(address), value: toNano(1 + i), bounce: false }));
      await sandbox.commit(() =>
        payerJettons.send(payer.getSender(), Address.parse(address), BigInt(i + 1) * 1_000_000n, {
          notify: { amount: 1n },
          returnExcess: true,
          value: toNano('0.1'),
        }),
      );
    }
    await scanOnce(gw, 'ton', network.id);

    const holdings = await api('GET', `${ACCOUNTS}/holdings?chain=ton&network=${network.id}`);
    t.is(holdings.status, 200, JSON.stringify(holdings.body));
    for (const [i, address] of sources.entries()) {
      const h = holdings.body.holdings.find((x: any) => x.address === address);
      t.truthy(h, `${address} in ${JSON.stringify(holdings.body)}`);
      t.is(h?.balances.usdt_ton, (BigInt(i + 1) * 1_000_000n).toString());
    }

    const quote = await api('POST', `${ACCOUNTS}/quote`, { chain: 'ton', network: network.id, coin: 'usdt_ton', destination });
    t.is(quote.status, 200, JSON.stringify(quote.body));
    t.is(quote.body.sources, 3);
    t.true(
      quote.body.quotes.some((q: any) => q.method === 'jetton_batch' && q.available && q.moved_units === '6000000'),
      JSON.stringify(quote.body),
    );

    // The jettons first: the subwallets still hold the TON their transfers need.
    const jettonPlan = await api('POST', `${ACCOUNTS}/plans`, { chain: 'ton', network: network.id, coin: 'usdt_ton', destination, method: 'jetton_batch' });
    t.is(jettonPlan.status, 201, JSON.stringify(jettonPlan.body));
    const jettonDone = await signBroadcastTrack(jettonPlan.body.id);
    t.is(jettonDone.status, 'confirmed', JSON.stringify(jettonDone));
    for (const address of sources) t.is(await jettonsOf(address), 0n);
    t.is(await jettonsOf(cold.address), 6_000_000n);

    const coldBefore = await tonOf(cold.address);
    const nativePlan = await api('POST', `${ACCOUNTS}/plans`, { chain: 'ton', network: network.id, coin: 'ton', destination, method: 'native' });
    t.is(nativePlan.status, 201, JSON.stringify(nativePlan.body));
    const nativeDone = await signBroadcastTrack(nativePlan.body.id);
    t.is(nativeDone.status, 'confirmed', JSON.stringify(nativeDone));
    for (const address of sources) t.is(await tonOf(address), 0n);
    t.true((await tonOf(cold.address)) - coldBefore > toNano('5'), 'the destination received the TON');

    // More jettons at the drained subwallets: the gas subwallet tops them up in stage 1, the track job sends the transfers after.
    for (const address of sources.slice(0, 2)) {
      await sandbox.commit(() =>
        payerJettons.send(payer.getSender(), Address.parse(address), 2_500_000n, { notify: { amount: 1n }, returnExcess: true, value: toNano('0.1') }),
      );
    }
    await scanOnce(gw, 'ton', network.id);
    const topUp = await api('POST', `${ACCOUNTS}/plans`, { chain: 'ton', network: network.id, coin: 'usdt_ton', destination, method: 'jetton_batch' });
    t.is(topUp.status, 201, JSON.stringify(topUp.body));
    t.true(new Set(topUp.body.steps.map((s: any) => s.stage)).size > 1, 'a top-up stage before the transfers');
    const topUpDone = await signBroadcastTrack(topUp.body.id);
    t.is(topUpDone.status, 'confirmed', JSON.stringify(topUpDone));
    for (const address of sources) t.is(await jettonsOf(address), 0n);
    t.is(await jettonsOf(cold.address), 11_000_000n);
  },
);
