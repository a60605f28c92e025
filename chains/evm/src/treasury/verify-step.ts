import { treasuryChainErrors, type AccountStep, type VerifiedStep } from '@gw/chain-api';
import { getAddress, Signature, Transaction, verifyAuthorization, verifyTypedData } from 'ethers';
import { signerAddress } from './plan-steps.js';
import { parseAuthorizationPayload, parseTypedDataPayload } from './authorization-payloads.js';

/** The fields of an EVM transaction a signed step must keep, in the order the first difference is named. */
const FIELDS = [
  'type',
  'chainId',
  'nonce',
  'to',
  'value',
  'data',
  'gasLimit',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'accessList',
  'authorizationList',
] as const;

/**
 * Checks a signed step (a signed serialized transaction, or a 65-byte signature of an authorization
 * step) is exactly `step` signed by its signer's key. See `AccountTreasury.verifySigned`.
 */
export function verifyEvmStep(step: AccountStep, signed: string): VerifiedStep {
  if (typeof signed !== 'string') throw treasuryChainErrors.treasury_signed_unreadable({ message: `Step ${step.id}: the signed form is not text.` });
  const text = signed.trim();
  const expected = getAddress(signerAddress(step));
  if (step.unsigned.format === 'evm-tx') {
    let tx: Transaction;
    try {
      tx = Transaction.from(text);
    } catch (error) {
      throw treasuryChainErrors.treasury_signed_unreadable({
        message: `Step ${step.id}: not a serialized EVM transaction (${(error as Error).message.slice(0, 120)}).`,
      });
    }
    const planned = Transaction.from(step.unsigned.data);
    for (const field of FIELDS) {
      const a = JSON.stringify(planned[field], bigints);
      const b = JSON.stringify(tx[field], bigints);
      if (a !== b)
        throw treasuryChainErrors.treasury_signed_mismatch({ message: `Step ${step.id}: the signed transaction's ${field} is ${b}, the plan's ${a}.` });
    }
    if (tx.unsignedSerialized !== planned.unsignedSerialized)
      throw treasuryChainErrors.treasury_signed_mismatch({ message: `Step ${step.id}: the signed transaction is not the planned one.` });
    if (!tx.signature || !tx.from) throw treasuryChainErrors.treasury_signed_incomplete({ message: `Step ${step.id}: the transaction is not signed.` });
    if (getAddress(tx.from) !== expected)
      throw treasuryChainErrors.treasury_signed_incomplete({ message: `Step ${step.id}: signed by ${tx.from}, not by ${expected}.` });
    return { kind: 'transaction', stepId: step.id, tx: { txid: tx.hash!, hex: tx.serialized } };
  }
  let signature: Signature;
  try {
    if (!/^0x[0-9a-fA-F]{130}$/.test(text)) throw new Error('not 65 bytes of hex');
    signature = Signature.from(text);
  } catch (error) {
    throw treasuryChainErrors.treasury_signed_unreadable({ message: `Step ${step.id}: not a 65-byte signature (${(error as Error).message.slice(0, 80)}).` });
  }
  let recovered: string;
  try {
    if (step.unsigned.format === 'evm-7702-authorization') {
      recovered = verifyAuthorization(parseAuthorizationPayload(step.unsigned.data), signature);
    } else if (step.unsigned.format === 'evm-3009-authorization') {
      const typed = parseTypedDataPayload(step.unsigned.data);
      recovered = verifyTypedData(typed.domain, typed.types, typed.message, signature);
    } else {
      throw treasuryChainErrors.treasury_signed_unreadable({ message: `Step ${step.id}: ${step.unsigned.format} is not an EVM step.` });
    }
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith?.('treasury_')) throw error;
    throw treasuryChainErrors.treasury_signed_incomplete({
      message: `Step ${step.id}: the signature recovers no key (${(error as Error).message.slice(0, 80)}).`,
    });
  }
  if (getAddress(recovered) !== expected)
    throw treasuryChainErrors.treasury_signed_incomplete({
      message: `Step ${step.id}: signed by ${recovered}, not by ${expected} (or not this authorization).`,
    });
  return { kind: 'authorization', stepId: step.id, signature: signature.serialized };
}

function bigints(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Signature) return value.serialized;
  return value;
}
