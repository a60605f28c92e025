import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { freePort, spawnGroup, startOnFreePorts, untilAnswering, type ProcessGroup } from '@gw/kernel/testing';

/** Debian's `litecoind` binary (the `/usr/bin/litecoind` wrapper writes into `~/.litecoin`; this does not). */
export const LITECOIND = '/usr/lib/litecoin/litecoind';

/** The wallet that mines and pays. */
const WALLET = 'gateway-test';

/** Whether Debian's litecoind is installed (`apt-get install litecoind`; .ci/run installs it). */
export function litecoindInstalled(): boolean {
  return existsSync(LITECOIND);
}

/** What `Litecoind.start` asks of the node beyond the defaults (described there). */
export interface LitecoindOptions {
  readonly persistMempool?: boolean;
  readonly zmq?: boolean;
  readonly txindex?: boolean;
  readonly mempoolReplacement?: boolean;
}

/**
 * A real Litecoin Core node (Debian's `litecoind` 0.21.2.1, a Bitcoin Core 0.21 fork) on regtest,
 * in its own data directory and process group, on free ports, with a wallet. Its JSON-RPC is Bitcoin
 * Core's (`getblock hash 2`, `invalidateblock` returning transactions to the mempool); its regtest
 * addresses are `rltc1…`. Mining stops at height 432, where MWEB activates: a test file starts a
 * fresh node. Debian's build has no ZMQ. `restart` keeps the chain (same data directory); with
 * `persistMempool: false` the restarted node has lost its mempool.
 */
export class Litecoind {
  private miner = '';
  private constructor(
    private process: ProcessGroup,
    private readonly args: readonly string[],
    private readonly dir: string,
    readonly url: string,
    readonly username: string,
    readonly password: string,
    /** Where the node is asked to publish ZMQ `hashblock` and `rawtx` (`zmq` option); Debian's build ignores it. */
    readonly zmqUrl: string | undefined,
  ) {}

  /**
   * `persistMempool: false`: a restarted node has lost its mempool. `txindex`: keep a transaction
   * index, so `getrawtransaction` finds mined transactions. `mempoolReplacement`: replace mempool
   * transactions by BIP 125 (Litecoin Core's default is off: a conflicting transaction is refused,
   * whatever its fee). `zmq`: ask for Core's ZMQ
   * `hashblock` and `rawtx` on one free port (a build without ZMQ, as Debian's, ignores the options:
   * `hasZmq` tells). Started again on other ports when it exits at once (a port taken meanwhile:
   * `startOnFreePorts`).
   */
  static async start(options: LitecoindOptions = {}): Promise<Litecoind> {
    return startOnFreePorts(() => Litecoind.startOn(options));
  }

  private static async startOn(options: LitecoindOptions): Promise<Litecoind> {
    const [rpcPort, p2pPort] = [await freePort(), await freePort()];
    const zmqUrl = options.zmq ? `tcp://127.0.0.1:${await freePort()}` : undefined;
    const dir = mkdtempSync(join(tmpdir(), 'gw-litecoind-'));
    const password = randomBytes(16).toString('hex');
    const args = [
      '-regtest',
      `-datadir=${dir}`,
      '-server',
      '-listen=0',
      `-port=${p2pPort}`,
      '-rpcbind=127.0.0.1',
      '-rpcallowip=127.0.0.1',
      `-rpcport=${rpcPort}`,
      '-rpcuser=gateway',
      `-rpcpassword=${password}`,
      '-fallbackfee=0.0001',
      '-printtoconsole=0',
      `-persistmempool=${options.persistMempool === false ? 0 : 1}`,
      ...(options.txindex ? ['-txindex=1'] : []),
      ...(options.mempoolReplacement ? ['-mempoolreplacement=1'] : []),
      ...(zmqUrl ? [`-zmqpubhashblock=${zmqUrl}`, `-zmqpubrawtx=${zmqUrl}`] : []),
    ];
    const node = new Litecoind(spawnGroup(LITECOIND, args, { stdio: 'ignore' }), args, dir, `http://127.0.0.1:${rpcPort}`, 'gateway', password, zmqUrl);
    await node.ready();
    return node;
  }

  private async ready(): Promise<void> {
    await untilAnswering(
      this.process,
      () => this.rpc('getblockcount', []),
      'litecoind',
      () => this.stop(),
    );
    const wallets = await this.rpc<string[]>('listwallets', []);
    if (!wallets.includes(WALLET)) {
      try {
        await this.rpc('loadwallet', [WALLET]);
      } catch {
        await this.rpc('createwallet', [WALLET]);
      }
    }
    this.miner ||= await this.rpc<string>('getnewaddress', []);
  }

  private get authorization(): string {
    return `Basic ${Buffer.from(`${this.username}:${this.password}`).toString('base64')}`;
  }

  /** A JSON-RPC call, on `wallet`'s endpoint (node methods answer there too; the test wallet by default). */
  async rpc<T = any>(method: string, params: unknown[], wallet = WALLET): Promise<T> {
    const response = await fetch(`${this.url}/wallet/${wallet}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: this.authorization },
      body: JSON.stringify({ jsonrpc: '1.0', method, params, id: 1 }),
    });
    const text = await response.text();
    let body: { result?: T; error?: { message: string } | null };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new Error(`${method}: HTTP ${response.status} ${text}`);
    }
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  }

  /** Whether the node publishes ZMQ notifications (`getzmqnotifications` lists some; absent in builds without ZMQ). */
  async hasZmq(): Promise<boolean> {
    try {
      return (await this.rpc<unknown[]>('getzmqnotifications', [])).length > 0;
    } catch {
      return false;
    }
  }

  async height(): Promise<number> {
    return this.rpc('getblockcount', []);
  }

  /** Mines `blocks` blocks to the wallet; returns their hashes. */
  async mine(blocks: number): Promise<string[]> {
    return this.rpc('generatetoaddress', [blocks, this.miner]);
  }

  /** Pays `units` (litoshis) to `address` from the wallet (into the mempool); returns the txid. */
  async send(address: string, units: bigint): Promise<string> {
    const amount = `${units / 100_000_000n}.${(units % 100_000_000n).toString().padStart(8, '0')}`;
    return this.rpc('sendtoaddress', [address, amount]);
  }

  async mempool(): Promise<string[]> {
    return this.rpc('getrawmempool', []);
  }

  /**
   * Stops the node (SIGTERM, a clean shutdown: after a SIGKILL a regtest node restarts at height 0,
   * its block index never flushed), then starts it again on the same data and ports.
   */
  async restart(): Promise<void> {
    await this.process.stop(30_000);
    this.process = spawnGroup(LITECOIND, [...this.args], { stdio: 'ignore' });
    await this.ready();
  }

  async stop(): Promise<void> {
    await this.process.stop(10_000);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
