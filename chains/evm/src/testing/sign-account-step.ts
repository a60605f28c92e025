import type { AccountStep } from '@gw/chain-api';
import { Transaction, TypedDataEncoder, Wallet } from 'ethers';
import { parseAuthorizationPayload, parseTypedDataPayload } from '../treasury/authorization-payloads.js';

/**
 * FOR TESTS ONLY (the gateway holds no key; the offline signer is `gateway-signer`'s job): signs one
 * EVM account-treasury step with `privateKey` the way a signer does. A transaction step gives the
 * signed serialized transaction, an authorization step the 65-byte signature (EIP-7702 authorization
 * hash, or the EIP-712 digest of `eth_signTypedData_v4` for EIP-3009).
 */
export function signAccountStep(step: AccountStep, privateKey: string): string {
  const wallet = new Wallet(privateKey);
  switch (step.unsigned.format) {
    case 'evm-tx': {
      const tx = Transaction.from(step.unsigned.data);
      tx.signature = wallet.signingKey.sign(tx.unsignedHash);
      return tx.serialized;
    }
    case 'evm-7702-authorization':
      return wallet.authorizeSync(parseAuthorizationPayload(step.unsigned.data)).signature.serialized;
    case 'evm-3009-authorization': {
      const typed = parseTypedDataPayload(step.unsigned.data);
      return wallet.signingKey.sign(TypedDataEncoder.hash(typed.domain, typed.types, typed.message)).serialized;
    }
    default:
      throw new Error(`not an EVM step: ${step.unsigned.format}`);
  }
}
