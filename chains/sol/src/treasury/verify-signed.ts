import { createPublicKey, verify } from 'node:crypto';
import { treasuryChainErrors, type AccountStep, type VerifiedStep } from '@gw/chain-api';
import { getBase58Decoder, getTransactionDecoder, type Transaction } from '@solana/kit';
import { addressBytes } from '../address.js';
import { decodeStepData } from './step-data.js';

/** The DER prefix of an ed25519 SubjectPublicKeyInfo: node's crypto takes a raw key only this way. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Whether `signature` is `publicKey`'s ed25519 signature of `message`. */
export function ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
  return verify(null, message, key, signature);
}

/**
 * Checks that `signed` (the wire transaction, base64: a compact-u16 count of signatures, the
 * 64-byte signatures, then the message) is exactly `step`'s message signed by the step's signer: the
 * message bytes identical to the plan's, one required signature, the signer's, and that signature a
 * valid ed25519 signature of the message by the signer's key. Returns the wire bytes (hex) and the
 * transaction id (the base58 signature).
 */
export function verifySignedTransaction(step: AccountStep, signed: string): VerifiedStep {
  const { bytes, message } = decodeStepData(step);
  const signer = step.signer.kind === 'deposit' ? step.signer.address : step.signer.account.address;
  if (message.header.numSignerAccounts !== 1 || message.staticAccounts[0] !== signer) {
    throw treasuryChainErrors.treasury_signed_mismatch({ message: `Step ${step.id}: the plan's message is not signed by ${signer} alone.` });
  }
  let tx: Transaction;
  try {
    const text = typeof signed === 'string' ? signed.trim() : '';
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) throw new Error('not base64');
    const wire = new Uint8Array(Buffer.from(text, 'base64'));
    tx = getTransactionDecoder().decode(wire);
  } catch (cause) {
    throw treasuryChainErrors.treasury_signed_unreadable({ message: `Step ${step.id}: not a Solana wire transaction (base64).`, cause });
  }
  if (!Buffer.from(tx.messageBytes).equals(Buffer.from(bytes))) {
    throw treasuryChainErrors.treasury_signed_mismatch({
      message: `Step ${step.id}: the signed message differs from the plan's (an account, amount, instruction or blockhash).`,
    });
  }
  const entries = Object.entries(tx.signatures);
  const signature = tx.signatures[signer as keyof typeof tx.signatures];
  if (entries.length !== 1 || !signature) {
    throw treasuryChainErrors.treasury_signed_incomplete({ message: `Step ${step.id}: the transaction carries no signature of ${signer}.` });
  }
  if (!ed25519Verify(addressBytes(signer), bytes, signature)) {
    throw treasuryChainErrors.treasury_signed_incomplete({ message: `Step ${step.id}: the signature is not by ${signer}'s key.` });
  }
  const wire = Buffer.concat([Buffer.from([1]), Buffer.from(signature), Buffer.from(bytes)]);
  return { kind: 'transaction', stepId: step.id, tx: { txid: getBase58Decoder().decode(signature), hex: wire.toString('hex') } };
}
