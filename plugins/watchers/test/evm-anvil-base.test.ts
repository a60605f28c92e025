/**
 * The EVM watcher end-to-end for Base: `@foundry-rs/anvil` running with Base Sepolia's chain id
 * (84532), a gateway with `chains.enabled` including `base`, its watcher scanning anvil as
 * base/base-sepolia, and a real OpenZeppelin ERC-20 installed at Circle's Base Sepolia USDC address,
 * so chains/base's definition applies unchanged. Payments are real transactions in real blocks; the
 * reorg is anvil's `anvil_reorg`.
 */
import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { waitFor } from '@gw/kernel/testing';
import { verifyWebhook } from '@gw/webhook-verify';
import { parseEther } from 'ethers';
import type { Receiver, TestProject } from '@gw/plugin-webhooks/testing';
import { stopAll, type Anvil } from '@gw/testing';
import { startAnvilGateway, startAnvilKernel, type AnvilChain } from './anvil-kernel.js';
import { drivenByTests, watcherScenario } from './scenario.js';

/** Anvil as base/base-sepolia, its ERC-20 at Circle's Base Sepolia USDC address. */
const BASE_SEPOLIA: AnvilChain = { chainId: 84532, chain: 'base', token: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' };
let anvil: Anvil, gw: TestKernel, receiver: Receiver, project: TestProject, payer: string;

test.before(async () => {
  ({ anvil, gw, receiver, project, payer } = await startAnvilGateway('watchers-anvil-base', BASE_SEPOLIA, (anvil) => ({
    'chains.enabled': ['eth', 'base'],
    'plugins.watchers.chains': {
      base: { 'base-sepolia': { providers: [{ name: 'anvil', url: anvil.url }], startHeight: 0 } },
      // Litecoin is in the build but not enabled here: its watcher config is accepted and unused.
      ltc: { testnet: { providers: [{ name: 'unused', url: 'http://127.0.0.1:9' }] } },
    },
    ...drivenByTests(10),
  })));
});
test.after.always(() => stopAll(gw, receiver, anvil));

const { scan, invoice, get, eventsOf } = watcherScenario(() => ({ gw, project, receiver }), 'base', 'base-sepolia');

test.serial('only enabled chains are watched: base/base-sepolia is, the disabled ltc is not', (t) => {
  const { watchersRegistry, chains } = gw.kernel.cradle;
  t.truthy(watchersRegistry.get('base', 'base-sepolia'));
  t.is(watchersRegistry.get('ltc', 'testnet'), undefined);
  t.deepEqual(chains.chainIds(), ['eth', 'base']);
});

test.serial('a watcher config for a chain the build does not have stops start-up naming the key', async (t) => {
  await t.throwsAsync(startAnvilKernel(anvil, { 'plugins.watchers.chains': { doge: { main: { providers: [{ name: 'x', url: 'http://127.0.0.1:9' }] } } } }), {
    message: /plugins\.watchers\.chains\.doge: no such chain in this build/,
  });
});

test.serial("the node answers with Base Sepolia's chain id, which the invoice URIs carry", async (t) => {
  t.is(Number(BigInt((await anvil.rpc('eth_chainId', [])) as string)), BASE_SEPOLIA.chainId);
  const inv = await invoice({ coin: 'eth_base', amount_crypto: '0.1' });
  t.true(inv.payment_uri.includes(`@${BASE_SEPOLIA.chainId}`), inv.payment_uri);
});

test.serial('ETH on Base: detected at once, paid at the threshold with a signed webhook; a reorg reverts it', async (t) => {
  const inv = await invoice({ coin: 'eth_base', amount_crypto: '0.25' });
  const txHash = await anvil.sendEth(payer, inv.address, parseEther('0.25'));
  await scan();
  const detected = await get(inv.id);
  t.is(detected.status, 'detected');
  t.like(detected.transactions[0], { tx_hash: txHash, amount_units: '250000000000000000', status: 'pending' });

  await anvil.mine(inv.confirmation_threshold - 1);
  await scan();
  const paid = await get(inv.id);
  t.is(paid.status, 'paid');
  t.is(paid.confirmations, inv.confirmation_threshold);
  await waitFor(async () => eventsOf(inv.id).some((e) => e.event_type === 'invoice.paid'), 20_000);
  const paidEvent = eventsOf(inv.id).find((e) => e.event_type === 'invoice.paid')!;
  t.is(paidEvent.data.paid_units, '250000000000000000');
  t.true(verifyWebhook({ rawBody: paidEvent.raw, header: paidEvent.signature, secrets: [project.secret] }).ok);

  const blockOfTx = Number(BigInt((await anvil.receipt(txHash)).blockNumber));
  await anvil.rpc('anvil_reorg', [(await anvil.blockNumber()) - blockOfTx + 1, []]);
  const report = await scan();
  t.is(report.reorgedTo, blockOfTx - 1);
  t.is((await get(inv.id)).status, 'reverted');
});

test.serial("USDC on Base (a real ERC-20 at Circle's Base Sepolia address) reaches paid", async (t) => {
  const inv = await invoice({ coin: 'usdc_base', amount_crypto: '12.5' });
  const txHash = await anvil.sendToken(BASE_SEPOLIA.token, payer, inv.address, 12_500_000n);
  t.is(BigInt((await anvil.receipt(txHash)).status), 1n);
  await scan();
  t.is((await get(inv.id)).status, 'detected');
  await anvil.mine(inv.confirmation_threshold);
  await scan();
  const paid = await get(inv.id);
  t.is(paid.status, 'paid');
  t.like(paid.transactions[0], { tx_hash: txHash, amount_units: '12500000', status: 'confirmed' });
});
