import { getAddress, Interface } from 'ethers';

/**
 * Multicall3 (the contract deployed at 0xcA11bde05977b3631167028862bE2a173976CA11 on most EVM
 * networks): the two functions the treasury uses. `aggregate3` makes calls in order, each failing
 * alone when `allowFailure` (reads) or reverting the whole batch (sweep submissions);
 * `getEthBalance` reads a native balance inside such a batch.
 */
/**
 * Where Multicall3 is deployed on every network the gateway's EVM definitions name (the same
 * address everywhere: a keyless deployment; docs/chains-sources.md).
 */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11';

export const MULTICALL3_ABI = new Interface([
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
  'function getEthBalance(address addr) view returns (uint256 balance)',
]);

export interface Call3 {
  readonly target: string;
  readonly allowFailure: boolean;
  readonly callData: string;
}

const AGGREGATE3_SELECTOR = MULTICALL3_ABI.getFunction('aggregate3')!.selector.slice(2);
const word = (n: number | bigint): string => n.toString(16).padStart(64, '0');

/**
 * `aggregate3(calls)` calldata. Written out by hand rather than through ethers' ABI coder, which
 * takes seconds for the thousands of calls of a 1,000-address plan; multicall3.test.ts checks it
 * against the coder, byte for byte.
 */
export function encodeAggregate3(calls: readonly Call3[]): string {
  const tuples = calls.map((call) => {
    const data = call.callData.slice(2);
    const padded = data.padEnd(Math.ceil(data.length / 64) * 64, '0');
    return `${word(BigInt(getAddress(call.target)))}${word(call.allowFailure ? 1 : 0)}${word(0x60)}${word(data.length / 2)}${padded}`;
  });
  const heads: string[] = [];
  let offset = calls.length * 32;
  for (const tuple of tuples) {
    heads.push(word(offset));
    offset += tuple.length / 2;
  }
  return `0x${AGGREGATE3_SELECTOR}${word(0x20)}${word(calls.length)}${heads.join('')}${tuples.join('')}`;
}

/**
 * The answers of an `aggregate3` read, in call order: the return data, or null for a call that
 * failed. Read by hand (see `encodeAggregate3`); throws on an answer of the wrong shape.
 */
export function decodeAggregate3(data: string): (string | null)[] {
  const hex = data.startsWith('0x') ? data.slice(2) : data;
  const at = (byte: number): number => {
    const text = hex.slice(byte * 2, byte * 2 + 64);
    if (text.length !== 64) throw new Error('aggregate3 answer is truncated');
    const value = BigInt(`0x${text}`);
    if (value > BigInt(hex.length)) throw new Error('aggregate3 answer has an offset out of range');
    return Number(value);
  };
  const array = at(0);
  const length = at(array);
  const base = array + 32;
  const results: (string | null)[] = [];
  for (let i = 0; i < length; i++) {
    const tuple = base + at(base + i * 32);
    const success = at(tuple) === 1;
    const bytes = tuple + at(tuple + 32);
    const size = at(bytes);
    const start = (bytes + 32) * 2;
    if (start + size * 2 > hex.length) throw new Error('aggregate3 answer is truncated');
    results.push(success ? `0x${hex.slice(start, start + size * 2)}` : null);
  }
  return results;
}
