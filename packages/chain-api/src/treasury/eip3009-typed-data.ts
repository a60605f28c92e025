/**
 * EIP-3009's `TransferWithAuthorization` struct type, as EIP-712 typed data names it: what an
 * `evm-3009-authorization` step's typed data carries in `types` (besides `EIP712Domain`), written by
 * the EVM treasury and checked field for field by the signer before it signs.
 */
export const TRANSFER_WITH_AUTHORIZATION_TYPE: { name: string; type: string }[] = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
];
