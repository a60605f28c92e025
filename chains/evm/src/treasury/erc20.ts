import { Interface } from 'ethers';

/** The ERC-20 calls the treasury makes (`transfer` of tokens that answer nothing, like USDT, works the same). */
export const ERC20_ABI = new Interface([
  'function balanceOf(address owner) view returns (uint256)',
  'function transfer(address to, uint256 amount) returns (bool)',
]);

export const balanceOfData = (owner: string): string => ERC20_ABI.encodeFunctionData('balanceOf', [owner]);
export const transferData = (to: string, amount: bigint): string => ERC20_ABI.encodeFunctionData('transfer', [to, amount]);
