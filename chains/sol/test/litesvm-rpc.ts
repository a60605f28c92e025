/**
 * The local ledger of the Solana tests: one LiteSVM (the Solana runtime in process, with the System,
 * SPL Token, Token-2022 and Associated Token programs) behind an HTTP JSON-RPC 2.0 server (batch-aware)
 * that serves exactly the calls `chains/sol/src` makes. Nothing is replayed: every answer is computed
 * from transactions LiteSVM really executed.
 *
 * LiteSVM keeps accounts and transaction results but no history, blocks or commitments, so this
 * server keeps them: every transaction sent is executed in a slot of its own (the svm is warped to
 * it), and the server records its `getTransaction` answer (the message decoded from the wire bytes,
 * balances and token balances read before and after, LiteSVM's inner instructions and logs), the
 * accounts it names (for `getSignaturesForAddress`) and the slot's block (hash, parent, time).
 *
 * Commitments: `confirmed` is every executed slot; `finalized` is the slot the test finalizes
 * (`finalize()`). A transaction sent with `sendOnFork` is executed on a fork: the svm is snapshotted
 * first, the transaction is served at `confirmed` only, `finalize()` stops below it, and `dropFork()`
 * restores the snapshot and forgets it, its slot skipped: what a validator shows of a confirmed
 * transaction whose fork died.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getBase58Decoder, getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder, type Address, type Transaction } from '@solana/kit';
import { LiteSVM, FailedTransactionMetadata, type TransactionMetadata } from 'litesvm';

const TOKEN_PROGRAMS = new Set(['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb']);
const base58 = getBase58Decoder();
const SYSTEM_PROGRAM = '11111111111111111111111111111111';

interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number; uiAmountString: string };
}

interface Recorded {
  readonly signature: string;
  readonly slot: number;
  readonly blockTime: number;
  readonly accounts: readonly string[];
  readonly err: unknown;
  readonly onFork: boolean;
  readonly answer: Record<string, unknown>;
}

interface Block {
  readonly slot: number;
  readonly blockhash: string;
  readonly previousBlockhash: string;
  readonly parentSlot: number;
  readonly blockTime: number;
}

interface RpcRequest {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: unknown;
}

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Blockhashes a validator accepts: the last 150 slots' (MAX_PROCESSING_AGE). */
const RECENT_BLOCKHASHES = 150;
/** The System program's `AdvanceNonceAccount` instruction index (u32 little-endian). */
const ADVANCE_NONCE = 4;

export class LiteSvmLedger {
  /**
   * LiteSVM accepts only its latest blockhash; a validator accepts any of the last 150 slots' or a
   * durable nonce. So the svm's own check is off and this server checks the lifetime itself
   * (`checkLifetime`).
   */
  svm = new LiteSVM().withBlockhashCheck(false);
  /** The blockhashes of the last slots, newest last. */
  private recent: string[] = [];
  /** The newest executed slot (`confirmed`). */
  private slot = 0;
  private finalizedSlot = 0;
  private readonly transactions = new Map<string, Recorded>();
  /** Account → its transactions' signatures, oldest first. */
  private readonly history = new Map<string, string[]>();
  private readonly blocks = new Map<number, Block>();
  private lastBlock: Block;
  private fork: { snapshot: Uint8Array; lastBlock: Block; signatures: string[]; slots: number[] } | undefined;
  /** Every RPC method asked, for tests that check what the watcher reads. */
  readonly calls: string[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {
    this.lastBlock = { slot: 0, blockhash: blockhashOf(0, false), previousBlockhash: blockhashOf(0, false), parentSlot: 0, blockTime: now() };
    this.blocks.set(0, this.lastBlock);
  }

  /** Starts the server on a free port of 127.0.0.1. */
  static async start(): Promise<LiteSvmLedger> {
    let ledger: LiteSvmLedger | undefined;
    const server = createServer((req, res) => void ledger!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ledger = new LiteSvmLedger(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return ledger;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The blockhash a transaction built now must carry. */
  latestBlockhash(): string {
    return this.svm.latestBlockhash();
  }

  get confirmedSlot(): number {
    return this.slot;
  }

  /** Executes `tx` in a new slot and records it; returns its signature. A failed transaction is recorded with its error, as a validator does. */
  send(tx: Transaction): string {
    return this.execute(tx, false);
  }

  /** Executes `tx` on a fork (see the file's comment): served at `confirmed` until `dropFork()`. */
  sendOnFork(tx: Transaction): string {
    this.fork ??= { snapshot: this.svm.toBytes(), lastBlock: this.lastBlock, signatures: [], slots: [] };
    return this.execute(tx, true);
  }

  /** The fork dies: its transactions vanish, the state returns to the snapshot, its slots stay skipped. */
  dropFork(): void {
    if (!this.fork) return;
    for (const signature of this.fork.signatures) {
      const recorded = this.transactions.get(signature)!;
      this.transactions.delete(signature);
      for (const account of recorded.accounts)
        this.history.set(
          account,
          (this.history.get(account) ?? []).filter((s) => s !== signature),
        );
    }
    for (const slot of this.fork.slots) this.blocks.delete(slot);
    this.svm = LiteSVM.fromBytes(this.fork.snapshot).withBlockhashCheck(false);
    this.lastBlock = this.fork.lastBlock;
    this.fork = undefined;
  }

  /** Everything executed so far becomes finalized (up to the slot before a pending fork). */
  finalize(): void {
    this.finalizedSlot = this.fork ? this.fork.slots[0]! - 1 : this.slot;
  }

  private execute(tx: Transaction, onFork: boolean): string {
    const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    // Legacy and v0 messages only: what wallets send for Solana Pay (v1 has no `instructions` list).
    if (message.version === 1) throw new Error('the local ledger serves legacy and v0 transactions');
    const keys = message.staticAccounts as readonly string[];
    this.checkLifetime(message, keys);
    const signature = base58.decode(Object.values(tx.signatures)[0]!);
    const before = keys.map((key) => this.accountState(key));
    this.slot += 1;
    this.svm.warpToSlot(BigInt(this.slot));
    const outcome = this.svm.sendTransaction(tx);
    const failed = outcome instanceof FailedTransactionMetadata;
    const meta: TransactionMetadata = failed ? outcome.meta() : outcome;
    const after = keys.map((key) => this.accountState(key));
    const blockTime = now();
    const block: Block = {
      slot: this.slot,
      blockhash: blockhashOf(this.slot, onFork),
      previousBlockhash: this.lastBlock.blockhash,
      parentSlot: this.lastBlock.slot,
      blockTime,
    };
    this.blocks.set(this.slot, block);
    this.lastBlock = block;
    // The next transaction gets a blockhash of its own slot; this one stays valid for 150 slots.
    this.recent = [...this.recent, this.svm.latestBlockhash()].slice(-RECENT_BLOCKHASHES);
    this.svm.expireBlockhash();
    const err = failed ? { InstructionError: String(outcome.err()) } : null;
    const signers = message.header.numSignerAccounts;
    const answer = {
      slot: this.slot,
      blockTime,
      version: message.version === 'legacy' ? 'legacy' : message.version,
      transaction: {
        signatures: Object.values(tx.signatures).map((s) => (s ? base58.decode(s) : '1'.repeat(64))),
        message: {
          accountKeys: keys,
          header: {
            numRequiredSignatures: signers,
            numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
            numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
          },
          recentBlockhash: 'lifetimeToken' in message ? message.lifetimeToken : null,
          instructions: message.instructions.map((ix) => ({
            programIdIndex: ix.programAddressIndex,
            accounts: ix.accountIndices ?? [],
            data: base58.decode(ix.data ?? new Uint8Array()),
            stackHeight: null,
          })),
        },
      },
      meta: {
        err,
        status: err === null ? { Ok: null } : { Err: err },
        fee: 5000 * signers,
        preBalances: before.map((a) => a.lamports),
        postBalances: after.map((a) => a.lamports),
        preTokenBalances: tokenBalances(before, (i) => this.decimalsOf(before[i]!.token!.mint)),
        postTokenBalances: tokenBalances(after, (i) => this.decimalsOf(after[i]!.token!.mint)),
        innerInstructions: meta
          .innerInstructions()
          .map((list, index) => ({
            index,
            instructions: list.map((inner) => ({
              programIdIndex: inner.instruction().programIdIndex(),
              accounts: [...inner.instruction().accounts()],
              data: base58.decode(inner.instruction().data()),
              stackHeight: inner.stackHeight(),
            })),
          }))
          .filter((group) => group.instructions.length > 0),
        logMessages: meta.logs(),
        loadedAddresses: { writable: [], readonly: [] },
        computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
      },
    };
    this.transactions.set(signature, { signature, slot: this.slot, blockTime, accounts: keys, err, onFork, answer });
    for (const key of keys) this.history.set(key, [...(this.history.get(key) ?? []), signature]);
    if (onFork) {
      this.fork!.signatures.push(signature);
      this.fork!.slots.push(this.slot);
    }
    return signature;
  }

  /**
   * What a validator checks of a transaction's lifetime before it runs it: its blockhash is one of
   * the last 150 slots', or it is a durable nonce transaction (its first instruction the System
   * program's `AdvanceNonceAccount`, whose nonce account holds exactly that blockhash as its nonce).
   * Anything else is refused as a node refuses it in preflight, and not recorded.
   */
  private checkLifetime(message: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>['decode']>, keys: readonly string[]): void {
    const token = 'lifetimeToken' in message ? String(message.lifetimeToken) : '';
    if (token === this.svm.latestBlockhash() || this.recent.includes(token)) return;
    const first = 'instructions' in message ? message.instructions[0] : undefined;
    const data = first?.data ?? new Uint8Array();
    if (
      first &&
      keys[first.programAddressIndex] === SYSTEM_PROGRAM &&
      data.length >= 4 &&
      new DataView(data.buffer, data.byteOffset).getUint32(0, true) === ADVANCE_NONCE
    ) {
      const nonceAccount = keys[first.accountIndices?.[0] ?? -1];
      const account = nonceAccount === undefined ? undefined : this.svm.getAccount(nonceAccount as Address);
      if (account?.exists && account.programAddress === SYSTEM_PROGRAM && account.data.length === 80 && base58.decode(account.data.slice(40, 72)) === token)
        return;
    }
    throw new RpcFailure(-32002, 'Transaction simulation failed: Blockhash not found');
  }

  private accountState(key: string): { lamports: number; token?: { mint: string; owner: string; amount: bigint; programId: string } } {
    const account = this.svm.getAccount(key as Address);
    if (!account.exists) return { lamports: 0 };
    const lamports = Number(account.lamports);
    const data = account.data;
    if (!TOKEN_PROGRAMS.has(account.programAddress) || data.length < 165) return { lamports };
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    return {
      lamports,
      token: {
        mint: base58.decode(data.slice(0, 32)),
        owner: base58.decode(data.slice(32, 64)),
        amount: view.getBigUint64(64, true),
        programId: account.programAddress,
      },
    };
  }

  /** An account as `getAccountInfo` answers it with `encoding: "base64"`; null when there is none. */
  private accountInfo(key: string): unknown {
    const account = this.svm.getAccount(key as Address);
    if (!account.exists) return null;
    return {
      lamports: Number(account.lamports),
      owner: account.programAddress,
      data: [Buffer.from(account.data).toString('base64'), 'base64'],
      executable: account.executable,
      rentEpoch: 0,
      space: account.data.length,
    };
  }

  private decimalsOf(mint: string): number {
    const account = this.svm.getAccount(mint as Address);
    return account.exists ? account.data[44]! : 0;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    const answer = Array.isArray(body) ? body.map((request) => this.answer(request as RpcRequest)) : this.answer(body as RpcRequest);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  }

  private answer(request: RpcRequest): unknown {
    try {
      return { jsonrpc: '2.0', id: request.id, result: this.dispatch(String(request.method), Array.isArray(request.params) ? request.params : []) };
    } catch (error) {
      const code = error instanceof RpcFailure ? error.code : -32603;
      return { jsonrpc: '2.0', id: request.id, error: { code, message: (error as Error).message } };
    }
  }

  private dispatch(method: string, params: readonly unknown[]): unknown {
    this.calls.push(method);
    const config = (index: number) => (params[index] ?? {}) as { commitment?: string; limit?: number; before?: string; until?: string };
    const finalizedOnly = (index: number) => config(index).commitment === 'finalized';
    switch (method) {
      case 'getGenesisHash':
        return blockhashOf(-1, false);
      case 'getSlot':
      case 'getBlockHeight':
        return finalizedOnly(0) ? this.finalizedSlot : this.slot;
      case 'getLatestBlockhash':
        return { context: { slot: this.slot }, value: { blockhash: this.svm.latestBlockhash(), lastValidBlockHeight: this.slot + 150 } };
      case 'getBalance':
        return { context: { slot: this.slot }, value: Number(this.svm.getBalance(String(params[0]) as Address) ?? 0n) };
      case 'getSignaturesForAddress':
        return this.signaturesFor(String(params[0]), config(1));
      case 'getTransaction': {
        const recorded = this.transactions.get(String(params[0]));
        if (!recorded || (finalizedOnly(1) && recorded.slot > this.finalizedSlot)) return null;
        return recorded.answer;
      }
      case 'getBlock': {
        const slot = Number(params[0]);
        if (finalizedOnly(1) && slot > this.finalizedSlot) throw new RpcFailure(-32004, `Block not available for slot ${slot}`);
        const block = this.blocks.get(slot);
        if (!block) throw new RpcFailure(-32007, `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`);
        return {
          blockhash: block.blockhash,
          previousBlockhash: block.previousBlockhash,
          parentSlot: block.parentSlot,
          blockTime: block.blockTime,
          blockHeight: block.slot,
        };
      }
      case 'getAccountInfo':
        return { context: { slot: this.slot }, value: this.accountInfo(String(params[0])) };
      case 'getMultipleAccounts': {
        const list = params[0];
        if (!Array.isArray(list)) throw new RpcFailure(-32602, 'getMultipleAccounts takes a list of addresses');
        return { context: { slot: this.slot }, value: list.map((a) => this.accountInfo(String(a))) };
      }
      case 'getTokenAccountsByOwner': {
        const owner = String(params[0]);
        const filter = (params[1] ?? {}) as { mint?: string; programId?: string };
        if (filter.mint === undefined && filter.programId === undefined)
          throw new RpcFailure(-32602, 'getTokenAccountsByOwner needs a mint or programId filter');
        // LiteSVM keeps no index by owner: every account a transaction named is looked at (token accounts are only made by transactions).
        const value = [...this.history.keys()]
          .map((key) => ({ key, state: this.accountState(key) }))
          .filter(({ state }) => state.token?.owner === owner && (filter.mint === undefined || state.token.mint === filter.mint))
          .filter(({ state }) => filter.programId === undefined || state.token!.programId === filter.programId)
          .map(({ key }) => ({ pubkey: key, account: this.accountInfo(key) }));
        return { context: { slot: this.slot }, value };
      }
      case 'getMinimumBalanceForRentExemption':
        return Number(this.svm.minimumBalanceForRentExemption(BigInt(Number(params[0]))));
      case 'getFeeForMessage': {
        const message = getCompiledTransactionMessageDecoder().decode(getBase64Encoder().encode(String(params[0])));
        // LiteSVM charges 5000 lamports per signature (no priority fee without a compute-budget price).
        return { context: { slot: this.slot }, value: 5000 * message.header.numSignerAccounts };
      }
      case 'getSignatureStatuses': {
        const list = params[0];
        if (!Array.isArray(list)) throw new RpcFailure(-32602, 'getSignatureStatuses takes a list of signatures');
        const value = list.map((signature) => {
          const recorded = this.transactions.get(String(signature));
          if (!recorded) return null;
          const finalized = recorded.slot <= this.finalizedSlot;
          return {
            slot: recorded.slot,
            confirmations: finalized ? null : this.slot - recorded.slot,
            err: recorded.err,
            status: recorded.err === null ? { Ok: null } : { Err: recorded.err },
            confirmationStatus: finalized ? 'finalized' : 'confirmed',
          };
        });
        return { context: { slot: this.slot }, value };
      }
      case 'sendTransaction': {
        const tx = getTransactionDecoder().decode(getBase64Encoder().encode(String(params[0])));
        const signature = this.send(tx);
        const recorded = this.transactions.get(signature)!;
        if (recorded.err !== null) throw new RpcFailure(-32002, `Transaction simulation failed: ${JSON.stringify(recorded.err)}`);
        return signature;
      }
      default:
        throw new RpcFailure(-32601, `Method not found: ${method} (the local ledger serves only what chains/sol calls)`);
    }
  }

  private signaturesFor(account: string, options: { commitment?: string; limit?: number; before?: string; until?: string }): unknown[] {
    const finalizedOnly = options.commitment === 'finalized';
    let list = [...(this.history.get(account) ?? [])].reverse().map((signature) => this.transactions.get(signature)!);
    if (finalizedOnly) list = list.filter((r) => r.slot <= this.finalizedSlot);
    if (options.before !== undefined) {
      const at = list.findIndex((r) => r.signature === options.before);
      list = at === -1 ? [] : list.slice(at + 1);
    }
    if (options.until !== undefined) {
      const at = list.findIndex((r) => r.signature === options.until);
      if (at !== -1) list = list.slice(0, at);
    }
    return list.slice(0, Math.min(options.limit ?? 1000, 1000)).map((r) => ({
      signature: r.signature,
      slot: r.slot,
      err: r.err,
      memo: null,
      blockTime: r.blockTime,
      confirmationStatus: r.slot <= this.finalizedSlot ? 'finalized' : 'confirmed',
    }));
  }
}

function tokenBalances(
  states: readonly { token?: { mint: string; owner: string; amount: bigint; programId: string } }[],
  decimals: (index: number) => number,
): TokenBalance[] {
  const balances: TokenBalance[] = [];
  states.forEach((state, accountIndex) => {
    if (!state.token) return;
    const d = decimals(accountIndex);
    const text = formatUnits(state.token.amount, d);
    balances.push({
      accountIndex,
      mint: state.token.mint,
      owner: state.token.owner,
      programId: state.token.programId,
      uiTokenAmount: { amount: state.token.amount.toString(), decimals: d, uiAmount: Number(text), uiAmountString: text },
    });
  });
  return balances;
}

function formatUnits(amount: bigint, decimals: number): string {
  const digits = amount.toString().padStart(decimals + 1, '0');
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return fraction ? `${digits.slice(0, digits.length - decimals)}.${fraction}` : digits.slice(0, digits.length - decimals);
}

/** A slot's block hash: 32 bytes from the slot (and the fork), so a fork's block differs from the canonical one. */
function blockhashOf(slot: number, onFork: boolean): string {
  return base58.decode(
    createHash('sha256')
      .update(`litesvm-rpc ${onFork ? 'fork' : 'main'} slot ${slot}`)
      .digest(),
  );
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}
