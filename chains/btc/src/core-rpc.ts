import { isJsonObject, decimalOfNumber, expectShape, ProviderError, toBaseUnits, type ProviderHttp } from '@gw/chain-api';
import { parseOutpoint, type EsploraOutput, type EsploraTx } from './esplora.js';

/**
 * JSON-RPC of Bitcoin Core (and of bcoin, which answers the same methods) for the BTC watcher.
 * Every request is a JSON-RPC batch, even of one call: Core answers a failed single call with an
 * HTTP 500 but a batch with 200 and one error per call, so the watcher can tell "no block at this
 * height" from a broken node. Transactions are mapped to the Esplora shapes the watcher already
 * reads, so both provider kinds go through the same address checks.
 *
 * Outputs come in two forms: `scriptPubKey.address` (Core 22 and later) and the older
 * `scriptPubKey.addresses[]` (Core up to 21, bcoin). A bare multisig's several addresses name no
 * single receiver and are ignored (the script decides, as for Esplora).
 */

const HASH = /^[0-9a-f]{64}$/;
const HEX = /^(?:[0-9a-f]{2})*$/;

/** `getrawtransaction` calls sent in one batch. */
export const CORE_TX_BATCH = 100;

/** A reply of one call of a batch. */
export interface RpcReply {
  readonly result: unknown;
  readonly error: { readonly code: number; readonly message: string } | null;
}

/** A Core RPC error answer (`code` as the node sent it). */
export class RpcCallError extends ProviderError {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super('http_error', '', `${method}: RPC error ${code}: ${message}`);
  }
}

/** Sends `calls` as one batch and returns the replies in call order; `timeoutMs` overrides the pool's for this request. */
export async function rpcBatch(http: ProviderHttp, calls: readonly (readonly [string, readonly unknown[]])[], timeoutMs?: number): Promise<RpcReply[]> {
  if (calls.length === 0) return [];
  const body = calls.map(([method, params], id) => ({ jsonrpc: '1.0', id, method, params }));
  const answer = await http.json('POST', '', { body, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
  return parseBatch(
    answer,
    calls.map(([method]) => method),
  );
}

/**
 * `getrawtransaction` of each of `txids` (`verbose`: the node's decoded object, else the hex),
 * asked in batches of {@link CORE_TX_BATCH}: each txid with its reply, one batch at a time.
 */
export async function* getRawTransactions(http: ProviderHttp, txids: readonly string[], verbose: boolean): AsyncGenerator<readonly [string, RpcReply]> {
  for (let start = 0; start < txids.length; start += CORE_TX_BATCH) {
    const batch = txids.slice(start, start + CORE_TX_BATCH);
    const replies = await rpcBatch(
      http,
      batch.map((txid) => ['getrawtransaction', [txid, verbose]] as const),
    );
    yield* replies.map((reply, i) => [batch[i]!, reply] as const);
  }
}

/** Checks a batch answer against the methods asked (one reply per id, any order). */
export function parseBatch(answer: unknown, methods: readonly string[]): RpcReply[] {
  expectShape(Array.isArray(answer), 'JSON-RPC batch: answer is not an array');
  expectShape(answer.length === methods.length, `JSON-RPC batch: ${answer.length} replies to ${methods.length} calls`);
  const replies: (RpcReply | undefined)[] = new Array(methods.length);
  for (const reply of answer) {
    expectShape(isJsonObject(reply), 'JSON-RPC batch: reply not an object');
    const { id, result, error } = reply;
    expectShape(
      typeof id === 'number' && Number.isInteger(id) && id >= 0 && id < methods.length && replies[id] === undefined,
      `JSON-RPC batch: bad id ${String(id)}`,
    );
    if (error === null || error === undefined) {
      replies[id] = { result, error: null };
    } else {
      expectShape(isJsonObject(error) && typeof error['code'] === 'number' && typeof error['message'] === 'string', `JSON-RPC ${methods[id]}: bad error`);
      replies[id] = { result: null, error: { code: error['code'], message: error['message'] } };
    }
  }
  return replies as RpcReply[];
}

/** The result of a reply, or its error thrown as an {@link RpcCallError}. */
export function resultOf(reply: RpcReply, method: string): unknown {
  if (reply.error) throw new RpcCallError(method, reply.error.code, reply.error.message);
  return reply.result;
}

/** One call as a batch of one; the result or a thrown {@link RpcCallError}. */
export async function rpcCall(http: ProviderHttp, method: string, params: readonly unknown[], timeoutMs?: number): Promise<unknown> {
  const [reply] = await rpcBatch(http, [[method, params]], timeoutMs);
  return resultOf(reply!, method);
}

/** `getblockcount`. */
export function parseBlockCount(result: unknown): number {
  expectShape(typeof result === 'number' && Number.isSafeInteger(result) && result >= 0, 'getblockcount: not a height');
  return result;
}

/**
 * `getblockheader <hash>`: the block's height, or null when the block is not on the node's best
 * chain (`confirmations` -1: a branch it left).
 */
export function parseBlockHeader(result: unknown, hash: string): number | null {
  expectShape(isJsonObject(result), `getblockheader ${hash}: not an object`);
  const { hash: h, height, confirmations } = result;
  expectShape(h === hash, `getblockheader ${hash}: answered ${String(h)}`);
  expectShape(typeof height === 'number' && Number.isSafeInteger(height) && height >= 0, `getblockheader ${hash}: bad height`);
  expectShape(typeof confirmations === 'number' && Number.isSafeInteger(confirmations), `getblockheader ${hash}: bad confirmations`);
  return confirmations < 0 ? null : height;
}

/** `getblockhash`. */
export function parseBlockHash(result: unknown, height: number): string {
  expectShape(typeof result === 'string' && HASH.test(result), `getblockhash ${height}: not a block hash`);
  return result;
}

/** A block with its transactions, from `getblock hash 2` (Core) or `getblock hash true true` (bcoin). */
export interface CoreBlock {
  readonly hash: string;
  readonly height: number;
  /** Null only for the genesis block. */
  readonly previousblockhash: string | null;
  readonly time: number;
  readonly txs: readonly EsploraTx[];
}

/** `getblock` with full transactions, checked against the hash and height it was asked for. */
export function parseCoreBlock(result: unknown, hash: string, height: number): CoreBlock {
  const where = `getblock ${hash}`;
  expectShape(isJsonObject(result), `${where}: not an object`);
  const { hash: h, height: ht, previousblockhash, time, tx } = result;
  expectShape(h === hash, `${where}: hash is ${String(h)}`);
  expectShape(ht === height, `${where}: height ${String(ht)}, expected ${height}`);
  expectShape(
    (previousblockhash === undefined && height === 0) || (typeof previousblockhash === 'string' && HASH.test(previousblockhash)),
    `${where}: bad previousblockhash`,
  );
  expectShape(typeof time === 'number' && Number.isSafeInteger(time) && time >= 0, `${where}: bad time`);
  // Verbosity 1 lists txids only: a node that ignored the verbosity is a malformed answer.
  expectShape(Array.isArray(tx) && tx.length >= 1 && tx.every(isJsonObject), `${where}: no full transactions`);
  return {
    hash,
    height,
    previousblockhash: typeof previousblockhash === 'string' ? previousblockhash : null,
    time,
    txs: tx.map((t) => parseCoreTx(t, where).tx),
  };
}

/** A transaction of `getrawtransaction txid true` or of a block, with its block hash when it has one. */
export function parseCoreTx(value: unknown, where: string): { tx: EsploraTx; blockhash: string | null } {
  expectShape(isJsonObject(value), `${where}: transaction not an object`);
  const { txid, vin, vout, blockhash, confirmations } = value;
  expectShape(typeof txid === 'string' && HASH.test(txid), `${where}: bad txid`);
  expectShape(Array.isArray(vin) && vin.length > 0 && vin.every(isJsonObject), `${where}: bad vin of ${txid}`);
  expectShape(Array.isArray(vout), `${where}: bad vout of ${txid}`);
  const outputs = vout.map((output, index) => parseCoreOutput(output, index, `${where} ${txid}`));
  const isCoinbase = typeof vin[0]!['coinbase'] === 'string';
  const spends = isCoinbase ? [] : vin.map((input, index) => parseOutpoint(input['txid'], input['vout'], `${where} ${txid} input ${index}`));
  const inBlock =
    typeof blockhash === 'string' && HASH.test(blockhash) && (confirmations === undefined || (typeof confirmations === 'number' && confirmations > 0));
  return {
    tx: { txid, isCoinbase, spends, vout: outputs, confirmed: inBlock },
    blockhash: inBlock ? (blockhash as string) : null,
  };
}

function parseCoreOutput(value: unknown, index: number, where: string): EsploraOutput {
  expectShape(isJsonObject(value), `${where}: output not an object`);
  const { value: amount, n, scriptPubKey } = value;
  expectShape(n === undefined || n === index, `${where}: output ${index} has n ${String(n)}`);
  expectShape(isJsonObject(scriptPubKey), `${where}: output ${index} has no scriptPubKey`);
  const { hex, address, addresses } = scriptPubKey;
  expectShape(typeof hex === 'string' && HEX.test(hex), `${where}: output ${index}: bad script hex`);
  expectShape(address === undefined || typeof address === 'string', `${where}: output ${index}: bad address`);
  expectShape(
    addresses === undefined || (Array.isArray(addresses) && addresses.every((a) => typeof a === 'string')),
    `${where}: output ${index}: bad addresses`,
  );
  const given = address ?? (Array.isArray(addresses) && addresses.length === 1 ? (addresses[0] as string) : undefined);
  const sats = satoshisOf(amount, `${where}: output ${index}`);
  return given === undefined ? { scriptpubkey: hex, value: sats } : { scriptpubkey: hex, scriptpubkey_address: given, value: sats };
}

/**
 * A BTC amount as Core writes it (a JSON number with at most 8 decimals) in satoshis, exactly and
 * without floating-point arithmetic: the number's shortest round-trip text is the decimal the node
 * wrote (two 8-decimal values below 2^26 BTC never share a double), its exponent form (`1e-8`) is
 * expanded by moving the point in the digits, and the text is parsed as a decimal of 8 places.
 */
export function satoshisOf(amount: unknown, where: string): number {
  expectShape(typeof amount === 'number' && Number.isFinite(amount) && amount >= 0 && amount <= 21_000_000, `${where}: bad value`);
  let units: bigint;
  try {
    units = toBaseUnits(decimalOfNumber(amount), 8);
  } catch {
    throw new ProviderError('malformed', '', `malformed provider response: ${where}: value ${String(amount)} has more than 8 decimals`);
  }
  return Number(units);
}

/** `getrawmempool` (txids). */
export function parseMempoolTxids(result: unknown): string[] {
  expectShape(Array.isArray(result) && result.every((t) => typeof t === 'string' && HASH.test(t)), 'getrawmempool: not a list of txids');
  return result as string[];
}
