import {
  expectShape,
  type ChainDefinition,
  type ChainHead,
  type ChainWatcher,
  type CoinId,
  type ObservedTransfer,
  type ProviderHttp,
  type ScannedBlock,
  type SpentOutput,
  type WatchedAddresses,
  type WatcherOptions,
} from '@gw/chain-api';
import { parseBlock, parseTx, parseTxHashPage, parseTxUtxos, type BlockfrostBlock, type BlockfrostTxUtxos } from './blockfrost.js';
import { mapLimit } from './map-limit.js';

/** Blockfrost's largest page. */
const TX_PAGE_SIZE = 100;
/** Per-transaction requests in flight at once: Blockfrost's free tier bursts to 500, then 10/s. */
const TX_CONCURRENCY = 5;

interface ReadTx {
  readonly hash: string;
  readonly utxos: BlockfrostTxUtxos;
}

interface ReadBlock {
  readonly block: BlockfrostBlock;
  readonly txs: readonly ReadTx[];
}

/**
 * Watches one Cardano network through Blockfrost-compatible REST APIs: each block by height, its
 * transaction hashes (paged), the inputs and outputs of every transaction (`/txs/{hash}/utxos`), and,
 * only for transactions that pay a watched address or spend from one with collateral at stake,
 * `/txs/{hash}` to drop those whose scripts failed (`valid_contract: false`: their regular outputs
 * were never created, their collateral was consumed instead of their inputs). Each block's
 * `spends` are the outputs at watched addresses its transactions consumed. Coin: ada only, the
 * `lovelace` unit of each output; native assets are ignored. Cardano declares no finality, so
 * `head()` reports none.
 */
export class AdaWatcher implements ChainWatcher {
  /** Every block costs one request per transaction: keep a scan short enough to retry cheaply. */
  readonly maxBlocksPerScan = 5;
  private readonly coin: CoinId;

  constructor(
    definition: ChainDefinition,
    private readonly options: WatcherOptions,
  ) {
    const native = definition.coins.find((c) => !c.contracts);
    if (!native) throw new Error(`chain ${definition.id} has no native coin`);
    this.coin = native.id;
  }

  async head(): Promise<ChainHead> {
    const block = await this.options.providers.run('head', async (http) => parseBlock(await http.json('GET', '/blocks/latest'), 'blocks/latest'));
    return { height: block.height };
  }

  async blockHash(height: number): Promise<string | null> {
    assertHeight(height);
    return this.options.providers.run('block_hash', async (http) => {
      const body = await http.json('GET', `/blocks/${height}`, { allowNotFound: true });
      if (body === undefined) return null;
      const block = parseBlock(body, `blocks/${height}`);
      expectShape(block.height === height, `blocks/${height}: answered height ${block.height}`);
      return block.hash;
    });
  }

  async scan(from: number, to: number, watched: WatchedAddresses): Promise<ScannedBlock[]> {
    assertHeight(from);
    assertHeight(to);
    if (to < from) throw new RangeError(`scan range ${from}..${to} is empty`);
    if (to - from + 1 > this.maxBlocksPerScan) throw new RangeError(`scan range ${from}..${to} exceeds ${this.maxBlocksPerScan} blocks`);

    const read: ReadBlock[] = [];
    for (let height = from; height <= to; height++) {
      // One provider answers for a whole block, so its hash, transaction list and outputs agree.
      read.push(await this.options.providers.run('scan_block', (http) => this.readBlock(http, height)));
    }

    const candidates = new Set<string>();
    for (const { txs } of read) {
      for (const tx of txs) {
        for (const output of tx.utxos.outputs) candidates.add(output.address);
        for (const input of tx.utxos.inputs) candidates.add(input.address);
      }
    }
    const matched = candidates.size === 0 ? new Set<string>() : await watched.filter([...candidates]);

    // Validity decides what a transaction did: a failed one (`valid_contract: false`) created none
    // of its regular outputs and consumed its collateral instead of its inputs. It is asked for the
    // transactions that pay a watched address, and for those that spend from one and carry
    // collateral; one without collateral has no Plutus script to fail, so it is valid.
    const asked = read.flatMap(({ block, txs }) =>
      txs
        .filter(
          (tx) =>
            tx.utxos.outputs.some((o) => matched.has(o.address)) ||
            (tx.utxos.inputs.some((i) => i.collateral) && tx.utxos.inputs.some((i) => matched.has(i.address))),
        )
        .map((tx) => ({ block, tx })),
    );
    const valid = await mapLimit(asked, TX_CONCURRENCY, ({ block, tx }) =>
      this.options.providers.run('tx_validity', async (http) => {
        const info = parseTx(await http.json('GET', `/txs/${tx.hash}`), tx.hash);
        // A different block means the chain moved under the scan: fail, the scanner retries.
        expectShape(info.block === block.hash && info.blockHeight === block.height, `txs/${tx.hash}: in block ${info.block}, scanned ${block.hash}`);
        return info.validContract;
      }),
    );
    const validity = new Map(asked.map(({ tx }, i) => [tx.hash, valid[i]!]));
    const isValid = (tx: ReadTx): boolean => validity.get(tx.hash) ?? !tx.utxos.inputs.some((i) => i.collateral);

    return read.map(({ block, txs }) => {
      const time = new Date(block.time * 1000);
      const transfers: ObservedTransfer[] = [];
      const spends: SpentOutput[] = [];
      for (const tx of txs) {
        const applied = isValid(tx);
        // Only outputs at watched addresses: Blockfrost names each consumed output's address, so
        // the watcher can tell the pool's own (and needs no validity lookup for the rest).
        for (const input of tx.utxos.inputs) {
          if (input.collateral !== !applied || !matched.has(input.address)) continue;
          spends.push({ txHash: input.txHash, outputIndex: input.outputIndex, spentBy: tx.hash });
        }
        if (!applied) continue;
        for (const output of tx.utxos.outputs) {
          if (!matched.has(output.address)) continue;
          transfers.push({
            chain: 'ada',
            network: this.options.network.id,
            coin: this.coin,
            txHash: tx.hash,
            outputIndex: output.outputIndex,
            toAddress: output.address,
            ...(tx.utxos.fromAddress === undefined ? {} : { fromAddress: tx.utxos.fromAddress }),
            amountUnits: output.lovelace,
            blockHeight: block.height,
            blockHash: block.hash,
            observedAt: time,
          });
        }
      }
      return { height: block.height, hash: block.hash, parentHash: block.previousBlock, time, transfers, spends };
    });
  }

  private async readBlock(http: ProviderHttp, height: number): Promise<ReadBlock> {
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
    const txs = await mapLimit(hashes, TX_CONCURRENCY, async (hash) => ({ hash, utxos: parseTxUtxos(await http.json('GET', `/txs/${hash}/utxos`), hash) }));
    return { block, txs };
  }
}

function assertHeight(height: number): void {
  if (!Number.isSafeInteger(height) || height < 0) throw new RangeError(`invalid block height ${height}`);
}
