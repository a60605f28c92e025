import { fixtureJson, fixtureText, type ExpectedTransfer, type ProviderReplay } from './recorded-scan.js';
import { jsonAnswer, type ReplayHandler } from '@gw/kernel/testing';

/**
 * Koios API v1 (PostgREST over cardano-db-sync) replayed from chains/ada/test/fixtures/koios (its
 * README says where each row was recorded and what was converted or trimmed), answering as
 * PostgREST does: `GET /tip`; `GET /blocks` filtered by `block_height` (`eq.`, `gte.`, `lte.`) and
 * ordered; `POST /block_txs` and `POST /tx_info` for the hashes in the body, paged by
 * `offset`/`limit`. Test networks (preprod, preview): the former public testnet's recorded block
 * 3338631 and its transactions. Mainnet: the recorded tip, and block 8054691 built from the one
 * recorded `tx_info` row of it (see its README, "The public-provider replay").
 */

type Row = Record<string, unknown>;

/** A block hash no recording holds: 32 zero bytes, as Koios writes hashes (hex). */
const UNRECORDED_HASH = '0'.repeat(64);
/** PostgREST's `max-rows` on Koios instances. */
const MAX_ROWS = 1000;

interface Rows {
  readonly tip: Row[];
  readonly blocks: Row[];
  readonly blockTxs: Row[];
  readonly txInfo: Row[];
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

function handlerOf(rows: Rows): ReplayHandler {
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

interface KoiosOutput {
  readonly payment_addr: { readonly bech32: string };
  readonly tx_index: number;
  readonly value: string;
}

/** The outputs of recorded transaction `txHash` at `address`, as the watcher reports them. */
function paidTo(txInfo: readonly Row[], txHash: string, address: string): ExpectedTransfer[] {
  const tx = txInfo.find((r) => r['tx_hash'] === txHash)!;
  return (tx['outputs'] as KoiosOutput[])
    .filter((o) => o.payment_addr.bech32 === address)
    .map((o) => ({ coin: 'ada', txHash, outputIndex: o.tx_index, toAddress: address, amountUnits: BigInt(o.value) }));
}

/** The replay of Koios's recorded answers for `network` (`cardano`, `preprod`, `preview`). */
export function koiosReplay(network: string): ProviderReplay {
  if (network !== 'cardano') {
    const rows: Rows = {
      tip: fixtureJson<Row[]>('ada', 'koios/testnet/tip.json'),
      blocks: fixtureJson<Row[]>('ada', 'koios/testnet/blocks.json'),
      blockTxs: fixtureJson<Row[]>('ada', 'koios/testnet/block_txs.json'),
      txInfo: fixtureJson<Row[]>('ada', 'koios/testnet/tx_info.json'),
    };
    const block = rows.blocks.find((r) => r['block_height'] === 3338631)!;
    // 4 ada of the plain payment 928052b8… to a script address (fixtures/koios/README.md).
    const to = 'addr_test1wphyve8r76kvfr5yn6k0fcmq0mn2uf6c6mvtsrafmr7awcg0vnzpg';
    return {
      api: 'koios',
      recordings: 'Cardano former public testnet block 3338631 (Koios Go client test data)',
      handler: handlerOf(rows),
      scan: {
        headHeight: (rows.tip[0]!['block_no'] ?? rows.tip[0]!['block_height']) as number,
        height: 3338631,
        hash: block['hash'] as string,
        watched: [to],
        transfers: paidTo(rows.txInfo, '928052b80bfc23801da525a6bf8f805da36f22fa0fd5fec2198b0746eb82b72b', to),
      },
    };
  }
  const txInfo = fixtureJson<Row[]>('ada', 'koios/mainnet/tx_info.json');
  const tx = txInfo.find((r) => r['block_height'] === 8054691)!;
  // Built from the recorded row (fixtures/koios/README.md): the block's hash, height, epoch and time; its parent is not recorded, and its other transactions neither.
  const block: Row = {
    hash: tx['block_hash'],
    epoch_no: tx['epoch_no'],
    abs_slot: tx['absolute_slot'],
    epoch_slot: tx['epoch_slot'],
    block_height: tx['block_height'],
    block_time: tx['tx_timestamp'],
    tx_count: 1,
    parent_hash: UNRECORDED_HASH,
  };
  const blockTx: Row = {
    block_hash: tx['block_hash'],
    tx_hash: tx['tx_hash'],
    epoch_no: tx['epoch_no'],
    block_height: tx['block_height'],
    block_time: tx['tx_timestamp'],
  };
  const first = (tx['outputs'] as KoiosOutput[])[0]!;
  const to = first.payment_addr.bech32;
  return {
    api: 'koios',
    recordings: 'Cardano mainnet tip; block 8054691 built from its recorded transaction (Thoth test data)',
    handler: handlerOf({ tip: JSON.parse(fixtureText('ada', 'koios/mainnet/tip.json')) as Row[], blocks: [block], blockTxs: [blockTx], txInfo }),
    scan: {
      headHeight: fixtureJson<Row[]>('ada', 'koios/mainnet/tip.json')[0]!['block_height'] as number,
      height: 8054691,
      hash: tx['block_hash'] as string,
      watched: [to],
      transfers: paidTo(txInfo, tx['tx_hash'] as string, to),
    },
  };
}
