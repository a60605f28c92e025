import { treasuryChainErrors } from '@gw/chain-api';
import { Cell } from '@ton/core';

/**
 * What a TON step's `unsigned.data` holds (format `ton-external`), as JSON: the V5R1 signing
 * payload and what the signer needs to check it and wrap the signature into the external message.
 *
 * The signer computes `payload`'s cell hash, signs it with the operator's ed25519 key (the one key
 * behind every subwallet), and sends back the external-in message to `wallet` whose body is the
 * payload followed by the signature, carrying `state_init` when it is not null (an undeployed
 * V5R1 wallet deploys on its first external). It should decode `payload` itself (wallet id,
 * valid_until, seqno, the out-messages) rather than trust the plan's summary.
 */
export interface TonStepData {
  /** The subwallet's address (user-friendly, as the gateway shows it). */
  readonly wallet: string;
  /** V5R1 subwallet number (= receive index for deposit addresses). */
  readonly subwallet: number;
  /** The 32-bit wallet id the payload carries (global id XOR subwallet context), signed decimal. */
  readonly wallet_id: number;
  /** The ed25519 public key, hex: the wallet address commits to it. */
  readonly public_key: string;
  readonly seqno: number;
  /** Unix seconds after which the wallet refuses the external. */
  readonly valid_until: number;
  /** StateInit BOC (base64) for an undeployed wallet's first external; null otherwise. */
  readonly state_init: string | null;
  /** The signing payload cell, BOC base64: sign its cell hash. */
  readonly payload: string;
  /**
   * A jetton transfer's jetton master and the subwallet's jetton wallet under it (the message's
   * destination), for the signer, which cannot compute a jetton wallet offline for every jetton.
   */
  readonly jetton_master?: string;
  readonly jetton_wallet?: string;
}

export function encodeStepData(data: TonStepData): string {
  return JSON.stringify(data);
}

/** Reads a step's data; a plan's own steps always parse, so a failure means the plan file was altered. */
export function decodeStepData(text: string): TonStepData & { readonly payloadCell: Cell } {
  try {
    const v = JSON.parse(text) as TonStepData;
    const ok =
      typeof v.wallet === 'string' &&
      Number.isInteger(v.subwallet) &&
      Number.isInteger(v.wallet_id) &&
      typeof v.public_key === 'string' &&
      /^[0-9a-f]{64}$/.test(v.public_key) &&
      Number.isInteger(v.seqno) &&
      Number.isInteger(v.valid_until) &&
      (v.state_init === null || typeof v.state_init === 'string') &&
      typeof v.payload === 'string';
    if (!ok) throw new Error('fields');
    return { ...v, payloadCell: Cell.fromBase64(v.payload) };
  } catch (cause) {
    throw treasuryChainErrors.treasury_signed_mismatch({ message: 'The step is not a TON external of this plan (its data does not read).', cause });
  }
}
