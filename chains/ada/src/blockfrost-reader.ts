import { expectShape, type ProviderHttp } from '@gw/chain-api';
import { parseBlock, parseTx, parseTxHashPage, parseTxUtxos } from './blockfrost.js';
import { mapLimit } from './map-limit.js';
import type { BlockHeader, ReadBlock } from './read-block.js';

/** How the Cardano watcher reads a Blockfrost-compatible REST API (`project_id` header from the endpoint). */

/** Blockfrost's largest page. */
const TX_PAGE_SIZE = 100;
/** Per-transaction requests in flight at once: Blockfrost's free tier bursts to 500, then 10/s. */
const TX_CONCURRENCY = 5;

/** `GET /blocks/latest`: the tip's height. */
export async function blockfrostHead(http: ProviderHttp): Promise<number> {
  return parseBlock(await http.json('GET', '/blocks/latest'), 'blocks/latest').height;
}

/** `GET /blocks/{height}`: the hash at `height`, null for a height the provider lacks (404). */
export async function blockfrostBlockHash(http: ProviderHttp, height: number): Promise<string | null> {
  const body = await http.json('GET', `/blocks/${height}`, { allowNotFound: true });
  if (body === undefined) return null;
  const block = parseBlock(body, `blocks/${height}`);
  expectShape(block.height === height, `blocks/${height}: answered height ${block.height}`);
  return block.hash;
}

/**
 * One block whole: `GET /blocks/{height}`, its transaction hashes by the block's hash
 * (`GET /blocks/{hash}/txs?page=N&count=100`, skipped when `tx_count` is 0), and the inputs and
 * outputs of each (`GET /txs/{hash}/utxos`, 5 in flight). Validity is not in these answers: it is
 * asked afterwards, only where it matters (`blockfrostValidity`).
 */
export async function readBlockfrostBlock(http: ProviderHttp, height: number): Promise<ReadBlock> {
  const block = parseBlock(await http.json('GET', `/blocks/${height}`), `blocks/${height}`);
  expectShape(block.height === height, `blocks/${height}: answered height ${block.height}`);
  if (block.txCount === 0) return { block, txs: [] };
  const hashes: string[] = [];
  // By hash, not height: every page then describes the block read above, even across a reorg.
  for (let page = 1; ; page++) {
    const path = `/blocks/${block.hash}/txs?page=${page}&count=${TX_PAGE_SIZE}`;
    const batch = parseTxHashPage(await http.json('GET', path), path);
    hashes.push(...batch);
    if (batch.length < TX_PAGE_SIZE) break;
  }
  const txs = await mapLimit(hashes, TX_CONCURRENCY, async (hash) => ({ hash, moves: parseTxUtxos(await http.json('GET', `/txs/${hash}/utxos`), hash) }));
  return { block, txs };
}

/** `GET /txs/{hash}`: whether transaction `hash` of `block` passed its scripts (`valid_contract`). */
export async function blockfrostValidity(http: ProviderHttp, hash: string, block: BlockHeader): Promise<boolean> {
  const info = parseTx(await http.json('GET', `/txs/${hash}`), hash);
  // A different block means the chain moved under the scan: fail, the scanner retries.
  expectShape(info.block === block.hash && info.blockHeight === block.height, `txs/${hash}: in block ${info.block}, scanned ${block.hash}`);
  return info.validContract;
}
