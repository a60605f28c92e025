import { expectShape, isCount, type JsonRpcCall, type ProviderPool, type NetworkDefinition } from '@gw/chain-api';
import { getBase58Decoder } from '@solana/kit';
import { resultOf, SolRpc } from '../rpc.js';

/**
 * What the Solana treasury reads, through the same JSON-RPC (and provider pool) the watcher uses.
 * Accounts are read base64-encoded and decoded here (SPL token account and nonce account layouts),
 * so no provider's `jsonParsed` shape is relied on.
 */

export const SPL_TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const SYSTEM_PROGRAM_ID = '11111111111111111111111111111111';
/** An SPL token account's size: what its rent-exempt minimum is asked for. */
export const TOKEN_ACCOUNT_SIZE = 165;
/** A durable nonce account's size. */
export const NONCE_ACCOUNT_SIZE = 80;

const base58 = getBase58Decoder();

/** An account as `getAccountInfo`/`getMultipleAccounts` answer it (base64), decoded. */
export interface SolAccount {
  readonly lamports: bigint;
  readonly owner: string;
  readonly data: Uint8Array;
}

/** An SPL token account's fields the treasury reads. */
export interface TokenAccount {
  readonly address: string;
  readonly mint: string;
  readonly owner: string;
  readonly amount: bigint;
}

/** A durable nonce account's state (System program, version 1 "current", state 1 "initialized"). */
export interface NonceState {
  readonly authority: string;
  /** The nonce value: what a transaction using it carries as its `recentBlockhash`. */
  readonly nonce: string;
  readonly lamportsPerSignature: bigint;
}

export class SolReads {
  readonly rpc: SolRpc;

  constructor(providers: ProviderPool, network: Pick<NetworkDefinition, 'id'>) {
    this.rpc = new SolRpc(providers, network);
  }

  /** SOL balances (lamports) of `addresses`, in order. */
  async balances(addresses: readonly string[]): Promise<bigint[]> {
    if (addresses.length === 0) return [];
    const answers = await this.rpc.batch(
      'sol.treasury.balances',
      addresses.map((a): JsonRpcCall => ['getBalance', [a, { commitment: 'confirmed' }]]),
    );
    return answers.map((answer) => {
      const result = resultOf(answer, 'getBalance') as { value?: unknown };
      return exactU64(result?.value, 'getBalance value');
    });
  }

  /** Every token account `owner` holds of `mint` (SPL Token program), base64-decoded. */
  async tokenAccounts(owners: readonly string[], mint: string): Promise<TokenAccount[][]> {
    if (owners.length === 0) return [];
    const answers = await this.rpc.batch(
      'sol.treasury.token_accounts',
      owners.map((owner): JsonRpcCall => ['getTokenAccountsByOwner', [owner, { mint }, { encoding: 'base64', commitment: 'confirmed' }]]),
    );
    return answers.map((answer) => {
      const result = resultOf(answer, 'getTokenAccountsByOwner') as { value?: unknown };
      expectShape(Array.isArray(result?.value), 'getTokenAccountsByOwner value');
      return (result.value as { pubkey?: unknown; account?: unknown }[]).map((entry) => {
        expectShape(typeof entry.pubkey === 'string', 'token account pubkey');
        const account = decodeAccount(entry.account);
        expectShape(account !== null, 'token account');
        const token = decodeTokenAccount(entry.pubkey, account);
        expectShape(token !== null && token.mint === mint, 'SPL token account of the mint');
        return token;
      });
    });
  }

  /** The accounts at `addresses` (null where none exists), in order. */
  async accounts(addresses: readonly string[]): Promise<(SolAccount | null)[]> {
    if (addresses.length === 0) return [];
    const result = (await this.rpc.call('sol.treasury.accounts', 'getMultipleAccounts', [addresses, { encoding: 'base64', commitment: 'confirmed' }])) as {
      value?: unknown;
    };
    expectShape(Array.isArray(result?.value) && result.value.length === addresses.length, 'getMultipleAccounts value');
    return (result.value as unknown[]).map((account) => (account === null ? null : decodeAccount(account)));
  }

  /** Lamports an account of `size` bytes must hold to be rent-exempt. */
  async rentExempt(size: number): Promise<bigint> {
    const value = await this.rpc.call('sol.treasury.rent', 'getMinimumBalanceForRentExemption', [size]);
    return exactU64(value, 'getMinimumBalanceForRentExemption');
  }

  /** The fee of a compiled message (base64), lamports. */
  async feeForMessage(messageBase64: string): Promise<bigint> {
    const result = (await this.rpc.call('sol.treasury.fee', 'getFeeForMessage', [messageBase64, { commitment: 'confirmed' }])) as { value?: unknown };
    return exactU64(result?.value, 'getFeeForMessage value (null: the blockhash expired)');
  }

  async latestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: bigint }> {
    const result = (await this.rpc.call('sol.treasury.blockhash', 'getLatestBlockhash', [{ commitment: 'confirmed' }])) as {
      value?: { blockhash?: unknown; lastValidBlockHeight?: unknown };
    };
    expectShape(typeof result?.value?.blockhash === 'string' && typeof result.value.lastValidBlockHeight === 'number', 'getLatestBlockhash value');
    return { blockhash: result.value.blockhash, lastValidBlockHeight: BigInt(result.value.lastValidBlockHeight) };
  }

  async blockHeight(): Promise<bigint> {
    const value = await this.rpc.call('sol.treasury.block_height', 'getBlockHeight', [{ commitment: 'confirmed' }]);
    expectShape(typeof value === 'number', 'getBlockHeight');
    return BigInt(value);
  }

  /** `getSignatureStatuses` (searching the history), in order; null where the node knows none. */
  async signatureStatuses(
    signatures: readonly string[],
  ): Promise<({ slot: number; confirmations: number | null; err: unknown; status: string | null } | null)[]> {
    if (signatures.length === 0) return [];
    const result = (await this.rpc.call('sol.treasury.statuses', 'getSignatureStatuses', [signatures, { searchTransactionHistory: true }])) as {
      value?: unknown;
    };
    expectShape(Array.isArray(result?.value) && result.value.length === signatures.length, 'getSignatureStatuses value');
    return (result.value as unknown[]).map((entry) => {
      if (entry === null) return null;
      const e = entry as { slot?: unknown; confirmations?: unknown; err?: unknown; confirmationStatus?: unknown };
      expectShape(typeof e.slot === 'number', 'signature status slot');
      return {
        slot: e.slot,
        confirmations: typeof e.confirmations === 'number' ? e.confirmations : null,
        err: e.err ?? null,
        status: typeof e.confirmationStatus === 'string' ? e.confirmationStatus : null,
      };
    });
  }
}

function decodeAccount(value: unknown): SolAccount | null {
  const account = value as { lamports?: unknown; owner?: unknown; data?: unknown } | null;
  if (account === null || typeof account !== 'object') return null;
  expectShape(typeof account.owner === 'string', 'account owner');
  expectShape(Array.isArray(account.data) && typeof account.data[0] === 'string' && account.data[1] === 'base64', 'account data (base64)');
  return {
    lamports: exactU64(account.lamports, 'account lamports'),
    owner: account.owner,
    data: new Uint8Array(Buffer.from(account.data[0] as string, 'base64')),
  };
}

/** An SPL token account (mint, owner, amount: the first 72 bytes of its 165); null for anything else. */
export function decodeTokenAccount(address: string, account: SolAccount): TokenAccount | null {
  if (account.owner !== SPL_TOKEN_PROGRAM || account.data.length !== TOKEN_ACCOUNT_SIZE) return null;
  const view = new DataView(account.data.buffer, account.data.byteOffset, account.data.byteLength);
  return {
    address,
    mint: base58.decode(account.data.subarray(0, 32)),
    owner: base58.decode(account.data.subarray(32, 64)),
    amount: view.getBigUint64(64, true),
  };
}

/** A durable nonce account's state; null when the account is no initialized nonce account. */
export function decodeNonceAccount(account: SolAccount | null): NonceState | null {
  if (account === null || account.owner !== SYSTEM_PROGRAM_ID || account.data.length !== NONCE_ACCOUNT_SIZE) return null;
  const view = new DataView(account.data.buffer, account.data.byteOffset, account.data.byteLength);
  // u32 version (1: current), u32 state (1: initialized), authority, blockhash (the nonce), u64 lamports per signature.
  if (view.getUint32(0, true) !== 1 || view.getUint32(4, true) !== 1) return null;
  return {
    authority: base58.decode(account.data.subarray(8, 40)),
    nonce: base58.decode(account.data.subarray(40, 72)),
    lamportsPerSignature: view.getBigUint64(72, true),
  };
}

/**
 * A u64 the JSON-RPC answers as a JSON number (lamports, fees), as bigint. JSON numbers are exact
 * only up to 2^53 (about 9 million SOL): a larger one, or one that is no non-negative integer, is
 * refused as the provider's malformed answer rather than read as a rounded amount.
 */
function exactU64(value: unknown, what: string): bigint {
  expectShape(typeof value === 'bigint' ? value >= 0n : isCount(value), what);
  return BigInt(value as number | bigint);
}
