import { treasuryChainErrors } from '@gw/chain-api';
import type { EvmRpc } from './evm-rpc.js';

/** The answers that mean the node already has this transaction (or mined it: its nonce is used by it). */
const ALREADY_KNOWN = /already known|known transaction|already imported|nonce too low|already exists|transaction already/i;

/**
 * Sends the signed transaction `hex` whose hash is `hash`; resolves with the hash. Idempotent: a
 * node that already has it (or mined it) answers a refusal that resolves too, once the node is
 * asked for the hash and knows it. Any other refusal throws `treasury_broadcast_rejected`.
 */
export async function sendRawTransaction(rpc: EvmRpc, hex: string, hash: string): Promise<string> {
  const [answer] = await rpc.batch('broadcast', [['eth_sendRawTransaction', [hex]]], true);
  if (!answer!.error) return hash;
  const reason = answer!.error.message ?? 'refused';
  // "nonce too low" is also what a node answers for the same transaction once mined: it is ours only if the node knows this hash.
  if (ALREADY_KNOWN.test(reason)) {
    const known = await rpc.call('broadcast_lookup', 'eth_getTransactionByHash', [hash]);
    if (known !== null && known !== undefined) return hash;
  }
  throw treasuryChainErrors.treasury_broadcast_rejected({ message: `The provider refused ${hash}: ${reason}` });
}
