import { expectShape } from '@gw/chain-api';
import { Address } from '@ton/core';

/**
 * The toncenter API v3 answers the TON treasury reads, validated (anything of another shape throws
 * `malformed`, so the provider pool moves on): `GET /api/v3/accountStates`, `POST /api/v3/message`,
 * `GET /api/v3/transactionsByMessage`. Reference: toncenter's v3 OpenAPI (AccountState,
 * SentMessage, Transaction).
 */

export type TonAccountStatus = 'active' | 'uninit' | 'frozen' | 'nonexist';

export interface TonAccountState {
  /** Raw `0:<hex>`, as toncenter gives it (any case). */
  readonly address: Address;
  readonly balance: bigint;
  readonly status: TonAccountStatus;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const STATUSES: readonly string[] = ['active', 'uninit', 'frozen', 'nonexist'];

/** `/api/v3/accountStates?address=…` → the states it knows; accounts it leaves out do not exist. */
export function parseAccountStates(value: unknown): TonAccountState[] {
  expectShape(isObject(value) && Array.isArray(value['accounts']), 'accountStates: no accounts array');
  return (value['accounts'] as unknown[]).map((a, i) => {
    expectShape(isObject(a), `accounts[${i}] is not an object`);
    const { address, balance, status } = a;
    expectShape(typeof address === 'string' && Address.isRaw(address), `accounts[${i}].address`);
    expectShape(typeof balance === 'string' && /^\d+$/.test(balance), `accounts[${i}].balance`);
    expectShape(typeof status === 'string' && STATUSES.includes(status), `accounts[${i}].status`);
    return { address: Address.parseRaw(address), balance: BigInt(balance), status: status as TonAccountStatus };
  });
}

/** `/api/v3/message` → the hash toncenter gives the accepted external (base64 or hex). */
export function parseSentMessage(value: unknown): string {
  expectShape(isObject(value) && typeof value['message_hash'] === 'string', 'message: no message_hash');
  return value['message_hash'];
}

/** A transaction found by its incoming message, with the masterchain block that committed it. */
export interface TonMessageTransaction {
  readonly hash: string;
  readonly mcBlockSeqno: number;
  readonly totalFees: bigint;
  readonly aborted: boolean;
}

/** `/api/v3/transactionsByMessage?msg_hash=…&direction=in`. */
export function parseMessageTransactions(value: unknown): TonMessageTransaction[] {
  expectShape(isObject(value) && Array.isArray(value['transactions']), 'transactionsByMessage: no transactions array');
  return (value['transactions'] as unknown[]).map((t, i) => {
    expectShape(isObject(t), `transactions[${i}] is not an object`);
    const { hash, mc_block_seqno: seqno, total_fees: fees, description } = t;
    expectShape(typeof hash === 'string' && hash.length > 0, `transactions[${i}].hash`);
    expectShape(typeof seqno === 'number' && Number.isSafeInteger(seqno), `transactions[${i}].mc_block_seqno`);
    expectShape(typeof fees === 'string' && /^\d+$/.test(fees), `transactions[${i}].total_fees`);
    expectShape(isObject(description) && typeof description['aborted'] === 'boolean', `transactions[${i}].description.aborted`);
    return { hash, mcBlockSeqno: seqno, totalFees: BigInt(fees), aborted: description['aborted'] };
  });
}
