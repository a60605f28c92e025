import { isCount, isJsonObject, expectShape } from '@gw/chain-api';

/**
 * Shape checks for the Esplora REST responses the watcher reads (Blockstream electrs and
 * mempool.space use the same format). Every parser throws a `malformed` ProviderError on a response
 * of the wrong shape, so the provider pool tries the next provider.
 */

/** Esplora answers at most this many transactions per `/block/:hash/txs/:start_index` page. */
export const ESPLORA_TXS_PAGE_SIZE = 25;

const HASH = /^[0-9a-f]{64}$/;

/** The fields of `/block/:hash` the watcher uses. */
export interface EsploraBlock {
  readonly id: string;
  readonly height: number;
  /** Null only for the genesis block. */
  readonly previousblockhash: string | null;
  readonly timestamp: number;
  readonly tx_count: number;
}

/** One output of an Esplora transaction. */
export interface EsploraOutput {
  /** Hex output script. */
  readonly scriptpubkey: string;
  /** Absent for scripts without an address form (OP_RETURN, bare P2PK, non-standard). */
  readonly scriptpubkey_address?: string;
  /** Satoshis. */
  readonly value: number;
}

/** An output a transaction spends (one of its inputs). */
export interface EsploraOutpoint {
  readonly txid: string;
  readonly vout: number;
}

/** The fields of an Esplora transaction the watcher uses. */
export interface EsploraTx {
  readonly txid: string;
  readonly isCoinbase: boolean;
  /** The outputs its inputs spend, in input order; empty for a coinbase (it spends none). */
  readonly spends: readonly EsploraOutpoint[];
  readonly vout: readonly EsploraOutput[];
  /** Absent in some servers' block pages; `confirmed: false` for mempool transactions. */
  readonly confirmed?: boolean;
  /** The block that holds it, where the answer's `status` names it (`GET /tx/:txid`). */
  readonly block?: { readonly height: number; readonly hash: string; readonly time: number };
}

/** A block hash as `/block-height/:height` answers it (plain text). */
export function parseBlockHashText(text: string | undefined, what: string): string {
  const hash = text?.trim();
  expectShape(hash !== undefined && HASH.test(hash), `${what}: not a block hash`);
  return hash;
}

/** The tip height as `/blocks/tip/height` answers it (plain text). */
export function parseHeightText(text: string | undefined): number {
  const trimmed = text?.trim() ?? '';
  expectShape(/^\d{1,10}$/.test(trimmed), '/blocks/tip/height: not a height');
  return Number(trimmed);
}

/** `/block/:hash`, checked against the hash and height it was asked for. */
export function parseBlock(body: unknown, hash: string, height: number): EsploraBlock {
  expectShape(isJsonObject(body), `/block/${hash}: not an object`);
  const { id, height: h, previousblockhash, timestamp, tx_count } = body;
  expectShape(id === hash, `/block/${hash}: id is ${String(id)}`);
  expectShape(h === height, `/block/${hash}: height ${String(h)}, expected ${height}`);
  expectShape(
    (previousblockhash === null && height === 0) || (typeof previousblockhash === 'string' && HASH.test(previousblockhash)),
    `/block/${hash}: bad previousblockhash`,
  );
  expectShape(isCount(timestamp), `/block/${hash}: bad timestamp`);
  expectShape(isCount(tx_count) && tx_count >= 1, `/block/${hash}: bad tx_count`);
  return { id, height, previousblockhash, timestamp, tx_count };
}

function parseOutput(value: unknown, where: string): EsploraOutput {
  expectShape(isJsonObject(value), `${where}: output not an object`);
  const { scriptpubkey, scriptpubkey_address, value: sats } = value;
  expectShape(typeof scriptpubkey === 'string' && /^(?:[0-9a-f]{2})*$/.test(scriptpubkey), `${where}: bad scriptpubkey`);
  expectShape(scriptpubkey_address === undefined || typeof scriptpubkey_address === 'string', `${where}: bad scriptpubkey_address`);
  // Satoshi amounts stay below 2^53 (21e14 max supply), so the JSON number is exact.
  expectShape(isCount(sats), `${where}: bad value`);
  return scriptpubkey_address === undefined ? { scriptpubkey, value: sats } : { scriptpubkey, scriptpubkey_address, value: sats };
}

function parseTx(value: unknown, where: string): EsploraTx {
  expectShape(isJsonObject(value), `${where}: transaction not an object`);
  const { txid, vin, vout, status } = value;
  expectShape(typeof txid === 'string' && HASH.test(txid), `${where}: bad txid`);
  expectShape(Array.isArray(vin) && vin.length > 0 && vin.every(isJsonObject), `${where}: bad vin of ${txid}`);
  expectShape(Array.isArray(vout), `${where}: bad vout of ${txid}`);
  expectShape(status === undefined || (isJsonObject(status) && typeof status['confirmed'] === 'boolean'), `${where}: bad status of ${txid}`);
  const isCoinbase = vin[0]!['is_coinbase'] === true;
  const spends = isCoinbase ? [] : vin.map((input, index) => parseOutpoint(input['txid'], input['vout'], `${where} ${txid} input ${index}`));
  const outputs = vout.map((output) => parseOutput(output, `${where} ${txid}`));
  if (status === undefined) return { txid, isCoinbase, spends, vout: outputs };
  const confirmed = status['confirmed'] as boolean;
  const { block_height: height, block_hash: hash, block_time: time } = status;
  if (!confirmed || (height === undefined && hash === undefined)) return { txid, isCoinbase, spends, vout: outputs, confirmed };
  expectShape(isCount(height) && typeof hash === 'string' && HASH.test(hash) && isCount(time), `${where}: bad block of ${txid}`);
  return { txid, isCoinbase, spends, vout: outputs, confirmed, block: { height, hash, time } };
}

/** `GET /tx/:txid`: one transaction, checked to be the one asked for. */
export function parseTxAnswer(body: unknown, txid: string): EsploraTx {
  const tx = parseTx(body, `/tx/${txid}`);
  expectShape(tx.txid === txid, `/tx/${txid}: answered ${tx.txid}`);
  return tx;
}

/** The outpoint an input spends (`vin[].txid`, `vin[].vout`, the same fields in Esplora and Core). */
export function parseOutpoint(txid: unknown, vout: unknown, where: string): EsploraOutpoint {
  expectShape(typeof txid === 'string' && HASH.test(txid), `${where}: bad spent txid`);
  expectShape(typeof vout === 'number' && Number.isSafeInteger(vout) && vout >= 0 && vout <= 0xffffffff, `${where}: bad spent vout`);
  return { txid, vout };
}

/** A JSON array of Esplora transactions (`/block/:hash/txs/:start`, `/address/:address/txs/mempool`). */
export function parseTxList(body: unknown, where: string, maxLength: number): EsploraTx[] {
  expectShape(Array.isArray(body), `${where}: not an array`);
  expectShape(body.length <= maxLength, `${where}: ${body.length} transactions, at most ${maxLength} expected`);
  return body.map((tx) => parseTx(tx, where));
}
