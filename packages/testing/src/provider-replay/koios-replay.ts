import { koiosHandler, recordedKoiosRows } from '@gw/chain-ada/testing';
import type { ExpectedTransfer, ProviderReplay } from './recorded-scan.js';

/**
 * Koios API v1 (PostgREST over cardano-db-sync) replayed from chains/ada/test/fixtures/koios (its
 * README says where each row was recorded and what was converted or trimmed), answered by the ADA
 * package's Koios replay (`koiosHandler` of `@gw/chain-ada/testing`), as PostgREST does: `GET /tip`;
 * `GET /blocks` filtered by `block_height` (`eq.`, `gte.`, `lte.`) and ordered; `POST /block_txs`
 * and `POST /tx_info` for the hashes in the body, paged by `offset`/`limit`. Test networks
 * (preprod, preview): the former public testnet's recorded block 3338631 and its transactions.
 * Mainnet: the recorded tip, and block 8054691 built from the one recorded `tx_info` row of it (see
 * its README, "The public-provider replay").
 */

type Row = Record<string, unknown>;

/** A block hash no recording holds: 32 zero bytes, as Koios writes hashes (hex). */
const UNRECORDED_HASH = '0'.repeat(64);

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
    const rows = recordedKoiosRows('testnet');
    const tip = (rows.tip as Row[])[0]!;
    const block = rows.blocks.find((r) => r['block_height'] === 3338631)!;
    // 4 ada of the plain payment 928052b8… to a script address (fixtures/koios/README.md).
    const to = 'addr_test1wphyve8r76kvfr5yn6k0fcmq0mn2uf6c6mvtsrafmr7awcg0vnzpg';
    return {
      api: 'koios',
      recordings: 'Cardano former public testnet block 3338631 (Koios Go client test data)',
      handler: koiosHandler(rows),
      scan: {
        headHeight: (tip['block_no'] ?? tip['block_height']) as number,
        height: 3338631,
        hash: block['hash'] as string,
        watched: [to],
        transfers: paidTo(rows.txInfo, '928052b80bfc23801da525a6bf8f805da36f22fa0fd5fec2198b0746eb82b72b', to),
      },
    };
  }
  const { tip, txInfo } = recordedKoiosRows('mainnet');
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
    handler: koiosHandler({ tip, blocks: [block], blockTxs: [blockTx], txInfo }),
    scan: {
      headHeight: (tip as Row[])[0]!['block_height'] as number,
      height: 8054691,
      hash: tx['block_hash'] as string,
      watched: [to],
      transfers: paidTo(txInfo, tx['tx_hash'] as string, to),
    },
  };
}
