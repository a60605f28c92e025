import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, spawnGroup, startOnFreePorts, untilAnswering, type ProcessGroup } from '@gw/kernel/testing';
import { AbiCoder, Interface, keccak256, toBeHex, zeroPadValue } from 'ethers';

const here = dirname(fileURLToPath(import.meta.url));

/** What `Anvil.start` asks of the node beyond its chain id (described there). */
export interface AnvilOptions {
  readonly gasLimit?: bigint;
  readonly accounts?: number;
  readonly stateFile?: string;
  readonly blockTimeSeconds?: number;
  readonly hardfork?: 'prague' | 'cancun';
}

/** A real local EVM node (`@foundry-rs/anvil`) on a free port, with its JSON-RPC helpers. */
export class Anvil {
  private paused = false;
  private constructor(
    private process: ProcessGroup,
    readonly url: string,
    private readonly binary: string,
    private readonly args: readonly string[],
  ) {}

  /**
   * Starts anvil with `chainId` (e.g. Sepolia's 11155111, so the gateway's sepolia definitions
   * apply). `gasLimit` raises the block gas limit (a block of thousands of transfers). `stateFile`
   * keeps the chain across `restart` (anvil's `--state`: loaded at start, written at exit).
   * `blockTimeSeconds` mines a block at that interval (besides automine of each transaction).
   * `hardfork` sets the rules (`prague`: EIP-7702 set-code transactions). Started again on other
   * ports when it exits at once (its port taken meanwhile: `startOnFreePorts`).
   */
  static async start(chainId: number, options: AnvilOptions = {}): Promise<Anvil> {
    return startOnFreePorts(() => Anvil.startOn(chainId, options));
  }

  private static async startOn(chainId: number, options: AnvilOptions): Promise<Anvil> {
    const port = await freePort();
    const binary = join(here, '..', 'node_modules', '.bin', 'anvil');
    const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId), '--silent'];
    if (options.gasLimit !== undefined) args.push('--gas-limit', options.gasLimit.toString());
    if (options.accounts !== undefined) args.push('--accounts', String(options.accounts));
    if (options.stateFile !== undefined) args.push('--state', options.stateFile);
    if (options.blockTimeSeconds !== undefined) args.push('--block-time', String(options.blockTimeSeconds));
    if (options.hardfork !== undefined) args.push('--hardfork', options.hardfork);
    const anvil = new Anvil(spawnGroup(binary, args, { stdio: 'ignore' }), `http://127.0.0.1:${port}`, binary, args);
    await anvil.ready();
    return anvil;
  }

  private async ready(): Promise<void> {
    await untilAnswering(this.process, () => this.rpc('eth_chainId', []), 'anvil');
  }

  /**
   * Stops the node (SIGTERM: with `stateFile` it writes its chain there), waits `downMs` with
   * nothing listening on its port, and starts it again on the same port and arguments.
   */
  async restart(downMs = 0): Promise<void> {
    await this.process.stop(10_000);
    await new Promise((resolve) => setTimeout(resolve, downMs));
    this.process = spawnGroup(this.binary, [...this.args], { stdio: 'ignore' });
    await this.ready();
  }

  async rpc<T = any>(method: string, params: unknown[]): Promise<T> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await response.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  }

  /** Several calls in one JSON-RPC batch; results in call order. */
  async rpcBatch<T = any>(calls: readonly (readonly [string, unknown[]])[]): Promise<T[]> {
    const body = calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params }));
    const response = await fetch(this.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const replies = (await response.json()) as { id: number; result?: T; error?: { message: string } }[];
    return replies
      .sort((a, b) => a.id - b.id)
      .map((reply) => {
        if (reply.error) throw new Error(`${calls[reply.id]![0]}: ${reply.error.message}`);
        return reply.result as T;
      });
  }

  async accounts(): Promise<string[]> {
    return this.rpc('eth_accounts', []);
  }

  async blockNumber(): Promise<number> {
    return Number(BigInt(await this.rpc<string>('eth_blockNumber', [])));
  }

  async mine(blocks: number): Promise<void> {
    await this.rpc('anvil_mine', [toBeHex(blocks)]);
  }

  /**
   * Sends `value` wei from an unlocked dev account. Returns the tx hash once it is mined (anvil
   * mines each transaction in its own block), or at once while mining is paused.
   */
  async sendEth(from: string, to: string, value: bigint): Promise<string> {
    return this.mined(await this.rpc('eth_sendTransaction', [{ from, to, value: toBeHex(value) }]));
  }

  /** Stops mining per transaction: what is sent waits for the next `mine`. */
  async pauseMining(): Promise<void> {
    await this.rpc('evm_setAutomine', [false]);
    this.paused = true;
  }

  async resumeMining(): Promise<void> {
    await this.rpc('evm_setAutomine', [true]);
    this.paused = false;
  }

  // Under load anvil may answer a send before the automined block is in place.
  private async mined(txHash: string): Promise<string> {
    const deadline = Date.now() + 20_000;
    while (!this.paused && (await this.rpc('eth_getTransactionReceipt', [txHash])) === null) {
      if (Date.now() > deadline) throw new Error(`transaction ${txHash} was not mined`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return txHash;
  }

  /**
   * Puts a real ERC-20 (OpenZeppelin 4.9.6 ERC20PresetFixedSupply, compiled bytecode from the npm
   * package) at `address` (the definition's token contract) and gives `holder` `balance` units by
   * writing its balance slot (`_balances` is slot 0).
   */
  async installErc20(address: string, holder: string, balance: bigint): Promise<void> {
    const require = createRequire(import.meta.url);
    const artifact = JSON.parse(readFileSync(require.resolve('@openzeppelin/contracts/build/contracts/ERC20PresetFixedSupply.json'), 'utf8')) as {
      deployedBytecode: string;
    };
    await this.rpc('anvil_setCode', [address, artifact.deployedBytecode]);
    const slot = keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [holder, 0]));
    await this.rpc('anvil_setStorageAt', [address, slot, zeroPadValue(toBeHex(balance), 32)]);
  }

  /** Calls `transfer(to, amount)` on the token from `from`. Returns the tx hash. */
  async sendToken(token: string, from: string, to: string, amount: bigint): Promise<string> {
    const data = new Interface(['function transfer(address to, uint256 amount) returns (bool)']).encodeFunctionData('transfer', [to, amount]);
    return this.mined(await this.rpc('eth_sendTransaction', [{ from, to: token, data }]));
  }

  /** Deploys `initCode` (creation bytecode with its constructor arguments) from an unlocked dev account; returns the contract address. */
  async deploy(from: string, initCode: string): Promise<string> {
    const hash = await this.mined(await this.rpc('eth_sendTransaction', [{ from, data: initCode, gas: toBeHex(6_000_000) }]));
    const receipt = await this.rpc<{ contractAddress: string; status: string }>('eth_getTransactionReceipt', [hash]);
    if (receipt.status !== '0x1') throw new Error(`deployment ${hash} reverted`);
    return receipt.contractAddress;
  }

  async receipt(txHash: string): Promise<{ status: string; blockNumber: string; logs: unknown[] }> {
    return this.rpc('eth_getTransactionReceipt', [txHash]);
  }

  /** Stops anvil with its wrapper (the whole process group). */
  async stop(): Promise<void> {
    await this.process.stop();
  }
}
