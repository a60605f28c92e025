import { TRANSFER_WITH_AUTHORIZATION_TYPE, type TransferAuthorization } from '@gw/kernel';
import type { Signer, TypedDataDomain } from 'ethers';

/**
 * `signer`'s signature of an EIP-3009 `TransferWithAuthorization` under a token's EIP-712 `domain`,
 * as a payer's wallet or an x402 client signs it (`eth_signTypedData_v4`, the struct type of
 * `@gw/chain-api`).
 */
export function signTransferAuthorization(
  signer: Pick<Signer, 'signTypedData'>,
  domain: TypedDataDomain,
  authorization: TransferAuthorization,
): Promise<string> {
  return signer.signTypedData(domain, { TransferWithAuthorization: TRANSFER_WITH_AUTHORIZATION_TYPE }, { ...authorization });
}
