import { expectShape } from '@gw/chain-api';
import { AbiCoder } from 'ethers';
import { balanceOfData } from './erc20.js';
import { quantity, type EvmRpc } from './evm-rpc.js';
import { decodeAggregate3, encodeAggregate3, MULTICALL3_ABI, type Call3 } from './multicall3.js';

/** What the treasury read of one account. */
export interface AccountState {
  readonly address: string;
  readonly native: bigint;
  /** By token contract (lower case). */
  readonly tokens: ReadonlyMap<string, bigint>;
  /** The next nonce, counting the node's pending transactions. */
  readonly nonce: bigint;
  /** The account's code (`0x` for a plain account; `0xef0100…` once EIP-7702 delegated), when asked for. */
  readonly code?: string;
}

/** Multicall3 calls per `eth_call`: about 5,000 gas each, well inside a node's call gas cap. */
const MULTICALL_CHUNK = 400;

/**
 * Reads native and token balances, nonces (and code, when `withCode`) of `addresses`. Balances go
 * through Multicall3's `aggregate3` (`getEthBalance`, `balanceOf`) in chunks where the network has
 * it, otherwise one `eth_getBalance` / `eth_call` per address and token, in JSON-RPC batches. All
 * reads are at the `latest` block except nonces (`pending`: a plan must not reuse a nonce the node
 * already holds a transaction for).
 */
export async function readAccounts(
  rpc: EvmRpc,
  addresses: readonly string[],
  tokenContracts: readonly string[],
  options: { readonly multicall3?: string | undefined; readonly withCode?: boolean } = {},
): Promise<AccountState[]> {
  const tokens = tokenContracts.map((t) => t.toLowerCase());
  const perAddress = 1 + tokens.length;
  const balances: bigint[] = [];
  if (options.multicall3) {
    const calls: Call3[] = addresses.flatMap((address) => [
      { target: options.multicall3!, allowFailure: true, callData: MULTICALL3_ABI.encodeFunctionData('getEthBalance', [address]) },
      ...tokens.map((token) => ({ target: token, allowFailure: true, callData: balanceOfData(address) })),
    ]);
    const chunks: [string, unknown[]][] = [];
    for (let start = 0; start < calls.length; start += MULTICALL_CHUNK) {
      chunks.push(['eth_call', [{ to: options.multicall3, data: encodeAggregate3(calls.slice(start, start + MULTICALL_CHUNK)) }, 'latest']]);
    }
    for (const answer of await rpc.batch('balances', chunks)) {
      expectShape(typeof answer.result === 'string', 'aggregate3 answer');
      for (const data of decodeAggregate3(answer.result as string)) balances.push(uint256(data));
    }
  } else {
    const calls: [string, unknown[]][] = addresses.flatMap((address) => [
      ['eth_getBalance', [address, 'latest']] as [string, unknown[]],
      ...tokens.map((token) => ['eth_call', [{ to: token, data: balanceOfData(address) }, 'latest']] as [string, unknown[]]),
    ]);
    const answers = await rpc.batch('balances', calls);
    answers.forEach((answer, i) => balances.push(i % perAddress === 0 ? quantity(answer, 'eth_getBalance') : uint256(answer.result as string)));
  }
  const extra: [string, unknown[]][] = addresses.flatMap((address) => [
    ['eth_getTransactionCount', [address, 'pending']] as [string, unknown[]],
    ...(options.withCode ? [['eth_getCode', [address, 'latest']] as [string, unknown[]]] : []),
  ]);
  const answers = await rpc.batch('nonces', extra);
  const step = options.withCode ? 2 : 1;
  return addresses.map((address, i) => {
    const code = options.withCode ? answers[i * step + 1]!.result : undefined;
    if (options.withCode) expectShape(typeof code === 'string', 'eth_getCode');
    return {
      address,
      native: balances[i * perAddress]!,
      tokens: new Map(tokens.map((token, t) => [token, balances[i * perAddress + 1 + t]!])),
      nonce: quantity(answers[i * step], 'eth_getTransactionCount'),
      ...(options.withCode ? { code: (code as string).toLowerCase() } : {}),
    };
  });
}

/** A `uint256` return value; a failed or empty call (no contract there) reads as 0. */
function uint256(data: string | null | undefined): bigint {
  if (typeof data !== 'string' || data.length < 66) return 0n;
  return AbiCoder.defaultAbiCoder().decode(['uint256'], data.slice(0, 66))[0] as bigint;
}
