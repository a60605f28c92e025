import { expectShape, type ProviderHttp, type ProviderPool } from '@gw/chain-api';
import { Address, beginCell, Cell } from '@ton/core';
import { parseRunGetMethod, parseTransactionList } from '../toncenter.js';
import { parseAccountStates, type TonAccountState } from './toncenter-accounts.js';

/** Addresses per `accountStates` request (toncenter accepts up to 1000). */
const ACCOUNT_STATES_PAGE = 100;

/**
 * The chain state the TON treasury reads through the watcher's toncenter pool: account balances
 * and status in batches, wallet seqnos (`seqno` get-method), and jetton wallets (the master's
 * `get_wallet_address`, the wallet's `get_wallet_data`).
 */
export class TonChainReads {
  /** owner raw → its jetton wallet; the mapping never changes. */
  private readonly jettonWallets = new Map<string, Address>();

  constructor(private readonly providers: ProviderPool) {}

  /** State of each address, keyed by raw form; an account toncenter does not list is `nonexist` with 0. */
  async accounts(addresses: readonly Address[]): Promise<Map<string, TonAccountState>> {
    const states = new Map<string, TonAccountState>();
    for (const a of addresses) states.set(a.toRawString(), { address: a, balance: 0n, status: 'nonexist' });
    for (let i = 0; i < addresses.length; i += ACCOUNT_STATES_PAGE) {
      const page = addresses.slice(i, i + ACCOUNT_STATES_PAGE);
      const query = new URLSearchParams(page.map((a): [string, string] => ['address', a.toRawString()]));
      query.set('include_boc', 'false');
      const found = await this.providers.run('ton.accountStates', async (http) => parseAccountStates(await http.json('GET', `/api/v3/accountStates?${query}`)));
      for (const state of found) if (states.has(state.address.toRawString())) states.set(state.address.toRawString(), state);
    }
    return states;
  }

  /** The bodies of the external messages `wallet` processed lately (newest first, up to `limit` transactions looked at). */
  async recentExternalBodies(wallet: Address, limit: number): Promise<Cell[]> {
    const query = new URLSearchParams({ account: wallet.toRawString(), limit: String(limit), offset: '0', sort: 'desc' });
    const transactions = await this.providers.run('ton.accountTransactions', async (http) =>
      parseTransactionList(await http.json('GET', `/api/v3/transactions?${query}`)),
    );
    return transactions.flatMap((tx) => (tx.inMsg && tx.inMsg.source === null && tx.inMsg.body !== undefined ? [Cell.fromBase64(tx.inMsg.body)] : []));
  }

  /** The wallet's seqno (call only for an active account: an undeployed wallet's is 0). */
  async seqno(wallet: Address): Promise<number> {
    const stack = await this.get('ton.seqno', wallet, 'seqno', []);
    const n = stackInt(stack[0], 'seqno');
    expectShape(n >= 0n && n < 2n ** 32n, 'seqno out of range');
    return Number(n);
  }

  /** A deployed V5R1 wallet's ed25519 public key (`get_public_key`), 32 bytes. */
  async publicKey(wallet: Address): Promise<Buffer> {
    const stack = await this.get('ton.publicKey', wallet, 'get_public_key', []);
    const n = stackInt(stack[0], 'get_public_key');
    expectShape(n >= 0n && n < 2n ** 256n, 'get_public_key out of range');
    return Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
  }

  /** The jetton wallet `master` computes for `owner`. */
  async jettonWallet(master: Address, owner: Address): Promise<Address> {
    const key = `${master.toRawString()}/${owner.toRawString()}`;
    const cached = this.jettonWallets.get(key);
    if (cached) return cached;
    const ownerSlice = beginCell().storeAddress(owner).endCell().toBoc().toString('base64');
    const stack = await this.get('ton.jettonWallet', master, 'get_wallet_address', [{ type: 'slice', value: ownerSlice }]);
    const top = stack[0];
    expectShape(
      top !== undefined && (top.type === 'slice' || top.type === 'cell') && typeof top.value === 'string',
      'get_wallet_address: no address on the stack',
    );
    const wallet = Cell.fromBase64(top.value as string)
      .beginParse()
      .loadAddress();
    this.jettonWallets.set(key, wallet);
    return wallet;
  }

  /** A deployed jetton wallet's balance (`get_wallet_data`: balance, owner, master, code). */
  async jettonBalance(jettonWallet: Address): Promise<bigint> {
    const stack = await this.get('ton.jettonBalance', jettonWallet, 'get_wallet_data', []);
    const balance = stackInt(stack[0], 'get_wallet_data balance');
    expectShape(balance >= 0n, 'get_wallet_data: negative balance');
    return balance;
  }

  private get(operation: string, address: Address, method: string, stack: unknown[]) {
    return this.providers.run(operation, async (http: ProviderHttp) =>
      parseRunGetMethod(await http.json('POST', '/api/v3/runGetMethod', { body: { address: address.toRawString(), method, stack } })),
    );
  }
}

/** A `num` stack entry: toncenter gives hex (`0x…`, `-0x…`). */
function stackInt(entry: { type: string; value: unknown } | undefined, what: string): bigint {
  expectShape(
    entry !== undefined && entry.type === 'num' && typeof entry.value === 'string' && /^-?(0x[0-9a-fA-F]+|\d+)$/.test(entry.value),
    `${what}: no number on the stack`,
  );
  const text = entry.value as string;
  return text.startsWith('-') ? -BigInt(text.slice(1)) : BigInt(text);
}
