import {
  expectShape,
  type ChainDefinition,
  type ChainHead,
  type ChainWatcher,
  type CoinId,
  type ObservedTransfer,
  type ProviderHttp,
  type ScannedBlock,
  type WatchedAddresses,
  type WatcherOptions,
} from '@gw/chain-api';
import bs58check from 'bs58check';
import { TRON_ADDRESS_PREFIX, tronAddressFromHex } from './derive.js';
import { amountOf, parseBlock, parseBlockHeader, parseTransactionInfos, postNode, type NodeBlock, type NodeTransactionInfo } from './node-api.js';

/** keccak256("Transfer(address,address,uint256)") as java-tron prints topics (hex, no `0x`). */
export const TRC20_TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const WORD = /^[0-9a-f]{64}$/;
const HEX_ADDRESS = /^41[0-9a-f]{40}$/;

/** A block as one provider served it: the block and the execution results of its transactions. */
interface FetchedBlock {
  readonly block: NodeBlock;
  readonly infos: readonly NodeTransactionInfo[];
}

/** T-address of a 21-byte `41...` hex address, in the adapter's derived form. */
function addressOfHex41(hex: string): string | undefined {
  const lower = hex.toLowerCase();
  return HEX_ADDRESS.test(lower) ? tronAddressFromHex(`0x${lower.slice(2)}`) : undefined;
}

/** T-address of an indexed `address` event topic (the last 20 of its 32 bytes). */
function addressOfTopic(topic: string): string | undefined {
  return WORD.test(topic) ? tronAddressFromHex(`0x${topic.slice(24)}`) : undefined;
}

/** A log's contract as 20-byte hex: java-tron prints it without `41`, `visible` nodes with it. */
function contractOfLog(address: string): string {
  return address.length === 42 && address.startsWith('41') ? address.slice(2) : address;
}

/**
 * Watches one TRON network through the full-node HTTP API (java-tron, TronGrid): TRX from the
 * `TransferContract`s of `getblockbynum`, TRC-20 from the `Transfer` logs of the definition's
 * contracts in `gettransactioninfobyblocknum` (block and logs of one height always from the same
 * provider). A transaction whose `contractRet` is not `SUCCESS`, or whose receipt reports a failure,
 * moved nothing and is skipped. The solidified block is the declared final height.
 *
 * TRX moved by internal contract calls and TRC-10 assets are not observed: pool addresses are plain
 * accounts that payers send TRX or USDT to directly. Zero-amount transfers (address-poisoning spam)
 * are dropped.
 */
export class TronWatcher implements ChainWatcher {
  readonly maxBlocksPerScan = 10;
  private readonly nativeCoin: CoinId;
  /** 20-byte contract hex -> coin. */
  private readonly tokens: ReadonlyMap<string, CoinId>;

  constructor(
    private readonly definition: ChainDefinition,
    private readonly options: WatcherOptions,
  ) {
    const network = options.network.id;
    const native = definition.coins.find((c) => !c.contracts);
    if (!native) throw new Error(`${definition.id} has no native coin`);
    this.nativeCoin = native.id;
    const tokens = new Map<string, CoinId>();
    for (const coin of definition.coins) {
      const contract = coin.contracts?.[network];
      if (contract === undefined) continue;
      const payload = bs58check.decodeUnsafe(contract);
      if (!payload || payload.length !== 21 || payload[0] !== TRON_ADDRESS_PREFIX) throw new Error(`${coin.id}: contract ${contract} is not a TRON address`);
      tokens.set(Buffer.from(payload.subarray(1)).toString('hex'), coin.id);
    }
    this.tokens = tokens;
  }

  async head(): Promise<ChainHead> {
    return this.options.providers.run('head', async (http) => {
      const now = parseBlockHeader(await postNode(http, '/wallet/getnowblock', {}), 'getnowblock');
      expectShape(now, 'getnowblock: empty');
      // A node without the solidity API (404) still gives the tip; it just declares no final height.
      const solidRaw = await postNode(http, '/walletsolidity/getnowblock', {}, true);
      const solid = solidRaw === undefined ? undefined : parseBlockHeader(solidRaw, 'walletsolidity/getnowblock');
      return { height: now.height, ...(solid ? { finalized: solid.height } : {}) };
    });
  }

  async blockHash(height: number): Promise<string | null> {
    return this.options.providers.run('blockHash', async (http) => {
      const header = parseBlockHeader(await postNode(http, '/wallet/getblockbynum', { num: height }), `getblockbynum ${height}`);
      if (!header) return null;
      expectShape(header.height === height, `getblockbynum ${height}: answered block ${header.height}`);
      return header.hash;
    });
  }

  async scan(from: number, to: number, watched: WatchedAddresses): Promise<ScannedBlock[]> {
    const fetched: FetchedBlock[] = [];
    // One height at a time: TronGrid's keyless rate limit is low, and a failover repeats one block only.
    for (let height = from; height <= to; height++) {
      fetched.push(await this.options.providers.run('scan', (http) => this.fetchBlock(http, height)));
    }
    const perBlock = fetched.map((f) => this.transfersOf(f));
    const candidates = [...new Set(perBlock.flat().map((t) => t.toAddress))];
    const wanted = candidates.length === 0 ? new Set<string>() : await watched.filter(candidates);
    return fetched.map(({ block }, i) => ({
      height: block.height,
      hash: block.hash,
      parentHash: block.parentHash,
      time: new Date(block.timestamp),
      transfers: perBlock[i]!.filter((t) => wanted.has(t.toAddress)),
    }));
  }

  /**
   * Block and transaction infos of `height` from one provider. A height the provider does not have
   * (its `{}`), or infos that do not match the block's transactions, fail that provider: a scanned
   * range must never come back with a block or its logs missing.
   */
  private async fetchBlock(http: ProviderHttp, height: number): Promise<FetchedBlock> {
    const what = `getblockbynum ${height}`;
    const block = parseBlock(await postNode(http, '/wallet/getblockbynum', { num: height }), what);
    expectShape(block, `${what}: the provider has no such block`);
    expectShape(block.height === height, `${what}: answered block ${block.height}`);
    const infos = parseTransactionInfos(
      await postNode(http, '/wallet/gettransactioninfobyblocknum', { num: height }),
      height,
      `gettransactioninfobyblocknum ${height}`,
    );
    const ids = new Set(block.transactions.map((tx) => tx.txID));
    expectShape(
      infos.length === block.transactions.length && infos.every((info) => ids.has(info.id)),
      `gettransactioninfobyblocknum ${height}: infos do not match the block's ${block.transactions.length} transactions`,
    );
    return { block, infos };
  }

  /** Every transfer of the network's coins in a block, before the watched-address filter. */
  private transfersOf({ block, infos }: FetchedBlock): ObservedTransfer[] {
    const base = {
      chain: this.definition.id,
      network: this.options.network.id,
      blockHeight: block.height,
      blockHash: block.hash,
      observedAt: new Date(block.timestamp),
    } as const;
    const succeeded = new Set(block.transactions.filter((tx) => tx.contractRet === 'SUCCESS').map((tx) => tx.txID));
    const transfers: ObservedTransfer[] = [];

    for (const tx of block.transactions) {
      if (!succeeded.has(tx.txID) || tx.type !== 'TransferContract') continue;
      const to = typeof tx.value['to_address'] === 'string' ? addressOfHex41(tx.value['to_address']) : undefined;
      const amount = amountOf(tx.value);
      if (to === undefined || amount === undefined || amount <= 0n) continue;
      const from = typeof tx.value['owner_address'] === 'string' ? addressOfHex41(tx.value['owner_address']) : undefined;
      transfers.push({
        ...base,
        coin: this.nativeCoin,
        txHash: tx.txID,
        outputIndex: 0,
        toAddress: to,
        ...(from ? { fromAddress: from } : {}),
        amountUnits: amount,
      });
    }

    // The log index runs over every log of the block in order, failed transactions' included, so
    // a transfer's outputIndex does not depend on which transactions the watcher kept.
    let logIndex = 0;
    for (const info of infos) {
      const ok = succeeded.has(info.id) && (info.receiptResult === undefined || info.receiptResult === 'SUCCESS') && info.result !== 'FAILED';
      for (const log of info.logs) {
        const index = logIndex++;
        if (!ok) continue;
        const coin = this.tokens.get(contractOfLog(log.address));
        if (coin === undefined || log.topics.length !== 3 || log.topics[0] !== TRC20_TRANSFER_TOPIC || !WORD.test(log.data)) continue;
        const to = addressOfTopic(log.topics[2]!);
        const amount = BigInt(`0x${log.data}`);
        if (to === undefined || amount === 0n) continue;
        const from = addressOfTopic(log.topics[1]!);
        transfers.push({ ...base, coin, txHash: info.id, outputIndex: index + 1, toAddress: to, ...(from ? { fromAddress: from } : {}), amountUnits: amount });
      }
    }
    return transfers;
  }
}
