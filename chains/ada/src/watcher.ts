import {
  expectShape,
  type ChainDefinition,
  type ChainHead,
  type ChainWatcher,
  type CoinId,
  type ObservedTransfer,
  type ScannedBlock,
  type SpentOutput,
  type WatchedAddresses,
  type WatcherOptions,
} from '@gw/chain-api';
import { blockfrostBlockHash, blockfrostHead, blockfrostValidity, readBlockfrostBlock } from './blockfrost-reader.js';
import { koiosBlockHash, koiosBodyLimit, koiosHead, koiosValidity, readKoiosBlocks } from './koios-reader.js';
import { mapLimit } from './map-limit.js';
import { ADA_PROVIDER_KINDS, adaProviderKind, assertAdaProviderKinds } from './provider-kinds.js';
import type { ReadBlock, ReadTx } from './read-block.js';

/** Validity lookups in flight at once (Blockfrost's free tier bursts to 500, then 10/s). */
const VALIDITY_CONCURRENCY = 5;
/** A Blockfrost block costs one request per transaction: keep a scan short enough to retry cheaply. */
const BLOCKFROST_BLOCKS_PER_SCAN = 5;
/**
 * Koios reads a range at once (one `/blocks`, one `/block_txs` whose body names every block: 10
 * hashes stay under the public tier's 1 kB), so a longer range costs fewer requests per block.
 */
const KOIOS_BLOCKS_PER_SCAN = 10;

/**
 * Watches one Cardano network through Blockfrost-compatible REST APIs (`kind` `blockfrost`, the
 * default) and/or Koios API v1 (`kind` `koios`), one pool failing over between both kinds; each
 * call dispatches on the endpoint that answers it, and one provider answers for a whole block.
 *
 * Blockfrost: each block by height, its transaction hashes (paged), the inputs and outputs of every
 * transaction (`/txs/{hash}/utxos`), and, only for transactions that pay a watched address or spend
 * from one with collateral at stake, `/txs/{hash}` to drop those whose scripts failed
 * (`valid_contract: false`: their regular outputs were never created, their collateral was consumed
 * instead of their inputs). Koios: the whole range at once, `/blocks`, `/block_txs` and `/tx_info`
 * in batches, whose answer already tells what each transaction did (`koios.ts`).
 *
 * Each block's `spends` are the outputs at watched addresses its transactions consumed. Coin: ada
 * only, the lovelace of each output; native assets are ignored. Cardano declares no finality, so
 * `head()` reports none.
 */
export class AdaWatcher implements ChainWatcher {
  readonly maxBlocksPerScan: number;
  readonly providerKinds = ADA_PROVIDER_KINDS;
  private readonly coin: CoinId;

  constructor(
    definition: ChainDefinition,
    private readonly options: WatcherOptions,
  ) {
    const native = definition.coins.find((c) => !c.contracts);
    if (!native) throw new Error(`chain ${definition.id} has no native coin`);
    this.coin = native.id;
    assertAdaProviderKinds(definition.id, options.providers.endpoints);
    const koiosOnly = options.providers.endpoints.every((e) => adaProviderKind(e) === 'koios');
    this.maxBlocksPerScan = koiosOnly ? KOIOS_BLOCKS_PER_SCAN : BLOCKFROST_BLOCKS_PER_SCAN;
  }

  async head(): Promise<ChainHead> {
    const height = await this.options.providers.run('head', (http, endpoint) =>
      adaProviderKind(endpoint) === 'koios' ? koiosHead(http) : blockfrostHead(http),
    );
    return { height };
  }

  async blockHash(height: number): Promise<string | null> {
    assertHeight(height);
    return this.options.providers.run('block_hash', (http, endpoint) =>
      adaProviderKind(endpoint) === 'koios' ? koiosBlockHash(http, height) : blockfrostBlockHash(http, height),
    );
  }

  async scan(from: number, to: number, watched: WatchedAddresses): Promise<ScannedBlock[]> {
    assertHeight(from);
    assertHeight(to);
    if (to < from) throw new RangeError(`scan range ${from}..${to} is empty`);
    if (to - from + 1 > this.maxBlocksPerScan) throw new RangeError(`scan range ${from}..${to} exceeds ${this.maxBlocksPerScan} blocks`);

    const read: ReadBlock[] = [];
    for (let height = from; height <= to; height = from + read.length) {
      // One provider answers for a whole block, so its hash, transaction list and outputs agree:
      // a Koios instance reads the rest of the range at once, a Blockfrost one this block.
      const blocks = await this.options.providers.run('scan_block', async (http, endpoint) =>
        adaProviderKind(endpoint) === 'koios' ? readKoiosBlocks(http, height, to, koiosBodyLimit(endpoint)) : [await readBlockfrostBlock(http, height)],
      );
      const previous = read[read.length - 1];
      // After a failover, two providers on different branches: the scanner retries the range.
      expectShape(!previous || blocks[0]?.block.previousBlock === previous.block.hash, `block ${height} does not follow ${previous?.block.hash}`);
      read.push(...blocks);
    }

    const candidates = new Set<string>();
    for (const { txs } of read) {
      for (const tx of txs) {
        for (const output of tx.moves.outputs) candidates.add(output.address);
        for (const input of tx.moves.inputs) candidates.add(input.address);
      }
    }
    const matched = candidates.size === 0 ? new Set<string>() : await watched.filter([...candidates]);

    // Validity decides what a transaction did: a failed one (`valid_contract: false`) created none
    // of its regular outputs and consumed its collateral instead of its inputs. Koios's answers
    // carry it; for a block Blockfrost read it is asked for the transactions that pay a watched
    // address, and for those that spend from one and carry collateral; one without collateral has
    // no Plutus script to fail, so it is valid.
    const asked = read.flatMap(({ block, txs }) =>
      txs
        .filter(
          (tx) =>
            tx.valid === undefined &&
            (tx.moves.outputs.some((o) => matched.has(o.address)) ||
              (tx.moves.inputs.some((i) => i.collateral) && tx.moves.inputs.some((i) => matched.has(i.address)))),
        )
        .map((tx) => ({ block, tx })),
    );
    const valid = await mapLimit(asked, VALIDITY_CONCURRENCY, ({ block, tx }) =>
      this.options.providers.run('tx_validity', (http, endpoint) =>
        adaProviderKind(endpoint) === 'koios' ? koiosValidity(http, tx.hash, block) : blockfrostValidity(http, tx.hash, block),
      ),
    );
    const validity = new Map(asked.map(({ tx }, i) => [tx.hash, valid[i]!]));
    const isValid = (tx: ReadTx): boolean => tx.valid ?? validity.get(tx.hash) ?? !tx.moves.inputs.some((i) => i.collateral);

    return read.map(({ block, txs }) => {
      const time = new Date(block.time * 1000);
      const transfers: ObservedTransfer[] = [];
      const spends: SpentOutput[] = [];
      for (const tx of txs) {
        const applied = isValid(tx);
        // Only outputs at watched addresses: both APIs name each consumed output's address, so the
        // watcher can tell the pool's own (and needs no validity lookup for the rest).
        for (const input of tx.moves.inputs) {
          if (input.collateral !== !applied || !matched.has(input.address)) continue;
          spends.push({ txHash: input.txHash, outputIndex: input.outputIndex, spentBy: tx.hash });
        }
        if (!applied) continue;
        for (const output of tx.moves.outputs) {
          if (!matched.has(output.address)) continue;
          transfers.push({
            chain: 'ada',
            network: this.options.network.id,
            coin: this.coin,
            txHash: tx.hash,
            outputIndex: output.outputIndex,
            toAddress: output.address,
            ...(tx.moves.fromAddress === undefined ? {} : { fromAddress: tx.moves.fromAddress }),
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
}

function assertHeight(height: number): void {
  if (!Number.isSafeInteger(height) || height < 0) throw new RangeError(`invalid block height ${height}`);
}
