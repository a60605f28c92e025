import { getBase58Encoder } from '@solana/kit';

/**
 * Transfers of a transaction as `getTransaction` answers it (`encoding: 'json'`): every System
 * transfer (lamports) and every SPL Token / Token-2022 `Transfer`/`TransferChecked`, outer and
 * inner, with the references the instruction carries (Solana Pay).
 */

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

/** An instruction as the json encoding gives it: account indexes and base58 data. */
export interface RpcInstruction {
  readonly programIdIndex: number;
  readonly accounts: readonly number[];
  readonly data: string;
}

/** A token balance of `meta.preTokenBalances` / `postTokenBalances`. */
export interface RpcTokenBalance {
  readonly accountIndex: number;
  readonly mint: string;
  readonly owner?: string;
}

/** `getTransaction`'s answer, the parts read here. */
export interface RpcTransaction {
  readonly slot: number;
  readonly blockTime?: number | null;
  readonly transaction: {
    readonly signatures: readonly string[];
    readonly message: { readonly accountKeys: readonly string[]; readonly instructions: readonly RpcInstruction[] };
  };
  readonly meta: {
    readonly err: unknown;
    readonly preTokenBalances?: readonly RpcTokenBalance[] | null;
    readonly postTokenBalances?: readonly RpcTokenBalance[] | null;
    readonly innerInstructions?: readonly { readonly index: number; readonly instructions: readonly RpcInstruction[] }[] | null;
    readonly loadedAddresses?: { readonly writable: readonly string[]; readonly readonly: readonly string[] } | null;
  } | null;
}

/** One transfer found in a transaction, before the watcher knows whether its recipient is watched. */
export interface ParsedTransfer {
  /** The coin id: the native coin, or the token coin whose mint on this network it moved. */
  readonly coin: string;
  /** `i * 256` for outer instruction `i`, `i * 256 + j + 1` for its inner instruction `j`. */
  readonly outputIndex: number;
  /** The recipient: the lamports' account, or the owner of the destination token account (never the token account). */
  readonly toAddress: string;
  /** The payer: the lamports' source, or the token transfer's authority. */
  readonly fromAddress: string;
  readonly amountUnits: bigint;
  /** The accounts after the instruction's standard ones (Solana Pay references), in order. */
  readonly references: readonly string[];
}

/** Whether `tx` has the shape read here (a malformed answer is the provider's failure). */
export function isRpcTransaction(tx: unknown): tx is RpcTransaction {
  const t = tx as RpcTransaction | null;
  return (
    typeof t === 'object' &&
    t !== null &&
    typeof t.slot === 'number' &&
    typeof t.transaction === 'object' &&
    t.transaction !== null &&
    Array.isArray(t.transaction.signatures) &&
    Array.isArray(t.transaction.message?.accountKeys) &&
    Array.isArray(t.transaction.message?.instructions) &&
    typeof t.meta === 'object'
  );
}

/**
 * The transfers of `tx` in `nativeCoin` and in the tokens of `mints` (mint → coin id on this
 * network). A failed transaction moves nothing; a token transfer of another mint, or into an
 * account whose owner the balances do not name, is not reported.
 */
export function parseTransfers(tx: RpcTransaction, nativeCoin: string, mints: ReadonlyMap<string, string>): ParsedTransfer[] {
  if (tx.meta === null || tx.meta.err !== null) return [];
  const keys = [...tx.transaction.message.accountKeys, ...(tx.meta.loadedAddresses?.writable ?? []), ...(tx.meta.loadedAddresses?.readonly ?? [])];
  const balances = new Map<number, RpcTokenBalance>();
  for (const b of [...(tx.meta.preTokenBalances ?? []), ...(tx.meta.postTokenBalances ?? [])]) balances.set(b.accountIndex, b);
  const transfers: ParsedTransfer[] = [];
  const read = (ix: RpcInstruction, outputIndex: number) => {
    const transfer = parseInstruction(ix, keys, balances, nativeCoin, mints);
    if (transfer) transfers.push({ ...transfer, outputIndex });
  };
  tx.transaction.message.instructions.forEach((ix, i) => read(ix, i * 256));
  for (const inner of tx.meta.innerInstructions ?? []) inner.instructions.forEach((ix, j) => read(ix, inner.index * 256 + j + 1));
  return transfers.sort((a, b) => a.outputIndex - b.outputIndex);
}

function parseInstruction(
  ix: RpcInstruction,
  keys: readonly string[],
  balances: ReadonlyMap<number, RpcTokenBalance>,
  nativeCoin: string,
  mints: ReadonlyMap<string, string>,
): Omit<ParsedTransfer, 'outputIndex'> | undefined {
  const program = keys[ix.programIdIndex];
  const accounts = ix.accounts.map((index) => keys[index]);
  if (accounts.some((a) => a === undefined)) return undefined;
  const data = decodeData(ix.data);
  if (data === undefined) return undefined;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (program === SYSTEM_PROGRAM && data.length >= 12) {
    const instruction = view.getUint32(0, true);
    const lamports = view.getBigUint64(4, true);
    // Transfer: [from, to]; TransferWithSeed: [from (derived), base, to].
    if (instruction === 2 && accounts.length >= 2) return native(accounts[0]!, accounts[1]!, lamports, accounts.slice(2) as string[]);
    if (instruction === 11 && accounts.length >= 3) return native(accounts[0]!, accounts[2]!, lamports, accounts.slice(3) as string[]);
    return undefined;
  }
  if ((program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM) && data.length >= 9) {
    const amount = view.getBigUint64(1, true);
    // Transfer (3): [source, destination, authority]; TransferChecked (12): [source, mint, destination, authority].
    const layout =
      data[0] === 3
        ? { destination: 1, authority: 2, standard: 3 }
        : data[0] === 12 && data.length >= 10
          ? { destination: 2, authority: 3, standard: 4 }
          : undefined;
    if (!layout || ix.accounts.length < layout.standard) return undefined;
    const balance = balances.get(ix.accounts[layout.destination]!);
    if (!balance?.owner) return undefined;
    if (data[0] === 12 && accounts[1] !== balance.mint) return undefined;
    const coin = mints.get(balance.mint);
    if (coin === undefined) return undefined;
    return {
      coin,
      toAddress: balance.owner,
      fromAddress: accounts[layout.authority]!,
      amountUnits: amount,
      references: accounts.slice(layout.standard) as string[],
    };
  }
  return undefined;

  function native(from: string, to: string, lamports: bigint, references: string[]) {
    return { coin: nativeCoin, toAddress: to, fromAddress: from, amountUnits: lamports, references };
  }
}

function decodeData(data: string): Uint8Array | undefined {
  if (typeof data !== 'string' || data.length > 2_000) return undefined;
  try {
    return new Uint8Array(getBase58Encoder().encode(data));
  } catch {
    return undefined;
  }
}
