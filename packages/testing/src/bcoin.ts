import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { spawnGroup, untilAnswering, untilReadyLine, type ProcessGroup } from '@gw/kernel/testing';
import { FIXED_RATES } from './chains.js';

const here = dirname(fileURLToPath(import.meta.url));

/** What a test needs of its bcoin node beyond the defaults. */
export interface BcoinOptions {
  /** Publish Bitcoin Core's ZMQ `hashblock`/`rawtx` on a port the node binds itself (reported as `zmqUrl`). */
  readonly zmq?: boolean;
  /**
   * Let the mempool take transactions that signal BIP 125 replaceability (bcoin 1.0.2 refuses them
   * by default as non-standard). bcoin 1.0.2 still never replaces a mempool transaction: a
   * conflicting one is refused, whatever its fee.
   */
  readonly replaceByFee?: boolean;
}

/**
 * A real Bitcoin node: bcoin 1.0.2 on regtest (bcoin-launcher.cjs), in memory, on ports it binds itself, with
 * its wallet. Its RPC answers Bitcoin Core's methods (`getblock hash true true` for full
 * transactions, the older `scriptPubKey.addresses[]` form); the gateway reads it as a
 * `bitcoin-core` provider with the api key as Basic auth password.
 */
export class Bcoin {
  private miner = '';
  private constructor(
    private readonly process: ProcessGroup,
    private readonly prefix: string,
    readonly url: string,
    readonly walletUrl: string,
    readonly apiKey: string,
    /** Where the node publishes Core's ZMQ notifications (`BcoinOptions.zmq`). */
    readonly zmqUrl: string | undefined,
  ) {}

  /** {@link start}, then blocks mined until its coinbase outputs are mature (100 blocks) and segwit is active (height 432 on bcoin's regtest). */
  static async startMature(options: BcoinOptions = {}): Promise<Bcoin> {
    const node = await Bcoin.start(options);
    await node.mine(440);
    return node;
  }

  static async start(options: BcoinOptions = {}): Promise<Bcoin> {
    const apiKey = randomBytes(16).toString('hex');
    const prefix = mkdtempSync(join(tmpdir(), 'gw-bcoin-'));
    const args = [
      join(here, 'bcoin-launcher.cjs'),
      `--prefix=${prefix}`,
      '--http-host=127.0.0.1',
      '--http-port=0',
      '--wallet-http-port=0',
      `--api-key=${apiKey}`,
      `--wallet-api-key=${apiKey}`,
      '--log-level=error',
      ...(options.replaceByFee ? ['--replace-by-fee=true'] : []),
    ];
    const env = { ...process.env, ...(options.zmq ? { GW_BCOIN_ZMQ: 'tcp://127.0.0.1:*' } : {}) };
    const group = spawnGroup(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let bound: { http: number; wallet: number; zmq: string | null };
    try {
      bound = JSON.parse(await untilReadyLine(group, 'ready ', 'bcoin'));
    } catch (error) {
      await group.stop();
      rmSync(prefix, { recursive: true, force: true });
      throw error;
    }
    const node = new Bcoin(group, prefix, `http://127.0.0.1:${bound.http}`, `http://127.0.0.1:${bound.wallet}`, apiKey, bound.zmq ?? undefined);
    await node.ready();
    return node;
  }

  private async ready(): Promise<void> {
    // The launcher reports ready once both servers listen; the probe reads the mining address.
    const probe = async () => {
      await this.rpc('getblockcount', []);
      return (await this.wallet<{ address: string }>('POST', '/wallet/primary/address', { account: 'default' })).address;
    };
    this.miner = await untilAnswering(this.process, probe, 'bcoin', () => this.stop());
  }

  private get authorization(): string {
    return `Basic ${Buffer.from(`x:${this.apiKey}`).toString('base64')}`;
  }

  async rpc<T = any>(method: string, params: unknown[]): Promise<T> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: this.authorization },
      body: JSON.stringify({ method, params, id: 1 }),
    });
    const body = (await response.json()) as { result?: T; error?: { message: string } | null };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  }

  async wallet<T = any>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const response = await fetch(this.walletUrl + path, {
      method,
      headers: { 'content-type': 'application/json', authorization: this.authorization },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }

  async height(): Promise<number> {
    return this.rpc('getblockcount', []);
  }

  /** Mines `blocks` blocks to the wallet; returns their hashes. */
  async mine(blocks: number): Promise<string[]> {
    return this.rpc('generatetoaddress', [blocks, this.miner]);
  }

  /** Pays `sats` to `address` from the wallet (into the mempool); returns the txid. */
  async send(address: string, sats: bigint): Promise<string> {
    const tx = await this.wallet<{ hash: string }>('POST', '/wallet/primary/send', { outputs: [{ address, value: Number(sats) }] });
    return tx.hash;
  }

  async mempool(): Promise<string[]> {
    return this.rpc('getrawmempool', []);
  }

  async stop(): Promise<void> {
    await this.process.stop();
    rmSync(this.prefix, { recursive: true, force: true });
  }
}

/**
 * The configuration watching `node` as btc/regtest (through its Bitcoin Core RPC) from its next
 * block, with the fixed test rates; a test adds its pools, scans and jobs.
 */
export async function bcoinRegtestConfig(node: Bcoin): Promise<Record<string, unknown>> {
  return {
    'chains.testNetworks': { btc: 'regtest' },
    'plugins.rates.providers': ['fixed'],
    'plugins.rates.fixed': FIXED_RATES,
    'plugins.watchers.chains': {
      btc: {
        regtest: {
          providers: [{ name: 'bcoin', url: node.url, username: 'gateway', password: node.apiKey, kind: 'bitcoin-core' }],
          startHeight: (await node.height()) + 1,
        },
      },
    },
  };
}
