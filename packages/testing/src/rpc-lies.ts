import { randomBytes } from 'node:crypto';
import { TRANSFER_TOPIC } from '@gw/chain-evm';
import { getAddress, toBeHex, zeroPadValue } from 'ethers';
import type { RpcCall, RpcRewrite } from './rpc-proxy.js';

/** A made-up ERC-20 transfer: what a lying EVM provider reports that never happened on the node. */
export interface InventedTokenTransfer {
  /** The token contract whose `Transfer` log is made up (the definition's contract, so the gateway reads it). */
  readonly token: string;
  readonly from: string;
  readonly to: string;
  /** Base units. */
  readonly amount: bigint;
  /** The real block it is put in. */
  readonly height: number;
  /** Default: 32 random bytes (a transaction no node has). */
  readonly txHash?: string;
  /** Default 0. */
  readonly logIndex?: number;
}

/**
 * The rewrite (`RpcProxy.rewrite`) of a provider that lies about one payment: every `eth_getLogs`
 * answer whose range covers `lie.height` and whose filter takes `lie.token` gets a `Transfer` log
 * of `lie.amount` from `lie.from` to `lie.to` that the node never had, in the node's real block at
 * that height (its hash asked of `node` when first needed, so the log and the blocks of the same
 * answer agree, as a careful liar's would). Everything else is the node's answer. Returns the
 * rewrite and the invented transaction's hash.
 */
export function inventTokenTransfer(
  node: { rpc<T>(method: string, params: unknown[]): Promise<T> },
  lie: InventedTokenTransfer,
): { rewrite: RpcRewrite; txHash: string } {
  const txHash = lie.txHash ?? `0x${randomBytes(32).toString('hex')}`;
  const rewrite: RpcRewrite = async (call, result) => {
    if (call.method !== 'eth_getLogs' || !Array.isArray(result) || !takes(call, lie.token, lie.height)) return result;
    const block = await node.rpc<{ hash: string } | null>('eth_getBlockByNumber', [toBeHex(lie.height), false]);
    if (block === null) return result;
    const log = {
      address: getAddress(lie.token),
      topics: [TRANSFER_TOPIC, zeroPadValue(getAddress(lie.from), 32).toLowerCase(), zeroPadValue(getAddress(lie.to), 32).toLowerCase()],
      data: zeroPadValue(toBeHex(lie.amount), 32),
      blockNumber: toBeHex(lie.height),
      blockHash: block.hash,
      transactionHash: txHash,
      transactionIndex: '0x0',
      logIndex: toBeHex(lie.logIndex ?? 0),
      removed: false,
    };
    return [...result, log];
  };
  return { rewrite, txHash };
}

/** Whether an `eth_getLogs` call's filter covers block `height` and the contract `token`. */
function takes(call: RpcCall, token: string, height: number): boolean {
  const filter = call.params[0] as { fromBlock?: string; toBlock?: string; address?: string | string[]; topics?: (string | null)[] } | undefined;
  if (!filter || typeof filter.fromBlock !== 'string' || typeof filter.toBlock !== 'string') return false;
  if (!filter.fromBlock.startsWith('0x') || !filter.toBlock.startsWith('0x')) return false;
  if (Number(BigInt(filter.fromBlock)) > height || Number(BigInt(filter.toBlock)) < height) return false;
  const addresses = filter.address === undefined ? undefined : [filter.address].flat().map((a) => a.toLowerCase());
  if (addresses !== undefined && !addresses.includes(token.toLowerCase())) return false;
  const topic = filter.topics?.[0];
  return topic === undefined || topic === null || topic.toLowerCase() === TRANSFER_TOPIC;
}

/**
 * The rewrite of a provider stuck at `height` (a lagging node, or one whose sync stalled): its
 * `eth_blockNumber` goes no higher, the blocks above it and their logs are not there yet (`null`,
 * as a node answers for a block it does not have), and it declares no finalized block above it.
 */
export function stuckAt(height: number): RpcRewrite {
  return (call, result) => {
    switch (call.method) {
      case 'eth_blockNumber':
        return typeof result === 'string' && Number(BigInt(result)) > height ? toBeHex(height) : result;
      case 'eth_getBlockByNumber': {
        const number = (result as { number?: string } | null)?.number;
        return typeof number === 'string' && Number(BigInt(number)) > height ? null : result;
      }
      case 'eth_getLogs':
        return Array.isArray(result)
          ? result.filter((log: { blockNumber?: string }) => log.blockNumber === undefined || Number(BigInt(log.blockNumber)) <= height)
          : result;
      default:
        return result;
    }
  };
}
