import { isJsonObject, isCount, expectShape, ProviderError, type ProviderHttp, type TransactionState } from '@gw/chain-api';
import { parseHeightText } from '../esplora.js';
import { RpcCallError, resultOf, rpcBatch, satoshisOf } from '../core-rpc.js';

const HASH = /^[0-9a-f]{64}$/;
/** Core's RPC_INVALID_ADDRESS_OR_KEY: "No such mempool or blockchain transaction". */
const RPC_NOT_FOUND = -5;
/** bcoin's answer to an unknown transaction: RPC_MISC_ERROR with this message. */
const BCOIN_NOT_FOUND = /^Transaction not (?:found|in mempool)/;

/** Whether a node answered "no such transaction" (Core -5, bcoin -1 "Transaction not found"). */
export function notFound(error: { readonly code: number; readonly message: string } | null): boolean {
  return error !== null && (error.code === RPC_NOT_FOUND || (error.code === -1 && BCOIN_NOT_FOUND.test(error.message)));
}

/**
 * Esplora's `GET /tx/:txid` (its `status` with block height and hash, `fee`, `weight`) and the tip
 * height for the confirmations; 404 is a transaction the provider does not know.
 */
export async function esploraTransaction(http: ProviderHttp, txid: string): Promise<TransactionState | null> {
  const body = await http.json('GET', `/tx/${txid}`, { allowNotFound: true });
  if (body === undefined) return null;
  const where = `/tx/${txid}`;
  expectShape(isJsonObject(body) && body['txid'] === txid, `${where}: not the transaction`);
  const { status, fee, weight } = body;
  expectShape(isJsonObject(status) && typeof status['confirmed'] === 'boolean', `${where}: bad status`);
  expectShape(fee === undefined || isCount(fee), `${where}: bad fee`);
  expectShape(weight === undefined || isCount(weight), `${where}: bad weight`);
  const extra = { ...(isCount(fee) ? { feeUnits: BigInt(fee) } : {}), ...(isCount(weight) ? { size: Math.ceil(weight / 4) } : {}) };
  if (!status['confirmed']) return { txid, confirmations: 0, blockHeight: null, blockHash: null, ...extra };
  const [height, hash] = [status['block_height'], status['block_hash']];
  expectShape(isCount(height) && typeof hash === 'string' && HASH.test(hash), `${where}: bad block of a confirmed transaction`);
  const tip = parseHeightText(await http.text('GET', '/blocks/tip/height'));
  return { txid, confirmations: Math.max(1, tip - height + 1), blockHeight: height, blockHash: hash, ...extra };
}

/**
 * A node's `getrawtransaction txid true` with `getblockcount` in one batch (the block height is the
 * tip less the confirmations, plus one), and `getmempoolentry` for the fee while unconfirmed (Core
 * tells no fee of a mined transaction without its inputs' amounts). Confirmations that are not a
 * count up to the tip height + 1, or a block hash without them, is a malformed answer. Bitcoin Core finds mined
 * transactions only with `-txindex=1`; without it the answer says so and is a provider error,
 * never "unknown" (which would read as dropped). bcoin needs `index-tx`.
 */
export async function coreTransaction(http: ProviderHttp, txid: string): Promise<TransactionState | null> {
  const [raw, count] = await rpcBatch(http, [
    ['getrawtransaction', [txid, true]],
    ['getblockcount', []],
  ]);
  if (notFound(raw!.error)) {
    if (/txindex/i.test(raw!.error!.message)) {
      throw new ProviderError('http_error', '', `getrawtransaction ${txid}: the node has no transaction index (-txindex=1): ${raw!.error!.message}`);
    }
    return null;
  }
  const result = resultOf(raw!, 'getrawtransaction');
  const tip = resultOf(count!, 'getblockcount');
  const where = `getrawtransaction ${txid}`;
  expectShape(isJsonObject(result) && result['txid'] === txid, `${where}: not the transaction`);
  expectShape(isCount(tip), 'getblockcount: not a height');
  const { confirmations, blockhash, vsize } = result;
  // Core leaves both out while the transaction is in the mempool; a block's transaction has both
  // (confirmations 0 when that block left the active chain).
  expectShape(confirmations === undefined || (isCount(confirmations) && confirmations <= tip + 1), `${where}: bad confirmations ${String(confirmations)}`);
  expectShape(blockhash === undefined || confirmations !== undefined, `${where}: a block hash without confirmations`);
  const size = isCount(vsize) && vsize > 0 ? { size: vsize } : {};
  if (confirmations !== undefined && confirmations > 0) {
    expectShape(typeof blockhash === 'string' && HASH.test(blockhash), `${where}: confirmed without a block hash`);
    return { txid, confirmations, blockHeight: tip - confirmations + 1, blockHash: blockhash, ...size };
  }
  return { txid, confirmations: 0, blockHeight: null, blockHash: null, ...size, ...(await mempoolFee(http, txid)) };
}

/** The fee of a mempool transaction: Core's `fees.base`, bcoin's (and old Core's) `fee`, in BTC. */
async function mempoolFee(http: ProviderHttp, txid: string): Promise<{ feeUnits?: bigint }> {
  const [reply] = await rpcBatch(http, [['getmempoolentry', [txid]]]);
  if (reply!.error) {
    // Mined or evicted since: the next look tells.
    if (notFound(reply!.error)) return {};
    throw new RpcCallError('getmempoolentry', reply!.error.code, reply!.error.message);
  }
  const entry = reply!.result;
  expectShape(isJsonObject(entry), `getmempoolentry ${txid}: not an object`);
  const fees = entry['fees'];
  const fee = isJsonObject(fees) ? fees['base'] : entry['fee'];
  return { feeUnits: BigInt(satoshisOf(fee, `getmempoolentry ${txid}: fee`)) };
}
