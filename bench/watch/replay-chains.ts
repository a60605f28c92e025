/**
 * Advancing replays for the cost benchmark (bench/watch/cost.ts): HTTP servers that answer as a
 * TRON full node (java-tron's `/wallet` API) or Blockfrost does, with a new block every
 * `blockMs` for as long as they run. Each block is a RECORDED REAL response (the chain packages'
 * test fixtures: TRON mainnet block 30864600 with its transaction infos, Cardano preprod block
 * 3152805 with its transaction and UTXOs) whose height, hash and parent hash are rewritten so the
 * blocks form a chain; the transactions are the recorded ones, in every block. No TRON or Cardano
 * node runs on this machine (docs/decisions.md, issue 22). Every request is counted.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { listenOnLoopback } from '../loopback-server.js';

export interface ReplayChain {
  readonly url: string;
  /** HTTP requests answered. */
  requests: number;
  close(): Promise<void>;
}

const fixture = (chain: string, name: string): string => readFileSync(new URL(`../../chains/${chain}/test/fixtures/${name}`, import.meta.url), 'utf8');
const hashOf = (chain: string, height: number): string => createHash('sha256').update(`${chain}:${height}`).digest('hex');

async function serve(answer: (method: string, path: string, body: string) => [number, unknown]): Promise<ReplayChain> {
  const replay = { requests: 0 };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      replay.requests += 1;
      const [status, json] = answer(req.method ?? 'GET', req.url ?? '/', body);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  return Object.assign(replay, await listenOnLoopback(server));
}

/** A TRON node whose tip advances every `blockMs` from `startHeight`; solidified 19 blocks behind. */
export async function tronReplay(blockMs: number, startHeight = 60_000_000): Promise<ReplayChain> {
  const recorded = JSON.parse(fixture('tron', 'getblockbynum-30864600.json')) as { blockID: string; block_header: { raw_data: Record<string, unknown> } };
  const infos = JSON.parse(fixture('tron', 'gettransactioninfobyblocknum-30864600.json')) as Record<string, unknown>[];
  const started = Date.now();
  const tip = () => startHeight + Math.floor((Date.now() - started) / blockMs);
  // java-tron's blockID starts with the height (8 bytes), then 24 bytes of the block hash.
  const id = (height: number) => height.toString(16).padStart(16, '0') + hashOf('tron', height).slice(16);
  const block = (height: number) => ({
    ...recorded,
    blockID: id(height),
    block_header: {
      ...recorded.block_header,
      raw_data: { ...recorded.block_header.raw_data, number: height, parentHash: id(height - 1), timestamp: started + (height - startHeight) * blockMs },
    },
  });
  return serve((_method, path, raw) => {
    const num = raw ? (JSON.parse(raw) as { num?: number }).num : undefined;
    if (path === '/wallet/getnowblock') return [200, block(tip())];
    if (path === '/walletsolidity/getnowblock') return [200, block(tip() - 19)];
    if (path === '/wallet/getblockbynum') return num !== undefined && num <= tip() ? [200, block(num)] : [200, {}];
    if (path === '/wallet/gettransactioninfobyblocknum')
      return [200, num !== undefined && num <= tip() ? infos.map((info) => ({ ...info, blockNumber: num })) : []];
    return [404, { Error: `unrecorded ${path}` }];
  });
}

/** Blockfrost for Cardano preprod whose tip advances every `blockMs` from `startHeight`. */
export async function adaReplay(blockMs: number, startHeight = 4_000_000): Promise<ReplayChain> {
  const recorded = JSON.parse(fixture('ada', 'testnet/block-3152805.json')) as Record<string, unknown>;
  const txs = JSON.parse(fixture('ada', 'testnet/block-3152805-txs-page1.json')) as string[];
  const tx = JSON.parse(fixture('ada', 'testnet/tx-4d5beb45.json')) as unknown;
  const utxos = JSON.parse(fixture('ada', 'testnet/tx-4d5beb45-utxos.json')) as unknown;
  const started = Date.now();
  const tip = () => startHeight + Math.floor((Date.now() - started) / blockMs);
  const heightOf = new Map<string, number>();
  const block = (height: number) => {
    const hash = hashOf('ada', height);
    heightOf.set(hash, height);
    return { ...recorded, height, hash, previous_block: hashOf('ada', height - 1), time: Math.floor((started + (height - startHeight) * blockMs) / 1000) };
  };
  return serve((_method, path) => {
    const url = new URL(path, 'http://replay');
    const parts = url.pathname.split('/').filter(Boolean);
    if (url.pathname === '/blocks/latest') return [200, block(tip())];
    if (parts[0] === 'blocks' && parts.length === 2) {
      const height = Number(parts[1]);
      return Number.isSafeInteger(height) && height <= tip()
        ? [200, block(height)]
        : [404, { status_code: 404, error: 'Not Found', message: 'The requested component has not been found.' }];
    }
    if (parts[0] === 'blocks' && parts[2] === 'txs') return [200, heightOf.has(parts[1]!) && url.searchParams.get('page') === '1' ? txs : []];
    if (parts[0] === 'txs' && parts[1] === txs[0] && parts.length === 2) return [200, tx];
    if (parts[0] === 'txs' && parts[1] === txs[0] && parts[2] === 'utxos') return [200, utxos];
    return [404, { status_code: 404, error: 'Not Found', message: `unrecorded ${url.pathname}` }];
  });
}
