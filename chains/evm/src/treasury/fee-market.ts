import { expectShape } from '@gw/chain-api';
import { quantity, type EvmRpc } from './evm-rpc.js';

/** The EIP-1559 fees a plan fixes for all its transactions. */
export interface FeeMarket {
  readonly chainId: bigint;
  /** What each transaction may pay per gas at most: twice the latest base fee plus the tip. */
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

/**
 * Reads the chain id, the latest block's base fee and the node's suggested tip
 * (`eth_maxPriorityFeePerGas`). The max fee is 2 × base fee + tip, the usual headroom for six full
 * blocks of base-fee rise; a plan's fees (and a native sweep's amount) are computed against it, and
 * what a block charges below it is refunded to the sender (see docs/treasury.md, "EVM").
 */
export async function readFeeMarket(rpc: EvmRpc): Promise<FeeMarket> {
  const [chainId, block, tip] = await rpc.batch('fees', [
    ['eth_chainId', []],
    ['eth_getBlockByNumber', ['latest', false]],
    ['eth_maxPriorityFeePerGas', []],
  ]);
  const latest = block!.result as { baseFeePerGas?: string } | null;
  expectShape(latest !== null && typeof latest?.baseFeePerGas === 'string', 'latest block base fee (a chain without EIP-1559?)');
  const baseFee = BigInt(latest.baseFeePerGas);
  const priority = quantity(tip, 'eth_maxPriorityFeePerGas');
  return { chainId: quantity(chainId, 'eth_chainId'), maxFeePerGas: 2n * baseFee + priority, maxPriorityFeePerGas: priority };
}
