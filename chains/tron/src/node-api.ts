import { expectShape, type ProviderHttp } from '@gw/chain-api';
import { parseExactJson } from './exact-json.js';

/**
 * The parts of the java-tron full-node HTTP API (`/wallet/*`, `/walletsolidity/*`, as TronGrid
 * serves it) that the watcher reads, checked field by field. Addresses and hashes are the node's
 * lowercase hex without `0x` (`visible` is never set, so addresses are 21-byte `41...` hex).
 */

const HASH = /^[0-9a-f]{64}$/;
const HEX = /^[0-9a-f]*$/;
const DIGITS = /^\d+$/;

/** Header fields of a `protocol.Block`. */
export interface NodeBlockHeader {
  readonly height: number;
  /** `blockID`. */
  readonly hash: string;
  readonly parentHash: string;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
}

/** One transaction of a block, reduced to what a transfer needs. */
export interface NodeTransaction {
  readonly txID: string;
  /** `ret[0].contractRet`; undefined when the node gave none. */
  readonly contractRet: string | undefined;
  /** `raw_data.contract[0].type` (`TransferContract`, `TriggerSmartContract`, ...). */
  readonly type: string | undefined;
  /** `raw_data.contract[0].parameter.value`; `amount` kept as exact digits. */
  readonly value: Readonly<Record<string, unknown>>;
}

export interface NodeBlock extends NodeBlockHeader {
  readonly transactions: readonly NodeTransaction[];
}

/** A `TransactionInfo.Log`: `address` is the 20-byte contract address (hex, no `41`). */
export interface NodeLog {
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
}

/** A `TransactionInfo` of `gettransactioninfobyblocknum`. */
export interface NodeTransactionInfo {
  readonly id: string;
  /** `receipt.result` (`SUCCESS`, `REVERT`, `OUT_OF_ENERGY`, ...); absent for non-contract transactions. */
  readonly receiptResult: string | undefined;
  /** Top-level `result`: `FAILED` when execution failed, absent otherwise. */
  readonly result: string | undefined;
  readonly logs: readonly NodeLog[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isHeight = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isHash = (v: unknown): v is string => typeof v === 'string' && HASH.test(v.toLowerCase());

/** POSTs `body` to `path` and parses the answer with exact amounts; undefined only for a 404 when `allowNotFound`. */
export async function postNode(http: ProviderHttp, path: string, body: unknown, allowNotFound = false): Promise<unknown> {
  const text = await http.text('POST', path, { body, allowNotFound });
  return text === undefined ? undefined : parseExactJson(text, `POST ${path}`);
}

/**
 * The header of a `protocol.Block` answer, or undefined for the node's `{}` (no such block). An
 * `{"Error": ...}` answer or any missing field is malformed.
 */
export function parseBlockHeader(raw: unknown, what: string): NodeBlockHeader | undefined {
  expectShape(isObject(raw), `${what}: not an object`);
  if (Object.keys(raw).length === 0) return undefined;
  const header = raw['block_header'];
  const data = isObject(header) ? header['raw_data'] : undefined;
  expectShape(isHash(raw['blockID']) && isObject(data), `${what}: no blockID / block_header.raw_data`);
  const height = data['number'] ?? 0; // protobuf JSON omits zero fields: block 0 has no number
  expectShape(isHeight(height), `${what}: block_header.raw_data.number`);
  expectShape(isHash(data['parentHash']), `${what}: block_header.raw_data.parentHash`);
  expectShape(isHeight(data['timestamp']), `${what}: block_header.raw_data.timestamp`);
  return {
    height,
    hash: raw['blockID'].toLowerCase(),
    parentHash: data['parentHash'].toLowerCase(),
    timestamp: data['timestamp'],
  };
}

/** A whole `protocol.Block` (`getblockbynum`), or undefined when the node has no block at that height. */
export function parseBlock(raw: unknown, what: string): NodeBlock | undefined {
  const header = parseBlockHeader(raw, what);
  if (!header) return undefined;
  const list = (raw as Record<string, unknown>)['transactions'] ?? []; // omitted for an empty block
  expectShape(Array.isArray(list), `${what}: transactions`);
  const transactions = list.map((tx, i): NodeTransaction => {
    expectShape(isObject(tx) && isHash(tx['txID']) && isObject(tx['raw_data']), `${what}: transactions[${i}]`);
    const ret = tx['ret'];
    const first = Array.isArray(ret) ? ret[0] : undefined;
    const contractRet = isObject(first) && typeof first['contractRet'] === 'string' ? first['contractRet'] : undefined;
    const contracts = tx['raw_data']['contract'];
    const contract = Array.isArray(contracts) ? contracts[0] : undefined;
    const parameter = isObject(contract) ? contract['parameter'] : undefined;
    const value = isObject(parameter) && isObject(parameter['value']) ? parameter['value'] : {};
    return {
      txID: tx['txID'].toLowerCase(),
      contractRet,
      type: isObject(contract) && typeof contract['type'] === 'string' ? contract['type'] : undefined,
      value,
    };
  });
  return { ...header, transactions };
}

/**
 * The `gettransactioninfobyblocknum` answer: an array, `[]` for an empty block, `{}` for a height the
 * node does not serve (or `num` 0).
 */
export function parseTransactionInfos(raw: unknown, height: number, what: string): NodeTransactionInfo[] {
  if (isObject(raw) && Object.keys(raw).length === 0) return [];
  expectShape(Array.isArray(raw), `${what}: not an array`);
  return raw.map((info, i): NodeTransactionInfo => {
    expectShape(isObject(info) && isHash(info['id']), `${what}[${i}]: id`);
    expectShape(info['blockNumber'] === undefined || info['blockNumber'] === height, `${what}[${i}]: blockNumber is not ${height}`);
    const receipt = info['receipt'];
    const receiptResult = isObject(receipt) && typeof receipt['result'] === 'string' ? receipt['result'] : undefined;
    const logs = info['log'] ?? [];
    expectShape(Array.isArray(logs), `${what}[${i}]: log`);
    return {
      id: info['id'].toLowerCase(),
      receiptResult,
      result: typeof info['result'] === 'string' ? info['result'] : undefined,
      logs: logs.map((log, j): NodeLog => {
        const topics = isObject(log) ? (log['topics'] ?? []) : undefined;
        expectShape(
          isObject(log) &&
            typeof log['address'] === 'string' &&
            HEX.test(log['address'].toLowerCase()) &&
            Array.isArray(topics) &&
            topics.every((t) => typeof t === 'string'),
          `${what}[${i}].log[${j}]`,
        );
        const data = log['data'] ?? '';
        expectShape(typeof data === 'string' && HEX.test(data.toLowerCase()), `${what}[${i}].log[${j}].data`);
        return { address: log['address'].toLowerCase(), topics: (topics as string[]).map((t) => t.toLowerCase()), data: data.toLowerCase() };
      }),
    };
  });
}

/** The exact sun amount of a contract value (`amount`), or undefined when it has none. */
export function amountOf(value: Readonly<Record<string, unknown>>): bigint | undefined {
  const amount = value['amount'];
  if (typeof amount === 'string' && DIGITS.test(amount)) return BigInt(amount);
  return undefined;
}
