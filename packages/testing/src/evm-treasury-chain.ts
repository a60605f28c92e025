import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  coin,
  PRICE_ASSETS,
  ProviderPool,
  type AccountPlanBuild,
  type AccountStep,
  type VerifiedStep,
  type AccountTreasury,
  type ChainAdapter,
  type ChainAdapterDeps,
  type ChainDefinition,
  type NetworkDefinition,
} from '@gw/kernel';
import { createEvmAdapter, evmChainDefinition } from '@gw/chain-evm';
import { signAccountStep } from '@gw/chain-evm/testing';
import { AbiCoder, HDNodeWallet, keccak256, Mnemonic, toBeHex, Transaction, Wallet, zeroPadValue } from 'ethers';
import { Anvil } from './anvil.js';
import { testContracts } from './solidity.js';

export interface BroadcastReceipt {
  readonly txid: string;
  readonly gasUsed: bigint;
  readonly reverted: boolean;
}

/** The BIP39 test mnemonic whose account m/44'/60'/0' holds the deposit addresses; m/44'/60'/1'/0/0 is the operator's gas account. */
export const TREASURY_TEST_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
export const GAS_ACCOUNT_PATH = "m/44'/60'/1'/0/0";

/**
 * An anvil chain (Prague rules: EIP-7702) set up for the EVM account treasury: a Multicall3 (the
 * subset of packages/testing/contracts), an ERC-20 (`tok`: OpenZeppelin 4.9.6
 * ERC20PresetFixedSupply) and an EIP-3009 token (`usdc`: packages/testing/contracts/Eip3009Token.sol),
 * a chain definition naming them on network `anvil`, the adapter's treasury over a provider pool,
 * and the keys of the test mnemonic to sign steps with (the test is the offline signer).
 */
export class EvmTreasuryChain {
  private constructor(
    readonly anvil: Anvil,
    readonly funder: string,
    readonly definition: ChainDefinition,
    readonly network: NetworkDefinition,
    readonly adapter: ChainAdapter,
    readonly treasury: AccountTreasury,
    readonly contracts: { readonly multicall3: string; readonly erc20: string; readonly eip3009: string },
  ) {}

  readonly root = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(TREASURY_TEST_MNEMONIC).computeSeed());
  readonly gasWallet = this.root.derivePath(GAS_ACCOUNT_PATH);
  readonly gasAccount = { role: 'gas' as const, address: this.gasWallet.address, path: GAS_ACCOUNT_PATH };
  readonly key = () => this.adapter.parseAccountKey(this.root.derivePath("m/44'/60'/0'").neuter().extendedKey, 'testnet');

  static async start(options: { gasLimit?: bigint; multicall3?: boolean; eip7702?: boolean } = {}): Promise<EvmTreasuryChain> {
    const anvil = await Anvil.start(31337, { hardfork: 'prague', ...(options.gasLimit ? { gasLimit: options.gasLimit } : {}) });
    const [funder] = await anvil.accounts();
    const compiled = testContracts();
    const coder = AbiCoder.defaultAbiCoder();
    const multicall3 = await anvil.deploy(funder!, compiled['Multicall3Subset']!.bytecode);
    const supply = 10n ** 30n;
    const eip3009 = await anvil.deploy(
      funder!,
      compiled['Eip3009Token']!.bytecode + coder.encode(['string', 'string', 'uint256'], ['USD Coin', '2', supply]).slice(2),
    );
    const require = createRequire(import.meta.url);
    const preset = JSON.parse(readFileSync(require.resolve('@openzeppelin/contracts/build/contracts/ERC20PresetFixedSupply.json'), 'utf8')) as {
      bytecode: string;
    };
    const erc20 = await anvil.deploy(
      funder!,
      preset.bytecode + coder.encode(['string', 'string', 'uint256', 'address'], ['Token', 'TOK', supply, funder]).slice(2),
    );
    const network: NetworkDefinition = {
      id: 'anvil',
      name: 'anvil',
      kind: 'testnet',
      evmChainId: 31337,
      eip7702: options.eip7702 ?? true,
      ...(options.multicall3 === false ? {} : { multicall3 }),
    };
    const definition = evmChainDefinition({
      id: 'eth',
      name: 'EVM treasury test chain',
      networks: { mainnet: { id: 'ethereum', name: 'Ethereum', kind: 'mainnet', evmChainId: 1 }, testnets: [network] },
      coins: [
        coin({ id: 'eth', price: PRICE_ASSETS.ETH, decimals: 18, source: 'test' }),
        coin({ id: 'tok', price: PRICE_ASSETS.USDT, decimals: 18, contracts: { anvil: erc20 }, source: 'test' }),
        coin({ id: 'usdc', price: PRICE_ASSETS.USDC, decimals: 6, contracts: { anvil: eip3009 }, source: 'test' }),
      ],
      dustFloorUnits: { eth: 0n, tok: 0n, usdc: 0n },
      blockTimeSeconds: 1,
      defaultConfirmations: 1,
    });
    const adapter = createEvmAdapter({ logger: {} as ChainAdapterDeps['logger'] }, definition);
    const treasury = EvmTreasuryChain.treasuryOf(adapter, network, anvil.url);
    return new EvmTreasuryChain(anvil, funder!, definition, network, adapter, treasury, { multicall3, erc20, eip3009 });
  }

  static treasuryOf(adapter: ChainAdapter, network: NetworkDefinition, url: string): AccountTreasury {
    const providers = new ProviderPool({ chain: 'eth', network: network.id, endpoints: [{ name: 'anvil', url }], timeoutMs: 30_000 });
    return adapter.createAccountTreasury!({ network, providers });
  }

  /** Deposit address `index` of the test account, as the gateway derives it from the xpub. */
  source(index: number) {
    const key = this.key();
    return { address: this.adapter.deriveAddress(key, index).address, key, index };
  }

  /** Signs a step with the key its signer names (deposit path, the gas account, or another operator account at its path). */
  sign(step: AccountStep): string {
    const { signer } = step;
    const privateKey =
      signer.kind === 'deposit'
        ? this.root.derivePath(signer.path).privateKey
        : signer.account.role === 'gas'
          ? this.gasWallet.privateKey
          : this.root.derivePath(signer.account.path).privateKey;
    return signAccountStep(step, privateKey);
  }

  /** Signs and verifies the steps of one round, as the treasury plugin does with a signed file. */
  signRound(steps: readonly AccountStep[]): VerifiedStep[] {
    return steps.map((step) => this.treasury.verifySigned(step, this.sign(step)));
  }

  /**
   * Checks the steps are fresh, then broadcasts their verified transactions stage by stage, each
   * stage mined before the next. Returns each transaction's id, gas used and whether it reverted.
   */
  async broadcast(steps: readonly AccountStep[], verified: readonly VerifiedStep[]): Promise<BroadcastReceipt[]> {
    await this.treasury.checkFresh(steps, EvmTreasuryChain.txids(verified));
    const byId = new Map(verified.map((v) => [v.stepId, v]));
    const receipts: BroadcastReceipt[] = [];
    for (const stage of [...new Set(steps.map((s) => s.stage))].sort((a, b) => a - b)) {
      const ids: string[] = [];
      for (const step of steps.filter((s) => s.stage === stage && s.kind === 'transaction')) {
        const v = byId.get(step.id);
        if (v?.kind !== 'transaction') throw new Error(`step ${step.id} has no verified transaction`);
        ids.push(await this.treasury.broadcast(v.tx));
      }
      for (const txid of ids) {
        let state = await this.treasury.transaction(txid);
        while (!state || state.confirmations < 1) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          state = await this.treasury.transaction(txid);
        }
        const receipt = await this.anvil.rpc<{ gasUsed: string }>('eth_getTransactionReceipt', [txid]);
        receipts.push({ txid, gasUsed: BigInt(receipt.gasUsed), reverted: state.failed !== undefined });
      }
    }
    return receipts;
  }

  /** The transaction id of each verified transaction step, by step id (what `checkFresh` finds a plan's own transactions by). */
  static txids(verified: readonly VerifiedStep[]): Map<string, string> {
    return new Map(verified.flatMap((v) => (v.kind === 'transaction' ? [[v.stepId, v.tx.txid] as const] : [])));
  }

  /** Signs every round of a plan (round 2 built by `continue`) and broadcasts it. */
  async execute(plan: AccountPlanBuild): Promise<BroadcastReceipt[]> {
    const round1 = this.signRound(plan.steps);
    if (plan.rounds === 1) return this.broadcast(plan.steps, round1);
    const round2 = this.treasury.continue(plan, round1);
    return this.broadcast(round2, this.signRound(round2));
  }

  /** Funds the gas account with 10 ETH from the funder (a real transfer). */
  async fundGasAccount(): Promise<void> {
    await this.anvil.sendEth(this.funder, this.gasAccount.address, 10n ** 19n);
  }

  /**
   * Pays deposit addresses 0 … count - 1 by real transfers from the funder: `paid(i)` is what
   * address i receives of the ERC-20 (`tok`), the EIP-3009 token (`usdc`) and, when given, ETH.
   */
  async payDeposits(count: number, paid: (index: number) => { tok: bigint; usdc: bigint; eth?: bigint }): Promise<void> {
    for (let i = 0; i < count; i++) {
      const { address } = this.source(i);
      const { tok, usdc, eth } = paid(i);
      await this.anvil.sendToken(this.contracts.erc20, this.funder, address, tok);
      await this.anvil.sendToken(this.contracts.eip3009, this.funder, address, usdc);
      if (eth !== undefined) await this.anvil.sendEth(this.funder, address, eth);
    }
  }

  /**
   * Sets balances without transactions (benchmarks of many addresses): the tokens' `_balances`
   * mapping is slot 0 in both test tokens (OpenZeppelin's ERC20 storage comes first).
   */
  async setBalances(entries: readonly { readonly address: string; readonly eth?: bigint; readonly tok?: bigint; readonly usdc?: bigint }[]): Promise<void> {
    const coder = AbiCoder.defaultAbiCoder();
    const calls: [string, unknown[]][] = [];
    for (const entry of entries) {
      if (entry.eth !== undefined) calls.push(['anvil_setBalance', [entry.address, toBeHex(entry.eth)]]);
      for (const [token, units] of [
        [this.contracts.erc20, entry.tok],
        [this.contracts.eip3009, entry.usdc],
      ] as const) {
        if (units === undefined) continue;
        calls.push(['anvil_setStorageAt', [token, keccak256(coder.encode(['address', 'uint256'], [entry.address, 0])), zeroPadValue(toBeHex(units), 32)]]);
      }
    }
    for (let start = 0; start < calls.length; start += 500) await this.anvil.rpcBatch(calls.slice(start, start + 500));
  }

  async balanceOf(token: string, holder: string): Promise<bigint> {
    const data = `0x70a08231${AbiCoder.defaultAbiCoder().encode(['address'], [holder]).slice(2)}`;
    return BigInt(await this.anvil.rpc<string>('eth_call', [{ to: token, data }, 'latest']));
  }

  async ethBalance(address: string): Promise<bigint> {
    return BigInt(await this.anvil.rpc<string>('eth_getBalance', [address, 'latest']));
  }

  /**
   * The owner of the seed spends from the address at `path` outside any plan (a small transfer to
   * the funder at the address's next nonce), so a plan's nonce for that address goes stale. The
   * address must hold the gas.
   */
  async spendElsewhere(path: string): Promise<void> {
    const wallet = new Wallet(this.root.derivePath(path).privateKey);
    const nonce = BigInt(await this.anvil.rpc<string>('eth_getTransactionCount', [wallet.address, 'latest']));
    const other = Transaction.from({
      type: 2,
      chainId: 31337,
      nonce: Number(nonce),
      to: this.funder,
      value: 1000n,
      gasLimit: 21000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
    });
    other.signature = wallet.signingKey.sign(other.unsignedHash);
    await this.anvil.rpc('eth_sendRawTransaction', [other.serialized]);
  }

  /** A fresh address (nothing there yet): where a sweep gathers. */
  static freshAddress(): string {
    return Wallet.createRandom().address;
  }

  async stop(): Promise<void> {
    await this.anvil.stop();
  }
}
