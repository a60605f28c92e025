import * as bitcoin from 'bitcoinjs-lib';
import { expectShape, ProviderError, type ProviderHttp } from '@gw/chain-api';
import { CORE_TX_BATCH, getRawTransactions, RpcCallError } from '../core-rpc.js';
import { notFound } from './transaction-state.js';

const HEX = /^(?:[0-9a-f]{2})+$/;

/** The raw transaction's hex when it is the transaction `txid` (it hashes to it); a malformed answer otherwise. */
function checked(hex: unknown, txid: string, where: string): string {
  expectShape(typeof hex === 'string' && HEX.test(hex.trim().toLowerCase()), `${where}: not a transaction in hex`);
  const text = hex.trim().toLowerCase();
  let id: string;
  try {
    id = bitcoin.Transaction.fromHex(text).getId();
  } catch {
    id = '';
  }
  expectShape(id === txid, `${where}: the transaction does not hash to ${txid}`);
  return text;
}

/** Esplora's `GET /tx/:txid/hex`; null for 404 (a transaction the provider does not know). */
export async function esploraRawTransaction(http: ProviderHttp, txid: string): Promise<string | null> {
  const where = `/tx/${txid}/hex`;
  const body = await http.text('GET', where, { allowNotFound: true });
  return body === undefined ? null : checked(body, txid, where);
}

/**
 * A node's `getrawtransaction txid false`, in batches of {@link CORE_TX_BATCH}. A node without a
 * transaction index finds only mempool transactions (and those of its wallet): Bitcoin Core and
 * Litecoin Core need `-txindex=1`, bcoin `index-tx`. Core says so in its error, which is a provider
 * error here, never "unknown"; bcoin answers "not found", which leaves the id out.
 */
export async function coreRawTransactions(http: ProviderHttp, txids: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for await (const [txid, reply] of getRawTransactions(http, txids, false)) {
    if (reply.error) {
      if (notFound(reply.error)) {
        if (/txindex/i.test(reply.error.message)) {
          throw new ProviderError('http_error', '', `getrawtransaction ${txid}: the node has no transaction index (-txindex=1): ${reply.error.message}`);
        }
        continue;
      }
      throw new RpcCallError('getrawtransaction', reply.error.code, reply.error.message);
    }
    found.set(txid, checked(reply.result, txid, `getrawtransaction ${txid}`));
  }
  return found;
}
