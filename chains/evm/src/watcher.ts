import {
  expectShape,
  ProviderError,
  type ChainDefinition,
  type ChainHead,
  type ChainWatcher,
  type CoinId,
  type JsonRpcAnswer,
  type ObservedTransfer,
  type ProviderEndpoint,
  type ProviderHttp,
  type ScannedBlock,
  type WatchedAddresses,
  type HeadListener,
  type Unsubscribe,
  type WatcherOptions,
} from '@gw/chain-api';
import { subscribeNewHeads } from './heads.js';
import { jsonRpcBatch } from './json-rpc-batch.js';
import { getAddress } from 'ethers';

/** keccak256("Transfer(address,address,uint256)"): the ERC-20/BEP-20 transfer event. */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

interface RpcBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  transactions: { hash: string; to: string | null; from: string; value: string }[];
}

interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

const hex = (n: number) => `0x${n.toString(16)}`;

/**
 * Watches one EVM network (eth, polygon, bsc) over JSON-RPC: native value transfers from full
 * blocks (`eth_getBlockByNumber`, batched), token transfers from `Transfer` logs of the
 * definition's contracts (`eth_getLogs` over the range), receipts only for native candidates to
 * watched addresses (a reverted transaction moves no value). The provider's `eth_chainId` must be
 * the network's; a node of another chain is a failing provider, never a source of transfers.
 *
 * Value moved by internal calls (a contract forwarding ETH) is not observed: deposit addresses are
 * plain accounts that partners pay directly.
 */
export class EvmWatcher implements ChainWatcher {
  readonly maxBlocksPerScan = 20;
  /** Push over `eth_subscribe("newHeads")`, when a configured provider has a `wsUrl` (see `subscribeNewHeads`). */
  readonly subscribeHeads?: (listener: HeadListener) => Unsubscribe;
  private readonly tokens: ReadonlyMap<string, CoinId>;
  private readonly nativeCoin: CoinId;

  constructor(
    private readonly definition: ChainDefinition,
    private readonly options: WatcherOptions,
  ) {
    const network = options.network.id;
    const native = definition.coins.find((c) => !c.contracts);
    if (!native) throw new Error(`EVM chain ${definition.id} has no native coin`);
    this.nativeCoin = native.id;
    if (options.providers.endpoints.some((e) => e.wsUrl !== undefined))
      this.subscribeHeads = (listener) => subscribeNewHeads(options.providers.endpoints, listener);
    this.tokens = new Map(definition.coins.filter((c) => c.contracts?.[network]).map((c) => [c.contracts![network]!.toLowerCase(), c.id]));
  }

  async head(): Promise<ChainHead> {
    return this.options.providers.run('head', async (http, endpoint) => {
      const [latest, finalized] = await this.batch(http, endpoint, [
        ['eth_blockNumber', []],
        ['eth_getBlockByNumber', ['finalized', false]],
      ]);
      expectShape(typeof latest?.result === 'string', 'eth_blockNumber');
      const height = Number(BigInt(latest!.result as string));
      // Networks (and nodes) without the tag answer an error or null: no declared finality.
      const final = finalized?.result as { number?: string } | null | undefined;
      return { height, ...(final && typeof final.number === 'string' ? { finalized: Number(BigInt(final.number)) } : {}) };
    });
  }

  async blockHash(height: number): Promise<string | null> {
    return this.options.providers.run('block_hash', async (http, endpoint) => {
      const [response] = await this.batch(http, endpoint, [['eth_getBlockByNumber', [hex(height), false]]]);
      const block = response?.result as { hash?: string } | null;
      if (block === null || block === undefined) return null;
      expectShape(typeof block.hash === 'string', 'block hash');
      return block.hash!;
    });
  }

  async scan(from: number, to: number, watched: WatchedAddresses): Promise<ScannedBlock[]> {
    if (to < from) return [];
    return this.options.providers.run('scan', async (http, endpoint) => {
      const heights = Array.from({ length: to - from + 1 }, (_, i) => from + i);
      const calls: [string, unknown[]][] = heights.map((h) => ['eth_getBlockByNumber', [hex(h), true]]);
      if (this.tokens.size > 0)
        calls.push(['eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(to), address: [...this.tokens.keys()], topics: [TRANSFER_TOPIC] }]]);
      const responses = await this.batch(http, endpoint, calls);
      const blocks = responses.slice(0, heights.length).map((r, i) => {
        const block = r.result as RpcBlock | null;
        // A block the node does not have yet: the caller asked beyond the head it was given.
        if (block === null) throw new ProviderError('malformed', '', `block ${heights[i]} is not on this node yet`);
        expectShape(typeof block?.hash === 'string' && typeof block.parentHash === 'string' && Array.isArray(block.transactions), `block ${heights[i]}`);
        expectShape(Number(BigInt(block.number)) === heights[i], `block ${heights[i]} number`);
        return block;
      });
      const logs = this.tokens.size > 0 ? (responses[heights.length]!.result as RpcLog[]) : [];
      expectShape(Array.isArray(logs), 'eth_getLogs');

      const byHash = new Map(blocks.map((b) => [b.hash.toLowerCase(), b]));
      const candidates: (ObservedTransfer & { needsReceipt: boolean })[] = [];
      for (const block of blocks) {
        const base = this.blockFields(block);
        for (const tx of block.transactions) {
          if (!tx.to || BigInt(tx.value) === 0n) continue;
          candidates.push({
            ...base,
            coin: this.nativeCoin,
            txHash: tx.hash,
            outputIndex: 0,
            toAddress: getAddress(tx.to),
            fromAddress: getAddress(tx.from),
            amountUnits: BigInt(tx.value),
            needsReceipt: true,
          });
        }
      }
      for (const log of logs) {
        if (log.removed) continue;
        const block = byHash.get(log.blockHash.toLowerCase());
        // The logs came from another fork than the blocks: the range changed under us; retry it.
        if (!block) throw new ProviderError('malformed', '', `log of block ${log.blockHash} outside the scanned blocks (the chain moved)`);
        if (log.topics.length !== 3 || log.topics[0]!.toLowerCase() !== TRANSFER_TOPIC) continue;
        const coin = this.tokens.get(log.address.toLowerCase());
        if (!coin) continue;
        candidates.push({
          ...this.blockFields(block),
          coin,
          txHash: log.transactionHash,
          outputIndex: Number(BigInt(log.logIndex)) + 1,
          toAddress: getAddress(`0x${log.topics[2]!.slice(-40)}`),
          fromAddress: getAddress(`0x${log.topics[1]!.slice(-40)}`),
          amountUnits: log.data === '0x' ? 0n : BigInt(log.data),
          needsReceipt: false,
        });
      }

      const hits = candidates.length === 0 ? new Set<string>() : await watched.filter([...new Set(candidates.map((c) => c.toAddress))]);
      const matched = candidates.filter((c) => hits.has(c.toAddress) && c.amountUnits > 0n);
      const native = matched.filter((c) => c.needsReceipt);
      const failed = new Set<string>();
      if (native.length > 0) {
        const receipts = await this.batch(
          http,
          endpoint,
          native.map((c) => ['eth_getTransactionReceipt', [c.txHash]] as [string, unknown[]]),
        );
        receipts.forEach((r, i) => {
          const receipt = r.result as { status?: string } | null;
          expectShape(receipt && typeof receipt.status === 'string', `receipt of ${native[i]!.txHash}`);
          if (BigInt(receipt!.status!) !== 1n) failed.add(native[i]!.txHash);
        });
      }
      return blocks.map((block) => ({
        height: Number(BigInt(block.number)),
        hash: block.hash,
        parentHash: block.parentHash,
        time: new Date(Number(BigInt(block.timestamp)) * 1000),
        transfers: matched
          .filter((c) => c.blockHash === block.hash && !(c.needsReceipt && failed.has(c.txHash)))
          .map(({ needsReceipt: _, ...transfer }) => transfer),
      }));
    });
  }

  private blockFields(block: RpcBlock) {
    return {
      chain: this.definition.id,
      network: this.options.network.id,
      blockHeight: Number(BigInt(block.number)),
      blockHash: block.hash,
      observedAt: new Date(Number(BigInt(block.timestamp)) * 1000),
    };
  }

  /** One JSON-RPC batch (`jsonRpcBatch`: the chain id checked, paced endpoints asked in requests of their size), answers in call order. */
  private async batch(http: ProviderHttp, endpoint: ProviderEndpoint, calls: readonly [string, unknown[]][]): Promise<JsonRpcAnswer[]> {
    const answers = await jsonRpcBatch(http, endpoint, this.options.network, calls);
    return answers.map((answer, i) => {
      expectShape(answer !== undefined, `JSON-RPC answer to ${calls[i]![0]}`);
      // The finalized tag is optional; every other error fails the provider.
      if (answer!.error && !(calls[i]![0] === 'eth_getBlockByNumber' && calls[i]![1][0] === 'finalized')) {
        throw new ProviderError('http_error', '', `${calls[i]![0]}: ${answer!.error.message ?? 'JSON-RPC error'}`);
      }
      return answer!;
    });
  }
}
