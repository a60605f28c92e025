import type { ChainDefinition, NetworkDefinition } from '@gw/kernel';
import { fixtureJson, type ProviderReplay } from './recorded-scan.js';
import { jsonAnswer, type ReplayHandler } from '@gw/kernel/testing';

/**
 * EVM JSON-RPC (publicnode, the chains' own public RPCs) replayed from recorded answers in
 * chains/evm/test/fixtures (its README says where each was recorded and what is built here):
 * `eth_chainId`, `eth_blockNumber`, `eth_getBlockByNumber` (hydrated or not, `finalized`),
 * `eth_getLogs`, `eth_getTransactionReceipt`, single calls and batches.
 */

interface RecordedBlock {
  readonly number: string;
  readonly hash: string;
  readonly parentHash: string;
  readonly transactions: readonly { readonly hash: string }[];
}

interface RecordedLog {
  readonly address: string;
  readonly topics: readonly string[];
  readonly blockNumber: string;
}

interface RecordedReceipt {
  readonly transactionHash: string;
  readonly logs: readonly RecordedLog[];
}

/** One chain family's recordings: blocks with full transactions, their receipts, and the recorded tip. */
interface EvmRecordings {
  readonly folder: string;
  readonly blocks: readonly RecordedBlock[];
  readonly receipts: readonly RecordedReceipt[];
  /** `eth_blockNumber` as recorded on that chain's mainnet. */
  readonly blockNumber: string;
  /** The block a test scans. */
  readonly scanned: number;
  readonly describe: string;
}

/** A recorded answer's `result`: some sources kept the JSON-RPC envelope, some only the result. */
function result<T>(folder: string, file: string): T {
  const value = fixtureJson<Record<string, unknown>>('evm', `${folder}/${file}`);
  return ('jsonrpc' in value ? value['result'] : value) as T;
}

function recordings(chain: string): EvmRecordings {
  switch (chain) {
    case 'polygon':
      return {
        folder: 'polygon',
        blocks: [9013765, 9013766, 9013767].map((n) => result<RecordedBlock>('polygon', `block-${n}.json`)),
        receipts: ['479778ca', '4c4ff26c', '9a172892', 'bd6eed33'].map((h) => result<RecordedReceipt>('polygon', `receipt-${h}.json`)),
        blockNumber: result<string>('polygon', 'block-number.json'),
        scanned: 9013767,
        describe: 'Polygon blocks 9013765-9013767 (polygon-etl test data)',
      };
    case 'bsc':
      return {
        folder: 'bsc',
        blocks: [result<RecordedBlock>('bsc', 'block-26803.json')],
        receipts: [],
        blockNumber: result<string>('bsc', 'block-number.json'),
        scanned: 26803,
        describe: 'BNB Smart Chain block 26803 (GetBlock docs)',
      };
    default:
      // eth, and base (no Base recording was found: an OP-stack node answers the same methods in the same shape).
      return {
        folder: 'ethereum',
        blocks: [result<RecordedBlock>('ethereum', 'block-16057407.json')],
        receipts: [result<RecordedReceipt>('ethereum', 'receipt-3d65eb0f.json')],
        blockNumber: result<string>('ethereum', 'block-number.json'),
        scanned: 16057407,
        describe: chain === 'eth' ? 'Ethereum block 16057407 (hypersync test data)' : 'Ethereum block 16057407 (no Base recording)',
      };
  }
}

const hex = (n: number): string => `0x${n.toString(16)}`;

/** The replay of `chain`'s recorded EVM answers as a provider of `network` (its chain id is the network's). */
export function evmRpcReplay(chain: ChainDefinition, network: NetworkDefinition): ProviderReplay {
  if (network.evmChainId === undefined) throw new Error(`${chain.id}/${network.id} is not an EVM network`);
  const recorded = recordings(chain.id);
  const byNumber = new Map(recorded.blocks.map((b) => [Number(BigInt(b.number)), b]));
  const receipts = new Map(recorded.receipts.map((r) => [r.transactionHash.toLowerCase(), r]));
  const logs = recorded.receipts.flatMap((r) => r.logs);
  const chainId = hex(network.evmChainId);

  const call = (method: string, params: readonly unknown[]): { result: unknown } | { error: { code: number; message: string } } => {
    switch (method) {
      case 'eth_chainId':
        return { result: chainId };
      case 'eth_blockNumber':
        return { result: recorded.blockNumber };
      case 'eth_getBlockByNumber': {
        const [tag, full] = params as [string, boolean];
        // No recording holds a `finalized` answer: a node that knows no such block answers null.
        if (!/^0x[0-9a-f]+$/i.test(tag)) return { result: null };
        const block = byNumber.get(Number(BigInt(tag)));
        if (!block) return { result: null };
        return { result: full ? block : { ...block, transactions: block.transactions.map((tx) => tx.hash) } };
      }
      case 'eth_getLogs': {
        const [filter] = params as [{ fromBlock: string; toBlock: string; address?: string | string[]; topics?: (string | null)[] }];
        const from = Number(BigInt(filter.fromBlock));
        const to = Number(BigInt(filter.toBlock));
        const addresses = filter.address === undefined ? undefined : new Set([filter.address].flat().map((a) => a.toLowerCase()));
        const topic0 = filter.topics?.[0]?.toLowerCase();
        return {
          result: logs.filter((log) => {
            const n = Number(BigInt(log.blockNumber));
            return (
              n >= from &&
              n <= to &&
              (addresses === undefined || addresses.has(log.address.toLowerCase())) &&
              (topic0 == null || log.topics[0]?.toLowerCase() === topic0)
            );
          }),
        };
      }
      case 'eth_getTransactionReceipt':
        return { result: receipts.get(String(params[0]).toLowerCase()) ?? null };
      default:
        return { error: { code: -32601, message: `the method ${method} does not exist/is not available` } };
    }
  };

  const handler: ReplayHandler = ({ method, body }) => {
    if (method !== 'POST') return jsonAnswer({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } }, 405);
    const parsed = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] } | { id: unknown; method: string; params?: unknown[] }[];
    const answer = (c: { id: unknown; method: string; params?: unknown[] }) => ({ jsonrpc: '2.0', id: c.id, ...call(c.method, c.params ?? []) });
    return jsonAnswer(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed));
  };

  const scanned = byNumber.get(recorded.scanned)!;
  return {
    api: 'evm-json-rpc',
    recordings: recorded.describe,
    handler,
    scan: { headHeight: Number(BigInt(recorded.blockNumber)), height: recorded.scanned, hash: scanned.hash, watched: [], transfers: [] },
  };
}
