import type { Address } from '@ton/core';
import type { TonChainReads } from './ton-chain-reads.js';
import type { TonAccountStatus } from './toncenter-accounts.js';

/** What a subwallet holds and where its seqno stands. */
export interface WalletState {
  readonly address: Address;
  readonly status: TonAccountStatus;
  /** Nanotons. */
  readonly ton: bigint;
  /** 0 while undeployed (its first external deploys it and carries seqno 0). */
  readonly seqno: number;
  readonly deployed: boolean;
  /** Its jetton wallet under the configured master, and the jettons it holds (0 while that wallet is undeployed). */
  readonly jettonWallet: Address | undefined;
  readonly jettons: bigint;
}

/**
 * Reads the state of each wallet: balances and status in batches, the seqno of each deployed one,
 * and, when a jetton master is configured, each wallet's jetton wallet and its balance.
 */
export async function readWalletStates(reads: TonChainReads, wallets: readonly Address[], jettonMaster: Address | undefined): Promise<WalletState[]> {
  const accounts = await reads.accounts(wallets);
  const jettonWallets = jettonMaster === undefined ? [] : await mapSequential(wallets, (w) => reads.jettonWallet(jettonMaster, w));
  const jettonAccounts = jettonWallets.length === 0 ? new Map() : await reads.accounts(jettonWallets);
  return mapSequential(wallets, async (address, i) => {
    const account = accounts.get(address.toRawString())!;
    const deployed = account.status === 'active';
    const jettonWallet = jettonWallets[i];
    const jettonActive = jettonWallet !== undefined && jettonAccounts.get(jettonWallet.toRawString())?.status === 'active';
    return {
      address,
      status: account.status,
      ton: account.balance,
      seqno: deployed ? await reads.seqno(address) : 0,
      deployed,
      jettonWallet,
      jettons: jettonActive ? await reads.jettonBalance(jettonWallet) : 0n,
    };
  });
}

/** One at a time: public toncenter endpoints rate-limit hard. */
async function mapSequential<T, R>(items: readonly T[], f: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i++) out.push(await f(items[i]!, i));
  return out;
}
