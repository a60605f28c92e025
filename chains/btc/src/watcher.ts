import * as ecc from '@bitcoinerlab/secp256k1';
import * as bitcoin from 'bitcoinjs-lib';
import {
  expectShape,
  type ChainDefinition,
  type ChainHead,
  type ChainId,
  type ChainWatcher,
  type CoinId,
  type HeadListener,
  type NetworkDefinition,
  type ObservedTransfer,
  type ProviderEndpoint,
  type ProviderHttp,
  type ProviderPool,
  type PushedTransaction,
  type ScannedBlock,
  type Unsubscribe,
  type TransactionInBlock,
  type WatchedAddresses,
  type WatcherOptions,
} from '@gw/chain-api';
import { bitcoinParams, type Bip84Params } from './bip84-params.js';
import {
  ESPLORA_TXS_PAGE_SIZE,
  parseBlock,
  parseBlockHashText,
  parseHeightText,
  parseTxAnswer,
  parseTxList,
  type EsploraOutput,
  type EsploraTx,
} from './esplora.js';
import {
  getRawTransactions,
  RpcCallError,
  parseBlockCount,
  parseBlockHash,
  parseBlockHeader,
  parseCoreBlock,
  parseCoreTx,
  parseMempoolTxids,
  rpcCall,
} from './core-rpc.js';
import { subscribeCoreZmq } from './zmq.js';

bitcoin.initEccLib(ecc);

/** Esplora's `/address/:address/txs/mempool` answers at most 50 transactions (no paging). */
const MEMPOOL_TXS_LIMIT = 50;
/** Parallel `/address/:address/txs/mempool` requests; public Esplora servers rate-limit hard. */
const MEMPOOL_CONCURRENCY = 4;
/** Provider kinds this watcher reads (`ProviderEndpoint.kind`); absent means Esplora. */
export const BTC_PROVIDER_KINDS = ['esplora', 'bitcoin-core'] as const;
/** Core's "Block height out of range" (getblockhash above the tip). */
const RPC_INVALID_PARAMETER = -8;
/** Core's RPC_INVALID_ADDRESS_OR_KEY, its "Block not found". */
const RPC_INVALID_ADDRESS_OR_KEY = -5;
/** `previousblockhash` of the genesis block, which has none. */
const NO_PARENT = '0'.repeat(64);

/** A block as read from the provider, before the watched-address filter. */
interface ReadBlock {
  readonly height: number;
  readonly hash: string;
  readonly parentHash: string;
  readonly time: Date;
  readonly txs: readonly LocatedTx[];
}

/** A transaction with the canonical address of each output (null where the script has none). */
interface LocatedTx {
  readonly tx: EsploraTx;
  readonly addresses: readonly (string | null)[];
}

/**
 * Watches one Bitcoin network through Esplora-compatible REST providers (Blockstream, mempool.space,
 * self-hosted electrs) and/or Bitcoin Core JSON-RPC nodes (`kind: 'bitcoin-core'`, also bcoin), one
 * pool failing over between both kinds. Through a node a block is `getblockhash` + `getblock` with
 * full transactions, and the mempool is `getrawmempool` + batched `getrawtransaction`. Blocks are read whole, 25 transactions per request, and every output to a
 * watched address is reported with its `vout` index as `outputIndex`. The provider's URL decides the
 * network; an output whose provider-given address does not match the script under this network's
 * encoding is treated as a malformed answer (a provider of another network).
 */
export class BtcWatcher implements ChainWatcher {
  /** A block costs `1 + ceil(tx_count / 25)` requests (about 150 for a full mainnet block). */
  readonly maxBlocksPerScan = 3;
  readonly providerKinds = BTC_PROVIDER_KINDS;
  /** Push over Bitcoin Core's ZMQ `hashblock`/`rawtx`, when a configured node has a `zmqUrl` (see `subscribeCoreZmq`). */
  readonly subscribeHeads?: (listener: HeadListener) => Unsubscribe;

  private readonly chain: ChainId;
  private readonly network: NetworkDefinition;
  private readonly providers: ProviderPool;
  private readonly params: bitcoin.Network;
  private readonly coin: CoinId;

  constructor(definition: ChainDefinition, options: WatcherOptions, chainParams: Bip84Params = bitcoinParams) {
    const coin = definition.coins.find((c) => c.contracts === undefined);
    if (!coin) throw new Error(`${definition.id} defines no native coin`);
    this.chain = definition.id;
    this.coin = coin.id;
    this.network = options.network;
    this.providers = options.providers;
    const params = chainParams.networks[options.network.id];
    if (!params) throw new Error(`${definition.id}: no BIP84 network parameters for network ${options.network.id}`);
    this.params = params;
    for (const endpoint of options.providers.endpoints) {
      if (endpoint.kind !== undefined && !(BTC_PROVIDER_KINDS as readonly string[]).includes(endpoint.kind)) {
        throw new Error(`${definition.id} provider ${endpoint.name}: kind ${endpoint.kind} is not one of ${BTC_PROVIDER_KINDS.join(', ')}`);
      }
      if (endpoint.zmqUrl !== undefined && !isCore(endpoint))
        throw new Error(`btc provider ${endpoint.name}: zmqUrl needs kind bitcoin-core (Esplora has no ZMQ)`);
    }
    if (options.providers.endpoints.some((e) => e.zmqUrl !== undefined)) {
      this.subscribeHeads = (listener) => subscribeCoreZmq(options.providers.endpoints, (raw) => this.decodePushedTx(raw), listener);
    }
  }

  async head(): Promise<ChainHead> {
    const height = await this.providers.run('head', async (http, endpoint) =>
      isCore(endpoint) ? parseBlockCount(await rpcCall(http, 'getblockcount', [])) : parseHeightText(await http.text('GET', '/blocks/tip/height')),
    );
    return { height };
  }

  async blockHash(height: number): Promise<string | null> {
    assertHeight(height);
    return this.providers.run('blockHash', async (http, endpoint) => {
      if (isCore(endpoint)) {
        try {
          return parseBlockHash(await rpcCall(http, 'getblockhash', [height]), height);
        } catch (error) {
          if (error instanceof RpcCallError && error.code === RPC_INVALID_PARAMETER) return null;
          throw error;
        }
      }
      const text = await http.text('GET', `/block-height/${height}`, { allowNotFound: true });
      return text === undefined ? null : parseBlockHashText(text, `/block-height/${height}`);
    });
  }

  async scan(from: number, to: number, watched: WatchedAddresses): Promise<ScannedBlock[]> {
    assertHeight(from);
    assertHeight(to);
    if (to < from) return [];
    if (to - from + 1 > this.maxBlocksPerScan) throw new Error(`scan ${from}..${to} exceeds maxBlocksPerScan ${this.maxBlocksPerScan}`);

    const blocks: ReadBlock[] = [];
    // One provider reads a whole block (hash, header, every page), so its pages agree with each other.
    for (let height = from; height <= to; height++) {
      blocks.push(await this.providers.run('scan', (http, endpoint) => (isCore(endpoint) ? this.readCoreBlock(http, height) : this.readBlock(http, height))));
    }

    const candidates = new Set<string>();
    for (const block of blocks) {
      for (const { tx, addresses } of block.txs) {
        if (tx.isCoinbase) continue;
        for (const address of addresses) if (address) candidates.add(address);
      }
    }
    const wanted = candidates.size === 0 ? new Set<string>() : await watched.filter([...candidates]);

    return blocks.map((block) => ({
      height: block.height,
      hash: block.hash,
      parentHash: block.parentHash,
      time: block.time,
      transfers: block.txs.flatMap((located) =>
        this.transfersOf(located, wanted, { blockHeight: block.height, blockHash: block.hash, observedAt: block.time }),
      ),
      // Every input of the block: whose outputs they are is the watchers plugin's to tell.
      spends: block.txs.flatMap(({ tx }) => tx.spends.map((spent) => ({ txHash: spent.txid, outputIndex: spent.vout, spentBy: tx.txid }))),
    }));
  }

  /**
   * Esplora: `GET /tx/:txid` (one request; its `status` names the block). A node: the block read
   * whole (`getblock` needs no transaction index), which costs an own node nothing.
   */
  async transactionIn(txHash: string, blockHash: string, watched: WatchedAddresses): Promise<TransactionInBlock | null> {
    const found = await this.providers.run('transaction', async (http, endpoint) => {
      if (isCore(endpoint)) {
        let height: number | null;
        try {
          height = parseBlockHeader(await rpcCall(http, 'getblockheader', [blockHash]), blockHash);
        } catch (error) {
          // "Block not found" (Core -5, bcoin -1): the node never had it.
          if (error instanceof RpcCallError && (error.code === RPC_INVALID_ADDRESS_OR_KEY || error.message.endsWith('Block not found'))) return null;
          throw error;
        }
        if (height === null) return null;
        const block = await this.readCoreBlock(http, height);
        const located = block.txs.find(({ tx }) => tx.txid === txHash);
        return located ? { height, hash: block.hash, located, time: block.time } : null;
      }
      const path = `/tx/${txHash}`;
      const body = await http.json('GET', path, { allowNotFound: true });
      if (body === undefined) return null;
      const tx = parseTxAnswer(body, txHash);
      if (!tx.block) return null;
      return { height: tx.block.height, hash: tx.block.hash, located: this.locate(tx), time: new Date(tx.block.time * 1000) };
    });
    if (!found) return null;
    const addresses = found.located.addresses.filter((a): a is string => a !== null);
    const wanted = addresses.length === 0 ? new Set<string>() : await watched.filter(addresses);
    return {
      height: found.height,
      blockHash: found.hash,
      transfers: this.transfersOf(found.located, wanted, { blockHeight: found.height, blockHash: found.hash, observedAt: found.time }),
    };
  }

  async mempool(watched: WatchedAddresses): Promise<ObservedTransfer[]> {
    if (!this.providers.endpoints.some(isCore)) return this.esploraMempool(watched);
    // A node's whole mempool is read in one pass; an Esplora provider among nodes is asked per address.
    return this.providers.run('mempool', (http, endpoint) => (isCore(endpoint) ? this.coreMempool(http, watched) : this.esploraMempoolOn(http, watched)));
  }

  /**
   * A node's mempool: `getrawmempool`, then `getrawtransaction txid true` in batches of 100. The
   * node needs no transaction index for mempool transactions.
   */
  private async coreMempool(http: ProviderHttp, watched: WatchedAddresses): Promise<ObservedTransfer[]> {
    const observedAt = new Date();
    const txids = parseMempoolTxids(await rpcCall(http, 'getrawmempool', []));
    const located: LocatedTx[] = [];
    for await (const [txid, reply] of getRawTransactions(http, txids, true)) {
      // Mined or evicted between the two calls: the next block scan or pass sees it.
      if (reply.error) continue;
      const { tx, blockhash } = parseCoreTx(reply.result, `getrawtransaction ${txid}`);
      expectShape(tx.txid === txid, `getrawtransaction ${txid}: txid ${tx.txid}`);
      if (blockhash === null) located.push(this.locate(tx));
    }
    const candidates = new Set<string>();
    for (const { addresses } of located) for (const address of addresses) if (address) candidates.add(address);
    if (candidates.size === 0) return [];
    const wanted = await watched.filter([...candidates]);
    return located.flatMap((tx) => this.transfersOf(tx, wanted, { blockHeight: null, blockHash: null, observedAt }));
  }

  /** Esplora's per-address mempool through one provider (when nodes are configured beside it). */
  private async esploraMempoolOn(http: ProviderHttp, watched: WatchedAddresses): Promise<ObservedTransfer[]> {
    const observedAt = new Date();
    const found = new Map<string, ObservedTransfer>();
    for (const address of new Set(await watched.active())) {
      const path = `/address/${encodeURIComponent(address)}/txs/mempool`;
      for (const located of parseTxList(await http.json('GET', path), path, MEMPOOL_TXS_LIMIT).map((tx) => this.locate(tx))) {
        if (located.tx.confirmed === true) continue;
        for (const transfer of this.transfersOf(located, new Set([address]), { blockHeight: null, blockHash: null, observedAt })) {
          found.set(`${transfer.txHash}:${transfer.outputIndex}`, transfer);
        }
      }
    }
    return [...found.values()];
  }

  private async esploraMempool(watched: WatchedAddresses): Promise<ObservedTransfer[]> {
    const addresses = [...new Set(await watched.active())];
    const seen = new Set<string>();
    const found: ObservedTransfer[] = [];
    const observedAt = new Date();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < addresses.length) {
        const address = addresses[next++]!;
        const path = `/address/${encodeURIComponent(address)}/txs/mempool`;
        const txs = await this.providers.run('mempool', async (http) =>
          parseTxList(await http.json('GET', path), path, MEMPOOL_TXS_LIMIT).map((tx) => this.locate(tx)),
        );
        for (const located of txs) {
          if (located.tx.confirmed === true) continue;
          for (const transfer of this.transfersOf(located, new Set([address]), { blockHeight: null, blockHash: null, observedAt })) {
            const key = `${transfer.txHash}:${transfer.outputIndex}`;
            if (seen.has(key)) continue;
            seen.add(key);
            found.push(transfer);
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(MEMPOOL_CONCURRENCY, addresses.length) }, worker));
    return found;
  }

  private async readBlock(http: ProviderHttp, height: number): Promise<ReadBlock> {
    const hashPath = `/block-height/${height}`;
    const hash = parseBlockHashText(await http.text('GET', hashPath), hashPath);
    const block = parseBlock(await http.json('GET', `/block/${hash}`), hash, height);
    const txs: LocatedTx[] = [];
    for (let start = 0; start < block.tx_count; start += ESPLORA_TXS_PAGE_SIZE) {
      const path = `/block/${hash}/txs/${start}`;
      const page = parseTxList(await http.json('GET', path), path, ESPLORA_TXS_PAGE_SIZE);
      // An empty page inside tx_count means the provider lost the block (reorg, pruning): retry elsewhere.
      expectShape(page.length > 0, `${path}: empty page within tx_count ${block.tx_count}`);
      txs.push(...page.map((tx) => this.locate(tx)));
    }
    return {
      height,
      hash,
      parentHash: block.previousblockhash ?? NO_PARENT,
      time: new Date(block.timestamp * 1000),
      txs,
    };
  }

  /** A block through a node: `getblockhash`, then `getblock` with full transactions. */
  private async readCoreBlock(http: ProviderHttp, height: number): Promise<ReadBlock> {
    const hash = parseBlockHash(await rpcCall(http, 'getblockhash', [height]), height);
    let result: unknown;
    try {
      result = await rpcCall(http, 'getblock', [hash, 2]);
    } catch (error) {
      // bcoin refuses verbosity 2 ("Param #1 must be a boolean") and takes (verbose, details) instead.
      if (!(error instanceof RpcCallError)) throw error;
      result = await rpcCall(http, 'getblock', [hash, true, true]);
    }
    const block = parseCoreBlock(result, hash, height);
    return {
      height,
      hash,
      parentHash: block.previousblockhash ?? NO_PARENT,
      time: new Date(block.time * 1000),
      txs: block.txs.map((tx) => this.locate(tx)),
    };
  }

  /**
   * A transaction from the node's `rawtx` notification with the addresses its outputs pay
   * (addresses undefined when it does not decode, so the push still triggers a mempool read).
   */
  decodePushedTx(raw: Buffer): PushedTransaction {
    let tx: bitcoin.Transaction;
    try {
      tx = bitcoin.Transaction.fromBuffer(raw);
    } catch {
      return { txid: '', addresses: undefined };
    }
    const addresses: string[] = [];
    for (const output of tx.outs) {
      try {
        addresses.push(bitcoin.address.fromOutputScript(output.script, this.params));
      } catch {
        // no address form (OP_RETURN, bare multisig, ...): pays no watched address
      }
    }
    return { txid: tx.getId(), addresses };
  }

  /**
   * Adds each output's address in this network's canonical form (the adapter's), or null when the
   * script has none. Runs inside the provider call so a provider of another network fails over.
   */
  private locate(tx: EsploraTx): LocatedTx {
    return { tx, addresses: tx.vout.map((output) => this.addressOf(tx.txid, output)) };
  }

  private addressOf(txid: string, output: EsploraOutput): string | null {
    let address: string;
    try {
      address = bitcoin.address.fromOutputScript(Buffer.from(output.scriptpubkey, 'hex'), this.params);
    } catch {
      return null;
    }
    expectShape(
      output.scriptpubkey_address === undefined || output.scriptpubkey_address === address,
      `${txid}: output address ${String(output.scriptpubkey_address)} is not ${address} on ${this.network.id}`,
    );
    return address;
  }

  private transfersOf(
    { tx, addresses }: LocatedTx,
    wanted: ReadonlySet<string>,
    where: Pick<ObservedTransfer, 'blockHeight' | 'blockHash' | 'observedAt'>,
  ): ObservedTransfer[] {
    // Coinbase outputs cannot be spent for 100 blocks; they are never customer payments.
    if (tx.isCoinbase) return [];
    const transfers: ObservedTransfer[] = [];
    tx.vout.forEach((output, index) => {
      const address = addresses[index];
      if (!address || !wanted.has(address) || output.value === 0) return;
      transfers.push({
        chain: this.chain,
        network: this.network.id,
        coin: this.coin,
        txHash: tx.txid,
        outputIndex: index,
        toAddress: address,
        amountUnits: BigInt(output.value),
        ...where,
      });
    });
    return transfers;
  }
}

function isCore(endpoint: ProviderEndpoint): boolean {
  return endpoint.kind === 'bitcoin-core';
}

function assertHeight(height: number): void {
  if (!Number.isSafeInteger(height) || height < 0) throw new Error(`not a block height: ${height}`);
}
