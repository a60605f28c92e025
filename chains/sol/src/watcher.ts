import {
  expectShape,
  ProviderError,
  type ChainDefinition,
  type ChainHead,
  type ChainWatcher,
  type JsonRpcCall,
  type ObservedTransfer,
  type ScannedBlock,
  type TransactionInBlock,
  type WatchedAddresses,
  type WatcherOptions,
} from '@gw/chain-api';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { Address } from '@solana/kit';
import { NO_BLOCK_ERRORS, resultOf, SolRpc } from './rpc.js';
import { isRpcTransaction, parseTransfers, type ParsedTransfer, type RpcTransaction } from './transfers.js';

type Commitment = 'confirmed' | 'finalized';

/** One entry of `getSignaturesForAddress`. */
interface SignatureInfo {
  readonly signature: string;
  readonly slot: number;
  readonly err: unknown;
  readonly confirmationStatus?: string | null;
  readonly blockTime?: number | null;
}

/** What `getBlock` answers with `transactionDetails: 'none'`. */
interface RpcBlock {
  readonly blockhash: string;
  readonly previousBlockhash: string;
  readonly blockTime: number | null;
}

/** The most signatures `getSignaturesForAddress` returns at once. */
const SIGNATURES_PAGE = 1000;

/**
 * The Solana watcher. It reads account histories, not whole blocks (a block holds thousands of
 * transactions): for each merchant address, its associated token account of every token coin and
 * each reference of a waiting invoice, `getSignaturesForAddress`, then `getTransaction` once per
 * signature and `getBlock` once per touched slot. So it covers only the slots holding a transfer
 * (`coverage: 'touched'`), and its head is the `finalized` slot: what the scanner reads never
 * reorganises.
 *
 * Commitments: `confirmed` (a supermajority voted for the block) is what `mempool` reports, with no
 * block (detection); `finalized` is what `scan` reports, in its slot (the confirmation). A confirmed
 * transaction on a fork that dies never reaches `finalized`; the watchers drop it after the
 * definition's `pendingTimeoutSeconds`.
 */
export class SolWatcher implements ChainWatcher {
  readonly coverage = 'touched' as const;
  /** Slots per scan: the reads are per account, not per slot, so a wide range costs no more (about 4.4 h). */
  readonly maxBlocksPerScan = 40_000;
  private readonly rpc: SolRpc;
  private readonly nativeCoin: string;
  /** Token mint on this network → coin id. */
  private readonly mints: ReadonlyMap<string, string>;

  constructor(
    private readonly definition: ChainDefinition,
    private readonly options: WatcherOptions,
  ) {
    this.rpc = new SolRpc(options.providers, options.network);
    const native = definition.coins.find((c) => !c.contracts);
    if (!native) throw new Error(`chain ${definition.id} has no native coin`);
    this.nativeCoin = native.id;
    const network = options.network.id;
    this.mints = new Map(definition.coins.filter((c) => c.contracts?.[network]).map((c) => [c.contracts![network]!, c.id]));
  }

  async head(): Promise<ChainHead> {
    const slot = await this.rpc.call('sol.head', 'getSlot', [{ commitment: 'finalized' }]);
    expectShape(typeof slot === 'number' && Number.isSafeInteger(slot), 'getSlot');
    return { height: slot as number, finalized: slot as number };
  }

  async blockHash(height: number): Promise<string | null> {
    const [answer] = await this.rpc.batch('sol.block_hash', [blockCall(height)]);
    if (answer?.error?.code !== undefined && NO_BLOCK_ERRORS.has(answer.error.code)) return null;
    const block = resultOf(answer, 'getBlock') as RpcBlock | null;
    if (block === null) return null;
    expectShape(typeof block?.blockhash === 'string', 'getBlock');
    return block.blockhash;
  }

  async scan(from: number, to: number, watched: WatchedAddresses): Promise<ScannedBlock[]> {
    if (to < from) return [];
    const accounts = await this.accounts(watched);
    const signatures = await this.signatures(
      accounts,
      'finalized',
      (info) => info.slot >= from,
      (info) => info.slot <= to,
    );
    const transactions = await this.transactions(
      signatures.map((s) => s.signature),
      'finalized',
    );
    const transfers = await this.watchedTransfers(transactions, watched);
    const slots = [...new Set(transfers.map(({ tx }) => tx.slot))].sort((a, b) => a - b);
    if (slots.length === 0) return [];
    const answers = await this.rpc.batch('sol.blocks', slots.map(blockCall));
    return slots.map((slot, i) => {
      const block = resultOf(answers[i], 'getBlock') as RpcBlock | null;
      if (block === null) throw new ProviderError('malformed', '', `slot ${slot} has a finalized transaction but no block`);
      expectShape(typeof block.blockhash === 'string' && typeof block.previousBlockhash === 'string', `getBlock ${slot}`);
      const time = new Date((block.blockTime ?? 0) * 1000);
      const hash = block.blockhash;
      return {
        height: slot,
        hash,
        parentHash: block.previousBlockhash,
        time,
        transfers: transfers.filter(({ tx }) => tx.slot === slot).map(({ tx, transfer }) => this.observed(tx, transfer, slot, hash, time)),
      };
    });
  }

  async mempool(watched: WatchedAddresses): Promise<ObservedTransfer[]> {
    const accounts = await this.accounts(watched);
    // Newest first: past the first finalized signature, the rest are finalized too.
    const signatures = await this.signatures(
      accounts,
      'confirmed',
      (info) => info.confirmationStatus !== 'finalized',
      (info) => info.confirmationStatus === 'confirmed',
    );
    const transactions = await this.transactions(
      signatures.map((s) => s.signature),
      'confirmed',
    );
    const now = new Date();
    return (await this.watchedTransfers(transactions, watched)).map(({ tx, transfer }) =>
      this.observed(tx, transfer, null, null, typeof tx.blockTime === 'number' ? new Date(tx.blockTime * 1000) : now),
    );
  }

  async transactionIn(txHash: string, _blockHash: string, watched: WatchedAddresses): Promise<TransactionInBlock | null> {
    const [tx] = await this.transactions([txHash], 'finalized');
    if (tx === undefined) return null;
    const [answer] = await this.rpc.batch('sol.block', [blockCall(tx.slot)]);
    const block = resultOf(answer, 'getBlock') as RpcBlock | null;
    expectShape(typeof block?.blockhash === 'string', 'getBlock');
    const time = new Date((block!.blockTime ?? tx.blockTime ?? 0) * 1000);
    const transfers = (await this.watchedTransfers([tx], watched)).map(({ transfer }) => this.observed(tx, transfer, tx.slot, block!.blockhash, time));
    return { height: tx.slot, blockHash: block!.blockhash, transfers };
  }

  /** The accounts whose histories hold payments: merchant addresses, their token accounts, references. */
  private async accounts(watched: WatchedAddresses): Promise<string[]> {
    const owners = await watched.active();
    const references = (await watched.references?.()) ?? [];
    const tokenAccounts = await Promise.all(
      owners.flatMap((owner) =>
        [...this.mints.keys()].map(
          async (mint) => (await findAssociatedTokenPda({ owner: owner as Address, mint: mint as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0] as string,
        ),
      ),
    );
    return [...new Set([...owners, ...tokenAccounts, ...references])];
  }

  /**
   * The successful signatures of every account at `commitment`, each once: paged back (newest
   * first) while `more` holds for the last one read, keeping those `keep` accepts.
   */
  private async signatures(
    accounts: readonly string[],
    commitment: Commitment,
    more: (info: SignatureInfo) => boolean,
    keep: (info: SignatureInfo) => boolean,
  ): Promise<SignatureInfo[]> {
    const found = new Map<string, SignatureInfo>();
    let pending = accounts.map((account) => ({ account, before: undefined as string | undefined }));
    while (pending.length > 0) {
      const calls: JsonRpcCall[] = pending.map(({ account, before }) => [
        'getSignaturesForAddress',
        [account, { commitment, limit: SIGNATURES_PAGE, ...(before ? { before } : {}) }],
      ]);
      const answers = await this.rpc.batch('sol.signatures', calls);
      const next: typeof pending = [];
      pending.forEach(({ account }, i) => {
        const page = resultOf(answers[i], 'getSignaturesForAddress') as SignatureInfo[];
        expectShape(Array.isArray(page) && page.every((s) => typeof s?.signature === 'string' && typeof s.slot === 'number'), 'getSignaturesForAddress');
        let last: SignatureInfo | undefined;
        for (const info of page) {
          if (!more(info)) {
            last = undefined;
            break;
          }
          last = info;
          if (info.err === null && keep(info)) found.set(info.signature, info);
        }
        if (last !== undefined && page.length === SIGNATURES_PAGE) next.push({ account, before: last.signature });
      });
      pending = next;
    }
    return [...found.values()];
  }

  /** `getTransaction` of each signature at `commitment`; those the node does not have (yet) are left out. */
  private async transactions(signatures: readonly string[], commitment: Commitment): Promise<RpcTransaction[]> {
    if (signatures.length === 0) return [];
    const answers = await this.rpc.batch(
      'sol.transactions',
      signatures.map((signature) => ['getTransaction', [signature, { commitment, encoding: 'json', maxSupportedTransactionVersion: 0 }]] as const),
    );
    const transactions: RpcTransaction[] = [];
    answers.forEach((answer, i) => {
      const tx = resultOf(answer, 'getTransaction');
      if (tx === null) return;
      expectShape(isRpcTransaction(tx) && tx.transaction.signatures[0] === signatures[i], `getTransaction ${signatures[i]}`);
      transactions.push(tx);
    });
    return transactions;
  }

  /** The transfers of `transactions` whose recipient (owner) is a watched address. */
  private async watchedTransfers(
    transactions: readonly RpcTransaction[],
    watched: WatchedAddresses,
  ): Promise<{ tx: RpcTransaction; transfer: ParsedTransfer }[]> {
    const all = transactions.flatMap((tx) => parseTransfers(tx, this.nativeCoin, this.mints).map((transfer) => ({ tx, transfer })));
    if (all.length === 0) return [];
    const mine = await watched.filter([...new Set(all.map(({ transfer }) => transfer.toAddress))]);
    return all.filter(({ transfer }) => mine.has(transfer.toAddress));
  }

  private observed(tx: RpcTransaction, transfer: ParsedTransfer, blockHeight: number | null, blockHash: string | null, observedAt: Date): ObservedTransfer {
    return {
      chain: this.definition.id,
      network: this.options.network.id,
      coin: transfer.coin,
      txHash: tx.transaction.signatures[0]!,
      outputIndex: transfer.outputIndex,
      toAddress: transfer.toAddress,
      fromAddress: transfer.fromAddress,
      amountUnits: transfer.amountUnits,
      blockHeight,
      blockHash,
      observedAt,
      ...(transfer.references.length > 0 ? { references: transfer.references } : {}),
    };
  }
}

/** `getBlock` of `slot` without its transactions: hash, parent hash, time. */
function blockCall(slot: number): JsonRpcCall {
  return ['getBlock', [slot, { commitment: 'finalized', encoding: 'json', transactionDetails: 'none', rewards: false, maxSupportedTransactionVersion: 0 }]];
}
