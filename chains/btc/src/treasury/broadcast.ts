import { expectShape, ProviderError, type ProviderHttp } from '@gw/chain-api';
import { RpcCallError, rpcCall } from '../core-rpc.js';

const TXID = /^[0-9a-f]{64}$/;

/**
 * The answers that mean the provider already has a transaction with this txid, in its mempool or
 * in a block: Core's "Transaction already in block chain" (-27, before 28) and "Transaction
 * outputs already in utxo set" (-27, Core 28 and later), "txn-already-in-mempool",
 * "txn-already-known" (Core and bcoin), and "txn-same-nonwitness-data-in-mempool" (the same txid
 * with another witness: the plan's transaction all the same), as they come through Esplora too.
 * "missingorspent" is not one: it also means an input was spent by another transaction. Any other
 * refusal is checked against the provider's view of the txid (`BtcTreasury.broadcast`).
 */
const ALREADY_KNOWN =
  /already in (?:block ?chain|the mempool)|outputs already in utxo set|txn-already-(?:in-mempool|known)|txn-same-nonwitness-data-in-mempool|already known/i;

/** What the provider said: accepted (or already had it), or refused with its reason. */
export type BroadcastOutcome = { readonly accepted: true } | { readonly accepted: false; readonly reason: string };

/**
 * Esplora's `POST /tx` with the raw hex as the body; it answers the txid, or HTTP 400 with the
 * node's reason, which is a refusal (not a provider failure) unless it says the transaction is
 * already known.
 */
export async function esploraBroadcast(http: ProviderHttp, hex: string, txid: string): Promise<BroadcastOutcome> {
  let answer: string | undefined;
  try {
    answer = await http.text('POST', '/tx', { textBody: hex });
  } catch (error) {
    // The pool's error names the HTTP status in its message: a 400 is the node refusing the transaction.
    if (error instanceof ProviderError && error.failure === 'http_error' && / HTTP 400 /.test(error.message)) {
      return ALREADY_KNOWN.test(error.message) ? { accepted: true } : { accepted: false, reason: error.message.replace(/^.*? HTTP 400 /, '') };
    }
    throw error;
  }
  expectShape(answer?.trim() === txid, `POST /tx answered ${String(answer).slice(0, 80)}, not ${txid}`);
  return { accepted: true };
}

/**
 * A node's `sendrawtransaction`. An RPC error is the node refusing the transaction (unless it
 * already has it). bcoin 1.0.2 answers the txid even when its mempool refuses the transaction
 * (its `relay` logs the refusal): the treasury sees that later as a transaction the provider does
 * not know.
 */
export async function coreBroadcast(http: ProviderHttp, hex: string, txid: string): Promise<BroadcastOutcome> {
  let answer: unknown;
  try {
    answer = await rpcCall(http, 'sendrawtransaction', [hex]);
  } catch (error) {
    if (error instanceof RpcCallError) return ALREADY_KNOWN.test(error.message) ? { accepted: true } : { accepted: false, reason: error.message };
    throw error;
  }
  expectShape(typeof answer === 'string' && TXID.test(answer) && answer === txid, `sendrawtransaction answered ${String(answer)}, not ${txid}`);
  return { accepted: true };
}
