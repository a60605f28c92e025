/**
 * The x402 plugin's shared anvil harness (issue 41): a real EVM node with the EIP-3009 test token
 * (`EvmTreasuryChain`: coin `usdc`, 6 decimals, EIP-712 domain "USD Coin" / "2"; `tok`, an ERC-20
 * without EIP-3009), a gateway of the plugins x402 runs with on a real PostgreSQL, the node as
 * chain `eth` network `anvil` (eip155:31337) watched from its next block, a testnet project with a
 * verified eth wallet and a filled pool, and `plugins.x402.settlement: 'gas_wallet'` with a funded
 * gas wallet whose key sits in a temporary file (mode 600). Payers are fresh keys; tests sign
 * payments with ethers `Wallet.signTypedData`, as an x402 client does.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AnyPlugin, type ChainModule, CLI_ACTOR, defineChain, type ProjectPrincipal } from '@gw/kernel';
import { freePort, signedFetch, startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { createEvmAdapter, EIP3009_ABI } from '@gw/chain-evm';
import { addressPoolPlugin } from '@gw/plugin-address-pool';
import { checkoutPlugin } from '@gw/plugin-checkout';
import { dashboardPlugin } from '@gw/plugin-dashboard';
import type { InvoiceView } from '@gw/plugin-invoices/contract';
import { invoicesPlugin } from '@gw/plugin-invoices';
import { mcpPlugin } from '@gw/plugin-mcp';
import { oauthPlugin } from '@gw/plugin-oauth';
import { ratesPlugin } from '@gw/plugin-rates';
import { sessionsPlugin } from '@gw/plugin-sessions';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
import { watchersPlugin } from '@gw/plugin-watchers';
import { scanOnce } from '@gw/plugin-watchers/testing';
import { webhooksPlugin } from '@gw/plugin-webhooks';
import { EvmTreasuryChain, FAST_RETRIES, FIXED_RATES, projectWithPools, signTransferAuthorization, type TestProject } from '@gw/testing';
import { hexlify, randomBytes, Signature, toBeHex, Wallet } from 'ethers';
import { x402Facilitator } from '@x402/core/facilitator';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme as ExactEvmFacilitatorScheme } from '@x402/evm/exact/facilitator';
import { createWalletClient, http, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { x402Plugin } from '../src/index.js';
import type { ExactEvmAuthorization, PaymentPayload, PaymentRequirements, ResourceInfo } from '../src/protocol/messages.js';

/** The plugins x402 runs with, in the shipped composition's order (apps/gateway/src/composition.ts). */
export const X402_PLUGINS: readonly AnyPlugin[] = [
  tenancyPlugin,
  walletsPlugin,
  addressPoolPlugin,
  ratesPlugin,
  invoicesPlugin,
  webhooksPlugin,
  watchersPlugin,
  checkoutPlugin,
  oauthPlugin,
  mcpPlugin,
  sessionsPlugin,
  x402Plugin,
  dashboardPlugin,
];

/** USDC base units per coin (6 decimals). */
export const USDC = 10n ** 6n;
/** The anvil network as x402 names it. */
export const ANVIL_CAIP = 'eip155:31337';
/** The test token's EIP-712 domain (packages/testing's `EvmTreasuryChain`). */
export const USDC_DOMAIN = { name: 'USD Coin', version: '2' } as const;

/** Caps of the harness's gas wallet unless a test sets its own: 0.1 ETH per settlement, 1 ETH a day. */
export const GAS_CAPS = { maxPerSettlementUnits: (10n ** 17n).toString(), maxPerDayUnits: (10n ** 18n).toString() } as const;

export interface X402HarnessOptions {
  /** `plugins.x402.settlement` (default `gas_wallet`). */
  readonly settlement?: 'off' | 'gas_wallet' | 'facilitator';
  /** Caps of the gas wallet (wei, decimal strings). */
  readonly gasCaps?: { readonly maxPerSettlementUnits: string; readonly maxPerDayUnits: string };
  /** The gas wallet's starting balance, wei (default 10 ETH). */
  readonly gasFunds?: bigint;
  /** More dotted config (applied last: `plugins.x402.payToPerMinute`, `plugins.x402.facilitator`, …). */
  readonly config?: Record<string, unknown>;
  /** Pool addresses of the project (address-pool's `targetFree` and `hardCap`; default 6). */
  readonly poolSize?: number;
  /** The gateway's plugins (default {@link X402_PLUGINS}; the end-to-end tests run the shipped composition's). */
  readonly plugins?: readonly AnyPlugin[];
  /** Where the project's webhooks go (default: none set). */
  readonly webhookUrl?: string;
}

/** What {@link startX402} gives a test. */
export interface X402Harness {
  readonly chain: EvmTreasuryChain;
  readonly gw: TestKernel;
  /** The testnet project (eth pool on anvil) and its API credentials. */
  readonly project: TestProject;
  readonly operatorId: string;
  /** The test token's address, as deployed (`chain.contracts.eip3009`). */
  readonly usdc: string;
  /** The settlement gas wallet (its key is in `gasKeyFile`). */
  readonly gasWallet: Wallet;
  readonly gasKeyFile: string;
  /** The dotted config the gateway runs with (reuse it for a second gateway or the CLI). */
  readonly config: Record<string, unknown>;
  /** The chain modules the gateway runs with (the anvil chain as `eth`). */
  readonly chains: readonly ChainModule[];
  /** The project's principal (what `X402Offers.create` takes). */
  principal(gw?: TestKernel): Promise<ProjectPrincipal>;
  /** A fresh payer key holding `usdc` units of the test token (and `eth` wei, default none). */
  payer(usdc: bigint, eth?: bigint): Promise<Wallet>;
  /** An invoice of the project created over the signed API (`amount_crypto` in `coin`, default usdc). */
  invoice(amount: string, options?: { coin?: string; externalId?: string }): Promise<InvoiceView>;
  /** The invoice as the gateway has it now. */
  reload(invoiceId: string): Promise<InvoiceView>;
  /** One scan pass of the eth/anvil watcher (again while another pass holds the lock; a failed pass throws). */
  scan(gw?: TestKernel): Promise<void>;
  /** Submits the payload's authorization to the token directly (from anvil's funder), as a third party would; resolves when mined. */
  submitDirectly(payload: PaymentPayload): Promise<string>;
  /** The token balance of an address, base units. */
  balanceOf(address: string): Promise<bigint>;
  /** The number of transactions an address has sent (its confirmed nonce). */
  sentCount(address: string): Promise<number>;
  /** Another gateway instance on the same database and chain (config overrides applied over the harness's). */
  second(config?: Record<string, unknown>): Promise<TestKernel>;
  stop(): Promise<void>;
}

/** The key of a fresh funded wallet, written mode 600 where `privateKeyFile` expects it. */
async function keyFile(dir: string, wallet: Wallet): Promise<string> {
  const path = join(dir, 'gas-wallet.key');
  await writeFile(path, `${wallet.privateKey}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
  return path;
}

/**
 * Starts anvil (`EvmTreasuryChain.start()`), a gas wallet funded with `gasFunds`, and a gateway of
 * {@link X402_PLUGINS} with the anvil chain as eth (watched as eth/anvil from the next block; scans
 * driven by the test: `scan()`), and a testnet project with a verified eth wallet and its pool.
 */
export async function startX402(options: X402HarnessOptions = {}): Promise<X402Harness> {
  const chain = await EvmTreasuryChain.start();
  const dir = await mkdtemp(join(tmpdir(), 'x402-'));
  const gwList: TestKernel[] = [];
  try {
    const gasWallet = new Wallet(Wallet.createRandom().privateKey);
    await chain.anvil.sendEth(chain.funder, gasWallet.address, options.gasFunds ?? 10n ** 19n);
    const gasKeyFile = await keyFile(dir, gasWallet);
    const poolSize = options.poolSize ?? 6;
    const config: Record<string, unknown> = {
      'chains.testNetworks': { eth: 'anvil' },
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': { ETH: FIXED_RATES.ETH, USDT: FIXED_RATES.USDT, USDC: FIXED_RATES.USDC },
      'plugins.watchers.chains': {
        eth: { anvil: { providers: [{ name: 'anvil', url: chain.anvil.url }], startHeight: (await chain.anvil.blockNumber()) + 1 } },
      },
      'plugins.watchers.scanIntervalSeconds': 3600,
      'plugins.address-pool.targetFree': poolSize,
      'plugins.address-pool.hardCap': poolSize,
      'plugins.webhooks.allowPrivateTargets': true,
      ...FAST_RETRIES,
      'plugins.x402.settlement': options.settlement ?? 'gas_wallet',
      'plugins.x402.gasWallets': { eth: { anvil: { privateKeyFile: gasKeyFile, ...(options.gasCaps ?? GAS_CAPS) } } },
      ...options.config,
    };
    const chains = [defineChain({ definition: chain.definition, createAdapter: createEvmAdapter })];
    // Each instance on a port known before it starts, so that the payer URLs it builds (`http.baseUrl`) are the ones it answers.
    const start = async (extra: Record<string, unknown> = {}, database?: TestKernel['database']) => {
      const port = await freePort();
      const http = { 'http.port': port, 'http.baseUrl': `http://127.0.0.1:${port}` };
      return startTestKernel({
        plugins: options.plugins ?? X402_PLUGINS,
        chains,
        role: 'all',
        config: { ...config, ...http, ...extra },
        ...(database ? { database } : {}),
      });
    };
    const gw = await start();
    gwList.push(gw);
    const operatorId = (await gw.kernel.cradle.tenancyOperators.create(`x402-${Math.random().toString(36).slice(2)}`, CLI_ACTOR)).id;
    const project = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
    if (options.webhookUrl) await gw.kernel.cradle.tenancyProjects.setWebhookUrl(project.projectId, options.webhookUrl, CLI_ACTOR);
    const usdc = chain.contracts.eip3009;

    const harness: X402Harness = {
      chain,
      gw,
      project,
      operatorId,
      usdc,
      gasWallet,
      gasKeyFile,
      config,
      chains,
      async principal(on = gw) {
        const principal = await on.kernel.cradle.tenancyProjects.principal(project.projectId);
        if (!principal) throw new Error(`no principal for project ${project.projectId}`);
        return principal;
      },
      async payer(units, eth) {
        const wallet = new Wallet(Wallet.createRandom().privateKey);
        await chain.setBalances([{ address: wallet.address, usdc: units, ...(eth === undefined ? {} : { eth }) }]);
        return wallet;
      },
      async invoice(amount, { coin = 'usdc', externalId } = {}) {
        const created = await signedFetch(gw.url, '/api/v1/invoices', {
          ...project,
          method: 'POST',
          body: { external_id: externalId ?? `x402-test-${Math.random().toString(36).slice(2)}`, coin, amount_crypto: amount },
        });
        if (created.status !== 201) throw new Error(`invoice: ${created.status} ${JSON.stringify(created.body)}`);
        return created.body as InvoiceView;
      },
      async reload(invoiceId) {
        return gw.kernel.cradle.invoicesService.get(project.projectId, invoiceId);
      },
      async scan(on = gw) {
        await scanOnce(on, 'eth', 'anvil');
      },
      async submitDirectly(payload) {
        const a = payload.payload.authorization;
        const { v, r, s } = Signature.from(payload.payload.signature);
        const data = EIP3009_ABI.encodeFunctionData('transferWithAuthorization', [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, v, r, s]);
        const hash = await chain.anvil.rpc<string>('eth_sendTransaction', [{ from: chain.funder, to: payload.accepted.asset, data, gas: toBeHex(200_000) }]);
        for (;;) {
          const receipt = await chain.anvil.rpc<{ status: string } | null>('eth_getTransactionReceipt', [hash]);
          if (receipt) {
            if (receipt.status !== '0x1') throw new Error(`direct transferWithAuthorization ${hash} reverted`);
            return hash;
          }
          await chain.anvil.mine(1);
        }
      },
      balanceOf: (address) => chain.balanceOf(usdc, address),
      async sentCount(address) {
        return Number(BigInt(await chain.anvil.rpc<string>('eth_getTransactionCount', [address, 'latest'])));
      },
      async second(extra = {}) {
        const other = await start(extra, gw.database);
        gwList.push(other);
        return other;
      },
      async stop() {
        for (const kernel of gwList.reverse()) await kernel.close();
        await chain.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
    return harness;
  } catch (error) {
    for (const kernel of gwList.reverse()) await kernel.close().catch(() => undefined);
    await chain.stop();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** What a test may change of the payment it signs (each field replaces the default). */
export interface PaymentOptions {
  /** Fields of the signed authorization (defaults: from the payer, to payTo, value amount, validAfter 0, validBefore now + maxTimeoutSeconds, a random nonce). */
  readonly authorization?: Partial<ExactEvmAuthorization>;
  /** Fields of the EIP-712 domain signed under (defaults: the requirement's extra name/version, its chain id, its asset). */
  readonly domain?: Partial<{ name: string; version: string; chainId: bigint; verifyingContract: string }>;
  /** Fields of `accepted` (default: the requirement as offered). */
  readonly accepted?: Partial<PaymentRequirements>;
  readonly x402Version?: number;
  readonly resource?: ResourceInfo;
  /** The clock the default validBefore counts from, Unix seconds (default: now). */
  readonly now?: number;
}

/**
 * The payment an x402 client makes of `requirements` (scheme exact, EIP-3009): an authorization of
 * `payer` signed with `Wallet.signTypedData` over the token's domain, and `accepted` = the requirement.
 */
export async function signPayment(payer: Wallet, requirements: PaymentRequirements, options: PaymentOptions = {}): Promise<PaymentPayload> {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const authorization: ExactEvmAuthorization = {
    from: payer.address,
    to: requirements.payTo,
    value: requirements.amount,
    validAfter: '0',
    validBefore: String(now + requirements.maxTimeoutSeconds),
    nonce: hexlify(randomBytes(32)),
    ...options.authorization,
  };
  const domain = {
    name: requirements.extra.name,
    version: requirements.extra.version,
    chainId: BigInt(requirements.network.split(':')[1]!),
    verifyingContract: requirements.asset,
    ...options.domain,
  };
  const signature = await signTransferAuthorization(payer, domain, {
    ...authorization,
    value: BigInt(authorization.value),
    validAfter: BigInt(authorization.validAfter),
    validBefore: BigInt(authorization.validBefore),
  });
  return {
    x402Version: options.x402Version ?? 2,
    ...(options.resource ? { resource: options.resource } : {}),
    accepted: { ...requirements, ...options.accepted },
    payload: { signature, authorization },
  };
}

/** A resource as a payer URL describes it. */
export function resourceOf(url: string, description = 'test resource'): ResourceInfo {
  return { url, description, mimeType: 'application/json' };
}

/**
 * The official x402 facilitator (`x402Facilitator` of @x402/core with @x402/evm's `exact` scheme) on
 * the harness's anvil, as `examples/typescript/facilitator/basic` builds it: the independent peer of
 * the external-facilitator mode. `wallet` (a viem wallet client of its key) pays the gas of what it
 * settles; tests serve it over HTTP themselves.
 */
export function officialFacilitator(h: X402Harness, wallet: Wallet): x402Facilitator {
  const account = privateKeyToAccount(wallet.privateKey as `0x${string}`);
  const client = createWalletClient({ account, chain: foundry, transport: http(h.chain.anvil.url) }).extend(publicActions);
  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      getCode: (args) => client.getCode(args),
      readContract: (args) => client.readContract({ ...args, args: args.args ?? [] } as any),
      verifyTypedData: (args) => client.verifyTypedData(args as any),
      writeContract: (args) => client.writeContract({ ...args, args: args.args ?? [] } as any),
      sendTransaction: (args) => client.sendTransaction(args as any),
      waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
    },
    { confirmationTimeoutMs: 30_000 },
  );
  return new x402Facilitator().register(ANVIL_CAIP, new ExactEvmFacilitatorScheme(signer, { simulateInSettle: false, eip6492AllowedFactories: [] }));
}
