import { expectShape, type ProviderEndpoint, type ProviderHttp } from '@gw/chain-api';
import { parseKoiosBlocks, parseKoiosBlockTxs, parseKoiosTip, parseKoiosTxInfo, type KoiosTx } from './koios.js';
import { mapLimit } from './map-limit.js';
import type { BlockHeader, ReadBlock } from './read-block.js';

/**
 * How the Cardano watcher reads Koios (API v1), within Koios's documented limits
 * (koios-artifacts `specs/fragments/info.yaml`, "Limits"): at most 1000 rows per answer (paged with
 * `offset`/`limit`), request bodies of at most 1 kB on the public tier and 5 kB on registered ones
 * (a bearer token in the endpoint's `Authorization` header), 100 requests per 10 s per IP (paced by
 * the provider pool's budget, not here).
 */

/** PostgREST's `max-rows` on Koios instances: a full page means there may be more. */
export const KOIOS_PAGE_ROWS = 1000;
/** Koios's request body limit for the public tier ("1kb"), read as 1000 bytes to stay under either meaning. */
export const KOIOS_PUBLIC_BODY_BYTES = 1000;
/** Koios's request body limit for registered tiers (a bearer token), 5 kB read the same way. */
export const KOIOS_REGISTERED_BODY_BYTES = 5000;
/** `tx_info` batches in flight at once. */
const TX_INFO_CONCURRENCY = 3;

/** The largest request body `endpoint` takes: the registered tier's when it sends a token. */
export function koiosBodyLimit(endpoint: ProviderEndpoint): number {
  const registered = Object.keys(endpoint.headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
  return registered ? KOIOS_REGISTERED_BODY_BYTES : KOIOS_PUBLIC_BODY_BYTES;
}

/**
 * `items` cut into runs whose request body (`body(run)` as JSON) stays within `limit` bytes, in
 * order. An item too large alone is sent alone (never the case for 64-digit hashes).
 */
export function batchesWithin<T>(items: readonly T[], body: (batch: readonly T[]) => unknown, limit: number): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  for (const item of items) {
    const next = [...current, item];
    if (current.length > 0 && Buffer.byteLength(JSON.stringify(body(next))) > limit) {
      batches.push(current);
      current = [item];
    } else current = next;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** The `tx_info` request for `hashes`: inputs included; `_scripts` too, as Koios before 1.3 gave collateral only with it. */
export const txInfoBody = (hashes: readonly string[]) => ({ _tx_hashes: hashes, _inputs: true, _scripts: true });
const blockTxsBody = (hashes: readonly string[]) => ({ _block_hashes: hashes });

/** `GET /tip`: the instance's latest block height. */
export async function koiosHead(http: ProviderHttp): Promise<number> {
  return parseKoiosTip(await http.json('GET', '/tip')).height;
}

/** `GET /blocks?block_height=eq.N`: the hash at `height`, null when the instance has no block there (yet). */
export async function koiosBlockHash(http: ProviderHttp, height: number): Promise<string | null> {
  const path = `/blocks?block_height=eq.${height}`;
  const rows = parseKoiosBlocks(await http.json('GET', path), path);
  expectShape(rows.length <= 1, `${path}: ${rows.length} blocks at one height`);
  if (rows.length === 0) return null;
  expectShape(rows[0]!.height === height, `${path}: answered height ${rows[0]!.height}`);
  return rows[0]!.hash;
}

/**
 * Blocks `from`..`to` whole, from one Koios instance: `GET /blocks` for the range (one request),
 * `POST /block_txs` for the transaction hashes of those with any (one request per 1000 of them),
 * `POST /tx_info` for every transaction, as many per request as the body limit allows (14 on the
 * public tier, 73 on a registered one). Every answer is checked against the others: each height
 * once and each block the parent of the next, each block's transaction count, every transaction
 * answered once and in the block it was listed in. A difference means the chain moved under the
 * read (or a broken provider): the read fails and is retried.
 */
export async function readKoiosBlocks(http: ProviderHttp, from: number, to: number, bodyLimit: number): Promise<ReadBlock[]> {
  const path = `/blocks?block_height=gte.${from}&block_height=lte.${to}&order=block_height.asc`;
  const headers = parseKoiosBlocks(await http.json('GET', path), path);
  expectShape(
    headers.length === to - from + 1 && headers.every((h, i) => h.height === from + i),
    `${path}: answered heights ${headers.map((h) => h.height).join(',') || 'none'} (the instance is behind?)`,
  );
  for (let i = 1; i < headers.length; i++) {
    expectShape(headers[i]!.previousBlock === headers[i - 1]!.hash, `${path}: block ${headers[i]!.height} does not follow ${headers[i - 1]!.hash}`);
  }

  const listed = await listTransactions(
    http,
    headers.filter((h) => h.txCount > 0),
    bodyLimit,
  );
  const hashes = [...listed.keys()];
  const batches = batchesWithin(hashes, txInfoBody, bodyLimit);
  const answered = new Map<string, KoiosTx>();
  await mapLimit(batches, TX_INFO_CONCURRENCY, async (batch) => {
    const rows = parseKoiosTxInfo(await http.json('POST', '/tx_info', { body: txInfoBody(batch) }), 'tx_info');
    const asked = new Set(batch);
    for (const tx of rows) {
      expectShape(asked.has(tx.hash) && !answered.has(tx.hash), `tx_info: transaction ${tx.hash} not asked for, or twice`);
      const block = listed.get(tx.hash)!;
      // A different block means the chain moved under the read.
      expectShape(tx.blockHash === block.hash && tx.blockHeight === block.height, `tx_info: ${tx.hash} in block ${tx.blockHash}, listed in ${block.hash}`);
      answered.set(tx.hash, tx);
    }
    for (const hash of batch) expectShape(answered.has(hash), `tx_info: no answer for ${hash}`);
  });

  return headers.map((block) => ({
    block,
    txs: [...answered.values()]
      .filter((tx) => tx.blockHash === block.hash)
      .sort((a, b) => a.blockIndex - b.blockIndex)
      .map((tx) => ({ hash: tx.hash, moves: tx.moves, valid: tx.valid })),
  }));
}

/**
 * `POST /block_txs` for `blocks`, paged: transaction hash → its block. Each block must list
 * exactly its `tx_count` distinct transactions (an instance that lost the block lists none).
 */
async function listTransactions(http: ProviderHttp, blocks: readonly BlockHeader[], bodyLimit: number): Promise<Map<string, BlockHeader>> {
  const byHash = new Map(blocks.map((b) => [b.hash, b]));
  const counted = new Map(blocks.map((b) => [b.hash, 0]));
  const listed = new Map<string, BlockHeader>();
  for (const batch of batchesWithin([...byHash.keys()], blockTxsBody, bodyLimit)) {
    const expected = batch.reduce((sum, hash) => sum + byHash.get(hash)!.txCount, 0);
    let seen = 0;
    // Ordered, so that pages cut the same list.
    for (let offset = 0; ; offset += KOIOS_PAGE_ROWS) {
      const path = `/block_txs?order=block_hash.asc,tx_hash.asc&offset=${offset}&limit=${KOIOS_PAGE_ROWS}`;
      const rows = parseKoiosBlockTxs(await http.json('POST', path, { body: blockTxsBody(batch) }), path);
      for (const { blockHash, txHash } of rows) {
        const block = byHash.get(blockHash);
        expectShape(block !== undefined && batch.includes(blockHash), `${path}: a transaction of block ${blockHash}, not asked for`);
        expectShape(!listed.has(txHash), `${path}: transaction ${txHash} listed twice`);
        listed.set(txHash, block);
        counted.set(blockHash, counted.get(blockHash)! + 1);
      }
      seen += rows.length;
      expectShape(seen <= expected, `${path}: more transactions than the blocks' tx_count (${expected})`);
      if (rows.length < KOIOS_PAGE_ROWS) break;
    }
  }
  for (const block of blocks) {
    expectShape(
      counted.get(block.hash) === block.txCount,
      `block_txs: block ${block.hash} lists ${counted.get(block.hash)} of its ${block.txCount} transactions`,
    );
  }
  return listed;
}

/**
 * Whether transaction `hash` of `block` passed its scripts, from `POST /tx_info`: how a Koios
 * instance answers the validity question for a block another provider of the same pool read.
 */
export async function koiosValidity(http: ProviderHttp, hash: string, block: BlockHeader): Promise<boolean> {
  const rows = parseKoiosTxInfo(await http.json('POST', '/tx_info', { body: txInfoBody([hash]) }), 'tx_info');
  expectShape(rows.length === 1 && rows[0]!.hash === hash, `tx_info: no single answer for ${hash}`);
  const tx = rows[0]!;
  expectShape(tx.blockHash === block.hash && tx.blockHeight === block.height, `tx_info: ${hash} in block ${tx.blockHash}, scanned ${block.hash}`);
  return tx.valid;
}
