import { CLI_ACTOR, type ChainId, type ChainWatcher, type ObservedTransfer, type WatchedAddresses } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { Anvil, stopAll } from '@gw/testing';
import { projectWithPools, Receiver, type TestProject } from '@gw/plugin-webhooks/testing';
import { startWatchersKernel, watchedProject } from './scenario.js';
import type { ScanTarget } from '../src/index.js';

/**
 * A gateway kernel (role `all`, every chain, fixed rates) on a fresh database whose watchers scan
 * `anvil` as eth/sepolia from block 0; `config` adds or overrides dotted keys.
 */
export function startAnvilKernel(anvil: Anvil, config: Record<string, unknown> = {}): Promise<TestKernel> {
  return startWatchersKernel({ eth: { sepolia: { providers: [{ name: 'anvil', url: anvil.url }], startHeight: 0 } } }, config);
}

/**
 * What an anvil end-to-end test pays into: a testnet project of a new operator named `operator`
 * with a verified wallet and pool on `chain`, its webhook URL at `receiver`'s `/hooks`, and the
 * payer (anvil's first account) holding 10^12 base units of a real ERC-20 installed at `token`.
 */
export async function anvilProject(
  gw: TestKernel,
  anvil: Anvil,
  receiver: Receiver,
  options: { operator: string; chain: ChainId; token: string },
): Promise<{ project: TestProject; payer: string }> {
  const project = await watchedProject(gw, receiver, options.operator, options.chain);
  const payer = (await anvil.accounts())[0]!;
  await anvil.installErc20(options.token, payer, 10n ** 12n);
  return { project, payer };
}

/** What an anvil end-to-end test runs against: the node, a gateway scanning it, a webhook receiver, the project paid into and its payer. */
export interface AnvilGateway {
  readonly anvil: Anvil;
  readonly gw: TestKernel;
  readonly receiver: Receiver;
  readonly project: TestProject;
  readonly payer: string;
}

/** The chain an anvil node stands in for: its chain id, the gateway's chain and the address a real ERC-20 is installed at. */
export interface AnvilChain {
  readonly chainId: number;
  readonly chain: ChainId;
  readonly token: string;
}

/** Anvil as eth/sepolia, its ERC-20 at Circle's Sepolia USDC address. */
export const ETH_SEPOLIA: AnvilChain = { chainId: 11155111, chain: 'eth', token: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238' };

/**
 * Starts anvil as `on`, a webhook receiver and a gateway scanning the node (`startAnvilKernel` with
 * `config`, or with what `config` makes of the started node), then makes the `anvilProject` of a new
 * operator named `operator`. What started is stopped again when a later step fails.
 */
export async function startAnvilGateway(
  operator: string,
  on: AnvilChain,
  config: Record<string, unknown> | ((anvil: Anvil) => Record<string, unknown>),
): Promise<AnvilGateway> {
  const anvil = await Anvil.start(on.chainId);
  let receiver: Receiver | undefined;
  let gw: TestKernel | undefined;
  try {
    receiver = await Receiver.start();
    gw = await startAnvilKernel(anvil, typeof config === 'function' ? config(anvil) : config);
    return { anvil, gw, receiver, ...(await anvilProject(gw, anvil, receiver, { operator, chain: on.chain, token: on.token })) };
  } catch (error) {
    await stopAll(gw, receiver, anvil);
    throw error;
  }
}

/**
 * A testnet project with ETH pools of a new operator named `operator` (no webhook URL) on a gateway
 * scanning `anvil`, and the payer: anvil's first account.
 */
export async function anvilPoolProject(gw: TestKernel, anvil: Anvil, operator: string): Promise<{ project: TestProject; payer: string }> {
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create(operator, CLI_ACTOR)).id;
  const project = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  return { project, payer: (await anvil.accounts())[0]! };
}

/** The eth/sepolia target of `gw` with `mempool` added to its (real) watcher, as an Esplora provider has one. */
export function sepoliaWithMempool(gw: TestKernel, mempool: (watched: WatchedAddresses) => Promise<ObservedTransfer[]>): ScanTarget {
  const target = gw.kernel.cradle.watchersRegistry.get('eth', 'sepolia')!;
  const real = target.watcher;
  const watcher: ChainWatcher = {
    head: () => real.head(),
    scan: (from, to, watched) => real.scan(from, to, watched),
    blockHash: (height) => real.blockHash(height),
    maxBlocksPerScan: real.maxBlocksPerScan,
    mempool,
  };
  return { ...target, watcher };
}

/** An ETH transfer to `toAddress` seen only in a sepolia mempool (no block yet), as a mempool provider reports one. */
export function unminedSepoliaTransfer(txHash: string, toAddress: string, amountUnits: bigint): ObservedTransfer {
  return {
    chain: 'eth',
    network: 'sepolia',
    coin: 'eth',
    txHash,
    outputIndex: 0,
    toAddress,
    amountUnits,
    blockHeight: null,
    blockHash: null,
    observedAt: new Date(),
  };
}
