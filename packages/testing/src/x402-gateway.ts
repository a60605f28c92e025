import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_ACTOR, defineChain, type AnyPlugin, type ChainModule, type KernelRole } from '@gw/kernel';
import { freePort, startTestKernel, type TestDatabase, type TestKernel } from '@gw/kernel/testing';
import { createEvmAdapter } from '@gw/chain-evm';
import { getAddress, id as eventTopic, toBeHex, Wallet, zeroPadValue } from 'ethers';
import { ALL_CHAINS, FIXED_RATES } from './chains.js';
import { EvmTreasuryChain } from './evm-treasury-chain.js';
import { projectWithPools, type TestProject } from './projects.js';
import { FAST_RETRIES } from './webhooks.js';

/** An EVM account of a test: its checksummed address and its private key (0x and 64 hex, as viem's `privateKeyToAccount` takes it). */
export interface X402Account {
  readonly address: string;
  readonly privateKey: `0x${string}`;
}

const TRANSFER = eventTopic('Transfer(address,address,uint256)');

/**
 * The chain side of x402's end-to-end tests and benchmarks (issue 41): anvil by `EvmTreasuryChain`
 * (the EIP-3009 test token `usdc`, 6 decimals, as the gateway's eth/anvil coin `usdc`), the
 * settlement gas wallet's key in a file of mode 600 with 10 ETH at its address, payers funded with
 * the token, and what the tests read on chain (the gas wallet's nonce, the token's transfers).
 */
export class X402Anvil {
  /** The protocol's name of the network (CAIP-2 of anvil's chain id 31337). */
  readonly caip = 'eip155:31337';

  private constructor(
    readonly chain: EvmTreasuryChain,
    readonly gasWallet: X402Account & { readonly keyFile: string },
    private readonly dir: string,
  ) {}

  static async start(): Promise<X402Anvil> {
    const chain = await EvmTreasuryChain.start();
    const dir = await mkdtemp(join(tmpdir(), 'x402-'));
    const wallet = Wallet.createRandom();
    const keyFile = join(dir, 'gas-wallet.key');
    await writeFile(keyFile, `${wallet.privateKey}\n`, { mode: 0o600 });
    await chmod(keyFile, 0o600);
    await chain.anvil.sendEth(chain.funder, wallet.address, 10n ** 19n);
    return new X402Anvil(chain, { address: wallet.address, privateKey: wallet.privateKey as `0x${string}`, keyFile }, dir);
  }

  /** The EIP-3009 token's contract (checksummed): the requirements' `asset`. */
  get token(): string {
    return getAddress(this.chain.contracts.eip3009);
  }

  /** A fresh account holding `units` of the token (a real transfer from the funder; no ETH: payers never pay gas). */
  async payer(units: bigint): Promise<X402Account> {
    const wallet = Wallet.createRandom();
    if (units > 0n) await this.chain.anvil.sendToken(this.chain.contracts.eip3009, this.chain.funder, wallet.address, units);
    return { address: wallet.address, privateKey: wallet.privateKey as `0x${string}` };
  }

  /** Fresh accounts holding `units` each, their balances written in one batch (benchmarks of many payers). */
  async payers(count: number, units: bigint): Promise<X402Account[]> {
    const accounts = Array.from({ length: count }, () => {
      const wallet = Wallet.createRandom();
      return { address: wallet.address, privateKey: wallet.privateKey as `0x${string}` };
    });
    await this.chain.setBalances(accounts.map((a) => ({ address: a.address, usdc: units })));
    return accounts;
  }

  /** The gas wallet's next nonce, pending transactions counted: what it has sent so far. */
  async gasNonce(): Promise<bigint> {
    return BigInt(await this.chain.anvil.rpc<string>('eth_getTransactionCount', [this.gasWallet.address, 'pending']));
  }

  /** The token's `Transfer` logs into `to` (every block), oldest first. */
  async transfersTo(to: string): Promise<{ readonly from: string; readonly value: bigint; readonly txHash: string }[]> {
    const logs = await this.chain.anvil.rpc<{ topics: string[]; data: string; transactionHash: string }[]>('eth_getLogs', [
      { address: this.chain.contracts.eip3009, fromBlock: '0x0', toBlock: 'latest', topics: [TRANSFER, null, zeroPadValue(getAddress(to), 32)] },
    ]);
    return logs.map((log) => ({ from: getAddress(`0x${log.topics[1]!.slice(26)}`), value: BigInt(log.data), txHash: log.transactionHash }));
  }

  /** The senders of the gas wallet's transactions in blocks `from`..latest, by nonce (a benchmark's check for gaps). */
  async gasWalletNonces(fromBlock: number): Promise<bigint[]> {
    const latest = await this.chain.anvil.blockNumber();
    const nonces: bigint[] = [];
    for (let start = fromBlock; start <= latest; start += 200) {
      const numbers = Array.from({ length: Math.min(200, latest - start + 1) }, (_, i) => start + i);
      const blocks = await this.chain.anvil.rpcBatch<{ transactions: { from: string; nonce: string }[] }>(
        numbers.map((n) => ['eth_getBlockByNumber', [toBeHex(n), true]] as const),
      );
      for (const block of blocks) for (const tx of block.transactions) if (getAddress(tx.from) === this.gasWallet.address) nonces.push(BigInt(tx.nonce));
    }
    return nonces.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /**
   * The configuration of a gateway settling with the gas wallet on eth/anvil (caps that never bind
   * unless `gasWallet` lowers them), watching anvil from its next block (scans driven by the test),
   * fixed rates, webhooks to loopback with fast retries; `overrides` on top.
   */
  async gatewayConfig(options: { gasWallet?: { maxPerSettlementUnits?: string; maxPerDayUnits?: string }; overrides?: Record<string, unknown> } = {}) {
    return {
      'chains.testNetworks': { eth: 'anvil' },
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': FIXED_RATES,
      'plugins.watchers.chains': {
        eth: { anvil: { providers: [{ name: 'anvil', url: this.chain.anvil.url }], startHeight: (await this.chain.anvil.blockNumber()) + 1 } },
      },
      'plugins.watchers.scanIntervalSeconds': 3600,
      'plugins.webhooks.allowPrivateTargets': true,
      ...FAST_RETRIES,
      'plugins.x402.settlement': 'gas_wallet',
      'plugins.x402.gasWallets': {
        eth: {
          anvil: {
            privateKeyFile: this.gasWallet.keyFile,
            maxPerSettlementUnits: options.gasWallet?.maxPerSettlementUnits ?? (10n ** 17n).toString(),
            maxPerDayUnits: options.gasWallet?.maxPerDayUnits ?? (10n ** 19n).toString(),
          },
        },
      },
      ...options.overrides,
    };
  }

  /** The shipped chains with eth replaced by the anvil chain that knows the test token. */
  chains(): ChainModule[] {
    return [...ALL_CHAINS.filter((c) => c.definition.id !== 'eth'), defineChain({ definition: this.chain.definition, createAdapter: createEvmAdapter })];
  }

  async stop(): Promise<void> {
    await this.chain.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * A gateway (role `all` unless `role` says otherwise) of `plugins` on the anvil of `x402` with
 * `config` (from `X402Anvil.gatewayConfig`), listening on a port known before it starts so that
 * the payer URLs it builds (`http.baseUrl`) are the ones it answers; on `database` when given
 * (several instances of one gateway).
 */
export async function startX402Gateway(
  x402: X402Anvil,
  options: { plugins: readonly AnyPlugin[]; config: Record<string, unknown>; database?: TestDatabase; role?: KernelRole },
): Promise<TestKernel> {
  const port = await freePort();
  return startTestKernel({
    plugins: options.plugins,
    chains: x402.chains(),
    role: options.role ?? 'all',
    ...(options.database ? { database: options.database } : {}),
    config: { ...options.config, 'http.port': port, 'http.baseUrl': `http://127.0.0.1:${port}` },
  });
}

/** An operator, a testnet project of it with a verified eth wallet and its pool filled, whose webhooks go to `webhookUrl`. */
export async function x402Project(gw: TestKernel, webhookUrl: string): Promise<TestProject & { readonly operatorId: string }> {
  const { tenancyOperators, tenancyProjects } = gw.kernel.cradle;
  const operatorId = (await tenancyOperators.create(`x402-${Math.random().toString(36).slice(2, 8)}`, CLI_ACTOR)).id;
  const project = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  await tenancyProjects.setWebhookUrl(project.projectId, webhookUrl, CLI_ACTOR);
  return { ...project, operatorId };
}
