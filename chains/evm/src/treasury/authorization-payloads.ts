import type { TransferAuthorizationJson } from '@gw/chain-api';
import { getAddress, type AuthorizationRequest, type TypedDataDomain, type TypedDataField } from 'ethers';

/**
 * The JSON an `evm-7702-authorization` step carries: what the deposit address signs to delegate to
 * the sweeper, `keccak256(0x05 ‖ rlp([chainId, address, nonce]))` (EIP-7702). Numbers as decimal strings.
 */
export interface AuthorizationPayload {
  readonly chainId: string;
  /** The contract delegated to (the sweeper). */
  readonly address: string;
  /** The deposit address's account nonce when the authorization is carried. */
  readonly nonce: string;
}

export function authorizationPayload(chainId: bigint, contract: string, nonce: bigint): string {
  return JSON.stringify({ chainId: chainId.toString(), address: getAddress(contract), nonce: nonce.toString() } satisfies AuthorizationPayload);
}

export function parseAuthorizationPayload(data: string): AuthorizationRequest & { chainId: bigint; nonce: bigint; address: string } {
  const payload = JSON.parse(data) as AuthorizationPayload;
  return { chainId: BigInt(payload.chainId), address: getAddress(payload.address), nonce: BigInt(payload.nonce) };
}

/**
 * The JSON an `evm-3009-authorization` step carries: the EIP-712 typed data of
 * `TransferWithAuthorization`, in the `eth_signTypedData_v4` shape (domain, types, primaryType,
 * message; integers as decimal strings).
 */
export interface TypedDataPayload {
  readonly domain: { readonly name: string; readonly version: string; readonly chainId: string; readonly verifyingContract: string };
  readonly types: Record<string, TypedDataField[]>;
  readonly primaryType: 'TransferWithAuthorization';
  readonly message: TransferAuthorizationJson;
}

export function parseTypedDataPayload(data: string): {
  domain: TypedDataDomain;
  types: Record<string, TypedDataField[]>;
  message: TypedDataPayload['message'];
} {
  const payload = JSON.parse(data) as TypedDataPayload;
  const types = { ...payload.types };
  delete types['EIP712Domain'];
  return { domain: { ...payload.domain, chainId: BigInt(payload.domain.chainId) }, types, message: payload.message };
}
