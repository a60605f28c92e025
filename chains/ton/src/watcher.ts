import {
  expectShape,
  type ChainDefinition,
  type ChainHead,
  type ChainWatcher,
  type NetworkDefinition,
  type ObservedTransfer,
  type ProviderHttp,
  type ProviderPool,
  type ScannedBlock,
  type WatchedAddresses,
  type WatcherOptions,
} from '@gw/chain-api';
import { Address, beginCell, Cell } from '@ton/core';
import { formatTonAddress } from './derive.js';
import { decodeIncomingBody } from './message-body.js';
import { parseBlockList, parseMasterchainInfo, parseRunGetMethod, parseTransactionList, type ToncenterBlock, type ToncenterTransaction } from './toncenter.js';

/** The masterchain's only shard, as toncenter's `/blocks` filter spells it. */
const MASTERCHAIN_SHARD = '8000000000000000';
/** Transactions per `transactionsByMasterchainBlock` page (toncenter allows more; 256 keeps pages small). */
const PAGE_SIZE = 256;

/** A transfer found in a block, before the watched-address filter. */
interface Candidate {
  readonly kind: 'ton' | 'jetton';
  readonly tx: ToncenterTransaction;
  readonly to: string;
  readonly from: string | undefined;
  readonly amount: bigint;
  readonly memo: string | undefined;
  /** Raw address of the jetton wallet that sent the notification (jetton only). */
  readonly jettonWallet?: Address;
}

/**
 * Reads one TON network through toncenter API v3. The scanning unit is the masterchain block
 * (`seqno`): TON masterchain blocks are final once produced, so `finalized` equals the head, and
 * `transactionsByMasterchainBlock` gives every transaction (all shards) that block commits.
 *
 * What counts as received:
 * - TON: an internal incoming message (not a bounce) whose value stayed on the account. A
 *   transaction is skipped when its value was sent back by a bounce phase (bounceable message to a
 *   failing or undeployed contract). A non-bounceable payment to a not yet deployed wallet is
 *   `aborted` (no code to run) yet credited, and every fresh pool address is such a wallet, so
 *   `aborted` alone does not make a TON payment fail.
 * - Jettons: the owner's incoming TEP-74 `transfer_notification`, counted only when it comes from
 *   the jetton wallet that the configured jetton master (definition.ts, per network) computes for
 *   that owner (`get_wallet_address`); a notification exists only after the jetton wallet accepted
 *   the transfer. Impostor jetton masters and wallets are ignored.
 *
 * `txHash` is toncenter's base64 transaction hash; `outputIndex` is 0; `memo` is the text comment
 * (of the message for TON, of the forward payload for jettons).
 */
export class TonWatcher implements ChainWatcher {
  /** Two HTTP calls per block at least; ten blocks keep one scan well within toncenter's rate limits. */
  readonly maxBlocksPerScan = 10;
  private readonly network: NetworkDefinition;
  private readonly providers: ProviderPool;
  private readonly jettonMaster: Address | undefined;
  /** owner raw → its jetton wallet under `jettonMaster`; the mapping never changes, so caching it is safe. */
  private readonly jettonWallets = new Map<string, Address>();

  constructor(
    private readonly definition: ChainDefinition,
    options: WatcherOptions,
  ) {
    this.network = options.network;
    this.providers = options.providers;
    const master = definition.coins.find((c) => c.id === 'usdt_ton')?.contracts?.[options.network.id];
    this.jettonMaster = master === undefined ? undefined : Address.parse(master);
  }

  async head(): Promise<ChainHead> {
    const last = await this.providers.run('ton.head', async (http) => parseMasterchainInfo(await http.json('GET', '/api/v3/masterchainInfo')));
    return { height: last.seqno, finalized: last.seqno };
  }

  async blockHash(height: number): Promise<string | null> {
    return (await this.providers.run('ton.blockHash', (http) => this.block(http, height)))?.rootHash ?? null;
  }

  async scan(from: number, to: number, watched: WatchedAddresses): Promise<ScannedBlock[]> {
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 1 || to < from) throw new RangeError(`bad TON scan range ${from}..${to}`);
    if (to - from + 1 > this.maxBlocksPerScan) throw new RangeError(`TON scan of ${to - from + 1} blocks exceeds ${this.maxBlocksPerScan}`);

    const scanned: { block: ToncenterBlock; parentHash: string; candidates: Candidate[] }[] = [];
    let parent = await this.requireBlock(from - 1);
    for (let seqno = from; seqno <= to; seqno++) {
      const block = await this.requireBlock(seqno);
      const transactions = await this.transactions(seqno);
      scanned.push({ block, parentHash: parent.rootHash, candidates: transactions.flatMap((tx) => this.candidate(tx) ?? []) });
      parent = block;
    }

    const addresses = [...new Set(scanned.flatMap((s) => s.candidates.map((c) => c.to)))];
    const watchedSet = addresses.length === 0 ? new Set<string>() : await watched.filter(addresses);

    const blocks: ScannedBlock[] = [];
    for (const { block, parentHash, candidates } of scanned) {
      const time = new Date(block.genUtime * 1000);
      const transfers: ObservedTransfer[] = [];
      for (const c of candidates) {
        if (!watchedSet.has(c.to)) continue;
        if (c.kind === 'jetton' && !(await this.isGenuineJettonWallet(c))) continue;
        transfers.push({
          chain: this.definition.id,
          network: this.network.id,
          coin: c.kind === 'ton' ? 'ton' : 'usdt_ton',
          txHash: c.tx.hash,
          outputIndex: 0,
          toAddress: c.to,
          ...(c.from === undefined ? {} : { fromAddress: c.from }),
          amountUnits: c.amount,
          blockHeight: block.seqno,
          blockHash: block.rootHash,
          observedAt: time,
          ...(c.memo === undefined ? {} : { memo: c.memo }),
        });
      }
      blocks.push({ height: block.seqno, hash: block.rootHash, parentHash, time, transfers });
    }
    return blocks;
  }

  private friendly(address: Address): string {
    return formatTonAddress(address, this.network.kind);
  }

  private async block(http: ProviderHttp, seqno: number): Promise<ToncenterBlock | null> {
    const query = new URLSearchParams({ workchain: '-1', shard: MASTERCHAIN_SHARD, seqno: String(seqno), limit: '1' });
    return parseBlockList(await http.json('GET', `/api/v3/blocks?${query}`), seqno);
  }

  /** A block the scan needs: a provider that does not have it yet is treated as failing (the next one may). */
  private requireBlock(seqno: number): Promise<ToncenterBlock> {
    return this.providers.run('ton.block', async (http) => {
      const block = await this.block(http, seqno);
      expectShape(block !== null, `masterchain block ${seqno} not found`);
      return block;
    });
  }

  /** All transactions of masterchain block `seqno`, every page from one provider so the pages agree. */
  private transactions(seqno: number): Promise<ToncenterTransaction[]> {
    return this.providers.run('ton.transactions', async (http) => {
      const all: ToncenterTransaction[] = [];
      for (let offset = 0; ; offset += PAGE_SIZE) {
        const query = new URLSearchParams({ seqno: String(seqno), limit: String(PAGE_SIZE), offset: String(offset), sort: 'asc' });
        const page = parseTransactionList(await http.json('GET', `/api/v3/transactionsByMasterchainBlock?${query}`));
        all.push(...page);
        if (page.length < PAGE_SIZE) return all;
      }
    });
  }

  /** The transfer `tx` carries to its account, if it is a payment the gateway could be waiting for. */
  private candidate(tx: ToncenterTransaction): Candidate | undefined {
    const msg = tx.inMsg;
    if (tx.type !== 'ord' || !msg || msg.source === null || msg.destination === null || msg.bounced) return undefined;
    const to = Address.parseRaw(msg.destination);
    const from = Address.parseRaw(msg.source);
    const body = decodeIncomingBody(msg.body);
    if (body.kind === 'jetton') {
      if (this.jettonMaster === undefined || body.amount <= 0n) return undefined;
      return {
        kind: 'jetton',
        tx,
        to: this.friendly(to),
        from: body.sender === null ? undefined : this.friendly(body.sender),
        amount: body.amount,
        memo: body.comment,
        jettonWallet: from,
      };
    }
    if (msg.value <= 0n || tx.bounce === 'ok') return undefined;
    return { kind: 'ton', tx, to: this.friendly(to), from: this.friendly(from), amount: msg.value, memo: body.kind === 'comment' ? body.text : undefined };
  }

  /** Whether the notification's sender is the configured master's jetton wallet of the receiving owner. */
  private async isGenuineJettonWallet(c: Candidate): Promise<boolean> {
    const master = this.jettonMaster;
    if (!master || !c.jettonWallet) return false;
    const owner = Address.parse(c.to);
    const key = owner.toRawString();
    let wallet = this.jettonWallets.get(key);
    if (!wallet) {
      const ownerSlice = beginCell().storeAddress(owner).endCell().toBoc().toString('base64');
      wallet = await this.providers.run('ton.jettonWallet', async (http) => {
        const stack = parseRunGetMethod(
          await http.json('POST', '/api/v3/runGetMethod', {
            body: { address: master.toRawString(), method: 'get_wallet_address', stack: [{ type: 'slice', value: ownerSlice }] },
          }),
        );
        const top = stack[0];
        expectShape(
          top !== undefined && (top.type === 'slice' || top.type === 'cell') && typeof top.value === 'string',
          'get_wallet_address: no address on the stack',
        );
        return Cell.fromBase64(top.value as string)
          .beginParse()
          .loadAddress();
      });
      this.jettonWallets.set(key, wallet);
    }
    return wallet.equals(c.jettonWallet);
  }
}

/** The TON adapter's `createWatcher`. */
export function createTonWatcher(definition: ChainDefinition, options: WatcherOptions): ChainWatcher {
  return new TonWatcher(definition, options);
}
