import { readFileSync } from 'node:fs';
import { jsonAnswer, type ReplayHandler } from '@gw/chain-api/testing';

/**
 * Koios API v1 (PostgREST over cardano-db-sync) replayed from the rows recorded in
 * chains/ada/test/fixtures/koios (its README says where each row was recorded and what was
 * converted, trimmed or built): the one replay of the API that this package's Koios watcher tests
 * and the public-provider replay of `@gw/testing` serve, through the chain contract's
 * `startReplayServer`. It answers as PostgREST does: `GET /tip`; `GET /blocks` filtered by
 * `block_height` (`eq.`, `gte.`, `lte.`, `gt.`, `lt.`) and ordered; `POST /block_txs` and
 * `POST /tx_info` for the hashes in the body, paged by `offset`/`limit`; any other path is
 * PostgREST's 404 `PGRST125`.
 */

type Row = Record<string, unknown>;

/** One network's Koios rows, which a test may change into a variant of a recording (saying so where it does). */
export interface KoiosRows {
  /** The `/tip` answer. */
  tip: unknown;
  blocks: Row[];
  blockTxs: Row[];
  txInfo: Row[];
}

/** PostgREST's `max-rows` on Koios instances. */
const MAX_ROWS = 1000;

/** The rows of one recorded file of chains/ada/test/fixtures/koios (`testnet/tip.json`). */
export function koiosFixture(name: string): Row[] {
  return JSON.parse(readFileSync(new URL(`../../test/fixtures/koios/${name}`, import.meta.url), 'utf8')) as Row[];
}

/**
 * The recorded rows of a network, new at each call: `testnet`, the former public testnet's tip
 * and block 3338631 with its two transactions (and the other recorded blocks); `mainnet`, the
 * recorded tip and `tx_info` rows, no block.
 */
export function recordedKoiosRows(network: 'testnet' | 'mainnet'): KoiosRows {
  if (network === 'mainnet') return { tip: koiosFixture('mainnet/tip.json'), blocks: [], blockTxs: [], txInfo: koiosFixture('mainnet/tx_info.json') };
  return {
    tip: koiosFixture('testnet/tip.json'),
    blocks: koiosFixture('testnet/blocks.json'),
    blockTxs: koiosFixture('testnet/block_txs.json'),
    txInfo: koiosFixture('testnet/tx_info.json'),
  };
}

/** PostgREST's horizontal filters (`column=op.value` on number columns), `order`, `offset` and `limit`, as Koios applies them. */
function filterRows(all: readonly Row[], query: URLSearchParams): Row[] {
  let result = [...all];
  for (const [column, condition] of query) {
    if (['order', 'offset', 'limit', 'select'].includes(column)) continue;
    const dot = condition.indexOf('.');
    const [op, value] = [condition.slice(0, dot), Number(condition.slice(dot + 1))];
    result = result.filter((row) => {
      const cell = row[column] as number;
      return op === 'eq' ? cell === value : op === 'gte' ? cell >= value : op === 'lte' ? cell <= value : op === 'gt' ? cell > value : cell < value;
    });
  }
  const order = query.get('order');
  if (order) {
    const keys = order.split(',').map((part) => part.split('.') as [string, string]);
    result.sort((a, b) => {
      for (const [key, direction] of keys) {
        const [x, y] = [a[key] as string | number, b[key] as string | number];
        if (x !== y) return (x < y ? -1 : 1) * (direction === 'desc' ? -1 : 1);
      }
      return 0;
    });
  }
  const offset = Number(query.get('offset') ?? 0);
  return result.slice(offset, offset + Math.min(Number(query.get('limit') ?? MAX_ROWS), MAX_ROWS));
}

/** Answers Koios requests from `rows` (read at each request). */
export function koiosHandler(rows: KoiosRows): ReplayHandler {
  return ({ method, path, body }) => {
    const url = new URL(path, 'http://replay');
    const asked = body ? (JSON.parse(body) as Row) : {};
    if (method === 'GET' && url.pathname === '/tip') return jsonAnswer(rows.tip);
    if (method === 'GET' && url.pathname === '/blocks') return jsonAnswer(filterRows(rows.blocks, url.searchParams));
    if (method === 'POST' && url.pathname === '/block_txs') {
      const hashes = new Set(asked['_block_hashes'] as string[]);
      return jsonAnswer(
        filterRows(
          rows.blockTxs.filter((r) => hashes.has(r['block_hash'] as string)),
          url.searchParams,
        ),
      );
    }
    if (method === 'POST' && url.pathname === '/tx_info') {
      const hashes = new Set(asked['_tx_hashes'] as string[]);
      // Without `_inputs` Koios leaves every input list empty.
      return jsonAnswer(
        rows.txInfo
          .filter((r) => hashes.has(r['tx_hash'] as string))
          .map((r) => (asked['_inputs'] === true ? r : { ...r, inputs: [], collateral_inputs: [], reference_inputs: [] })),
      );
    }
    return jsonAnswer({ code: 'PGRST125', details: null, hint: null, message: 'Invalid path specified in request URL' }, 404);
  };
}
