import { Interface } from 'ethers';

/**
 * Multicall3 (the contract deployed at 0xcA11bde05977b3631167028862bE2a173976CA11 on most EVM
 * networks): the two functions the treasury uses. `aggregate3` makes calls in order, each failing
 * alone when `allowFailure` (reads) or reverting the whole batch (sweep submissions);
 * `getEthBalance` reads a native balance inside such a batch.
 */
export const MULTICALL3_ABI = new Interface([
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
  'function getEthBalance(address addr) view returns (uint256 balance)',
]);

export interface Call3 {
  readonly target: string;
  readonly allowFailure: boolean;
  readonly callData: string;
}

export function encodeAggregate3(calls: readonly Call3[]): string {
  return MULTICALL3_ABI.encodeFunctionData('aggregate3', [calls.map((c) => [c.target, c.allowFailure, c.callData])]);
}

/** The answers of an `aggregate3` read, in call order: the return data, or null for a call that failed. */
export function decodeAggregate3(data: string): (string | null)[] {
  const [results] = MULTICALL3_ABI.decodeFunctionResult('aggregate3', data) as unknown as [[boolean, string][]];
  return results.map(([success, returnData]) => (success ? returnData : null));
}
