import { AbiCoder, Interface, TypedDataEncoder, type TypedDataDomain } from 'ethers';
import type { EvmRpc } from './evm-rpc.js';

/** keccak256 of EIP-3009's `TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)`. */
export const TRANSFER_WITH_AUTHORIZATION_TYPEHASH = '0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267';

/** The functions of an EIP-3009 token (USDC's) that the probe reads and authorized transfers call. */
export const EIP3009_ABI = new Interface([
  'function TRANSFER_WITH_AUTHORIZATION_TYPEHASH() view returns (bytes32)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function name() view returns (string)',
  'function version() view returns (string)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
]);

/** An `eth_call` of EIP-3009 function `fn` of `token` at the latest block, for `EvmRpc.batch`. */
export function eip3009Call(token: string, fn: string, args: readonly unknown[] = []): [string, unknown[]] {
  return ['eth_call', [{ to: token, data: EIP3009_ABI.encodeFunctionData(fn, args) }, 'latest']];
}

/**
 * Whether `token` implements EIP-3009 as USDC does, and its EIP-712 domain: it must answer the
 * `TRANSFER_WITH_AUTHORIZATION_TYPEHASH` constant and `authorizationState`, and its
 * `DOMAIN_SEPARATOR()` must be the domain built from its `name()`, `version()`, the chain id and
 * its address (so what the deposit addresses sign is exactly what the token checks).
 */
export async function probeEip3009(rpc: EvmRpc, token: string, chainId: bigint): Promise<{ domain: TypedDataDomain } | { unavailable: string }> {
  const call = (fn: string, args: unknown[] = []) => eip3009Call(token, fn, args);
  const answers = await rpc.batch(
    'eip3009_probe',
    [
      call('TRANSFER_WITH_AUTHORIZATION_TYPEHASH'),
      call('authorizationState', [token, `0x${'00'.repeat(32)}`]),
      call('DOMAIN_SEPARATOR'),
      call('name'),
      call('version'),
    ],
    true,
  );
  const [typehash, state, separator, name, version] = answers.map((a) => (typeof a.result === 'string' && a.result.length >= 66 ? (a.result as string) : null));
  if (typehash?.toLowerCase() !== TRANSFER_WITH_AUTHORIZATION_TYPEHASH || state === null)
    return { unavailable: `the token ${token} does not implement EIP-3009 transferWithAuthorization` };
  if (!separator || !name || !version) return { unavailable: `the token ${token} does not publish its EIP-712 domain (name, version, DOMAIN_SEPARATOR)` };
  const coder = AbiCoder.defaultAbiCoder();
  const domain: TypedDataDomain = {
    name: coder.decode(['string'], name)[0] as string,
    version: coder.decode(['string'], version)[0] as string,
    chainId,
    verifyingContract: token,
  };
  if (TypedDataEncoder.hashDomain(domain) !== separator.slice(0, 66).toLowerCase())
    return { unavailable: `the token ${token}'s DOMAIN_SEPARATOR is not its name, version, chain id and address` };
  return { domain };
}
