import { Interface } from 'ethers';

/** The ERC-20 calls the treasury makes (`transfer` of tokens that answer nothing, like USDT, works the same). */
export const ERC20_ABI = new Interface([
  'function balanceOf(address owner) view returns (uint256)',
  'function transfer(address to, uint256 amount) returns (bool)',
]);

export const balanceOfData = (owner: string): string => ERC20_ABI.encodeFunctionData('balanceOf', [owner]);
/** `transfer(to, amount)` calldata, written out (thousands per plan; the ABI coder is slow): plan-calldata.test.ts checks it against the coder. */
export const transferData = (to: string, amount: bigint): string => `0xa9059cbb${word(BigInt(to))}${word(amount)}`;

/** One ABI word of a non-negative integer (an address, an amount). */
export function word(n: bigint | number): string {
  if (n < 0 || BigInt(n) >= 1n << 256n) throw new RangeError('not a uint256');
  return n.toString(16).padStart(64, '0');
}
