import { treasuryChainErrors, type AccountStep } from '@gw/chain-api';
import { getCompiledTransactionMessageDecoder, type CompiledTransactionMessage } from '@solana/kit';

/**
 * The unsigned data of a `sol-tx` step: JSON text
 *
 * - `{"message": "<base64>", "lifetime": "blockhash", "last_valid_block_height": "<decimal>"}`, or
 * - `{"message": "<base64>", "lifetime": "nonce", "nonce_account": "<base58>"}`,
 *
 * where `message` is the serialized legacy transaction message (standard base64 with padding):
 * exactly the bytes the signer's ed25519 signature covers. A `blockhash` message carries a recent
 * blockhash and cannot land once the chain's block height passes `last_valid_block_height`; a
 * `nonce` message carries the durable nonce of `nonce_account` as its blockhash and begins with the
 * System program's `AdvanceNonceAccount` of that account (docs/adr/0015).
 */
export type SolStepData =
  | { readonly message: string; readonly lifetime: 'blockhash'; readonly last_valid_block_height: string }
  | { readonly message: string; readonly lifetime: 'nonce'; readonly nonce_account: string };

export function encodeStepData(data: SolStepData): string {
  return JSON.stringify(data);
}

/** The step's data with its message bytes and decoded message; `treasury_signed_mismatch` when the step is no `sol-tx` step of this shape. */
export function decodeStepData(step: AccountStep): { data: SolStepData; bytes: Uint8Array; message: CompiledTransactionMessage } {
  const bad = (why: string): never => {
    throw treasuryChainErrors.treasury_signed_mismatch({ message: `Step ${step.id}: ${why}` });
  };
  if (step.unsigned.format !== 'sol-tx') bad('it is not a Solana transaction step.');
  let data: SolStepData;
  try {
    data = JSON.parse(step.unsigned.data) as SolStepData;
  } catch {
    return bad('its unsigned data is not JSON.');
  }
  if (typeof data?.message !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(data.message)) bad('its message is not base64.');
  if (data.lifetime === 'blockhash') {
    if (typeof data.last_valid_block_height !== 'string' || !/^[0-9]+$/.test(data.last_valid_block_height)) bad('no last_valid_block_height.');
  } else if (data.lifetime === 'nonce') {
    if (typeof data.nonce_account !== 'string') bad('no nonce_account.');
  } else bad('its lifetime is neither blockhash nor nonce.');
  const bytes = new Uint8Array(Buffer.from(data.message, 'base64'));
  let message: CompiledTransactionMessage;
  try {
    message = getCompiledTransactionMessageDecoder().decode(bytes) as CompiledTransactionMessage;
  } catch {
    return bad('its message does not decode.');
  }
  return { data, bytes, message };
}
