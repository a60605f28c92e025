import { expectShape, ProviderError, type ProviderHttp } from '@gw/chain-api';

/**
 * The answers of the java-tron HTTP API (`/wallet/*`, as TronGrid serves it) that the treasury reads,
 * checked field by field. Every integer the node prints is read as a bigint from its source text
 * (balances, fees and chain parameters are int64 sun: a JavaScript number would lose digits above
 * 2^53). Addresses are the node's 21-byte `41…` hex (`visible` is never set).
 */

const HASH = /^[0-9a-f]{64}$/;
const HEX = /^[0-9a-f]*$/;

interface ReviverContext {
  readonly source?: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is bigint => typeof v === 'bigint';

/** Parses a node answer with every integer as a bigint; a body that is not JSON is `malformed`. */
export function parseNodeJson(body: string, what: string): unknown {
  try {
    return JSON.parse(body, function (this: unknown, _key: string, value: unknown, context?: ReviverContext): unknown {
      if (typeof value === 'number' && context?.source !== undefined && /^-?\d+$/.test(context.source)) return BigInt(context.source);
      return value;
    } as (this: unknown, key: string, value: unknown) => unknown);
  } catch {
    throw new ProviderError('malformed', '', `${what}: not JSON: ${body.slice(0, 200)}`);
  }
}

/** POSTs `body` to `path` and parses the answer (integers as bigint). An `{"Error": …}` answer is malformed. */
export async function postTreasury(http: ProviderHttp, path: string, body: unknown): Promise<Json> {
  const text = await http.text('POST', path, { body });
  const raw = parseNodeJson(text ?? '', `POST ${path}`);
  expectShape(isObject(raw), `${path}: not an object`);
  expectShape(typeof raw['Error'] !== 'string', `${path}: ${String(raw['Error'])}`);
  return raw;
}

/** What `getaccount` tells about one account; undefined for `{}` (no such account on chain). */
export interface NodeAccount {
  /** Sun. */
  readonly balance: bigint;
  /** Sun staked for energy and not lent out (Stake 2.0 `frozenV2` of type ENERGY; a delegation moves its amount out of it). */
  readonly frozenForEnergy: bigint;
}

export function parseAccount(raw: Json, what: string): NodeAccount | undefined {
  if (Object.keys(raw).length === 0) return undefined;
  const balance = raw['balance'] ?? 0n; // protobuf JSON omits zero fields
  expectShape(isInt(balance) && balance >= 0n, `${what}: balance`);
  const frozen = raw['frozenV2'] ?? [];
  expectShape(Array.isArray(frozen), `${what}: frozenV2`);
  let frozenForEnergy = 0n;
  for (const entry of frozen) {
    expectShape(isObject(entry), `${what}: frozenV2 entry`);
    const amount = entry['amount'] ?? 0n;
    expectShape(isInt(amount), `${what}: frozenV2 amount`);
    if (entry['type'] === 'ENERGY') frozenForEnergy += amount;
  }
  return { balance, frozenForEnergy };
}

/** `getaccountresource`: bandwidth an account can still use today, and the network's energy totals. */
export interface NodeAccountResource {
  /** Free plus staked bandwidth left (bytes). */
  readonly bandwidthLeft: bigint;
  readonly totalEnergyLimit: bigint;
  readonly totalEnergyWeight: bigint;
}

export function parseAccountResource(raw: Json, what: string): NodeAccountResource {
  const int = (key: string): bigint => {
    const v = raw[key] ?? 0n;
    expectShape(isInt(v) && v >= 0n, `${what}: ${key}`);
    return v;
  };
  const free = int('freeNetLimit') - int('freeNetUsed');
  const staked = int('NetLimit') - int('NetUsed');
  return {
    bandwidthLeft: (free > 0n ? free : 0n) + (staked > 0n ? staked : 0n),
    totalEnergyLimit: int('TotalEnergyLimit'),
    totalEnergyWeight: int('TotalEnergyWeight'),
  };
}

/** A `triggerconstantcontract` run: its energy and return words; `reverted` when the call failed. */
export interface NodeConstantCall {
  readonly energyUsed: bigint;
  readonly energyPenalty: bigint;
  readonly constantResult: readonly string[];
  readonly reverted: string | undefined;
}

export function parseConstantCall(raw: Json, what: string): NodeConstantCall {
  const result = raw['result'];
  expectShape(isObject(result), `${what}: result`);
  const message = typeof result['message'] === 'string' ? result['message'] : undefined;
  if (result['result'] !== true) {
    // Validation failures (no such contract, node without constant calls) are the node's, not the call's.
    throw new ProviderError('malformed', '', `${what}: ${result['code'] ?? 'failed'} ${message ?? ''}`.trim());
  }
  const energyUsed = raw['energy_used'] ?? 0n;
  const energyPenalty = raw['energy_penalty'] ?? 0n;
  expectShape(isInt(energyUsed) && energyUsed >= 0n && isInt(energyPenalty) && energyPenalty >= 0n, `${what}: energy_used`);
  const constant = raw['constant_result'] ?? [];
  expectShape(Array.isArray(constant) && constant.every((w) => typeof w === 'string' && HEX.test(w.toLowerCase())), `${what}: constant_result`);
  const tx = raw['transaction'];
  const ret = isObject(tx) && Array.isArray(tx['ret']) ? tx['ret'][0] : undefined;
  const failed = isObject(ret) && ret['ret'] === 'FAILED';
  return {
    energyUsed,
    energyPenalty,
    constantResult: (constant as string[]).map((w) => w.toLowerCase()),
    reverted: failed ? (message ?? 'FAILED') : undefined,
  };
}

/** The chain parameters the treasury prices with (sun). */
export interface ChainPrices {
  /** Sun per energy unit (`getEnergyFee`). */
  readonly energyFee: bigint;
  /** Sun per byte of bandwidth burned (`getTransactionFee`). */
  readonly bandwidthFee: bigint;
  /** Sun burned (as bandwidth) by a transaction that creates an account (`getCreateAccountFee`). */
  readonly createAccountFee: bigint;
  /** Sun charged for creating an account in a system contract (`getCreateNewAccountFeeInSystemContract`). */
  readonly createAccountSystemFee: bigint;
  /** Largest `fee_limit` a transaction may carry (`getMaxFeeLimit`); undefined when the node does not say. */
  readonly maxFeeLimit: bigint | undefined;
}

export function parseChainParameters(raw: Json, what: string): ChainPrices {
  const list = raw['chainParameter'];
  expectShape(Array.isArray(list), `${what}: chainParameter`);
  const values = new Map<string, bigint>();
  for (const entry of list) {
    expectShape(isObject(entry) && typeof entry['key'] === 'string', `${what}: chainParameter entry`);
    const value = entry['value'] ?? 0n;
    expectShape(isInt(value), `${what}: ${entry['key']}`);
    values.set(entry['key'], value);
  }
  const need = (key: string): bigint => {
    const v = values.get(key);
    expectShape(v !== undefined && v >= 0n, `${what}: no ${key}`);
    return v;
  };
  return {
    energyFee: need('getEnergyFee'),
    bandwidthFee: need('getTransactionFee'),
    createAccountFee: need('getCreateAccountFee'),
    createAccountSystemFee: need('getCreateNewAccountFeeInSystemContract'),
    maxFeeLimit: values.get('getMaxFeeLimit'),
  };
}

/** The block a plan references: `getnowblock`'s height, id and time. */
export interface NodeBlockRef {
  readonly height: bigint;
  readonly blockId: string;
  /** Milliseconds since the epoch. */
  readonly timestamp: bigint;
}

export function parseNowBlock(raw: Json, what: string): NodeBlockRef {
  const header = raw['block_header'];
  const data = isObject(header) ? header['raw_data'] : undefined;
  expectShape(typeof raw['blockID'] === 'string' && HASH.test(raw['blockID'].toLowerCase()) && isObject(data), `${what}: blockID / block_header`);
  const height = data['number'] ?? 0n;
  const timestamp = data['timestamp'];
  expectShape(isInt(height) && isInt(timestamp), `${what}: number / timestamp`);
  return { height, blockId: raw['blockID'].toLowerCase(), timestamp };
}

/** `broadcasthex` / `broadcasttransaction`: `result: true` or a code (`DUP_TRANSACTION_ERROR`, `SIGERROR`, …). */
export interface NodeBroadcast {
  readonly accepted: boolean;
  readonly code: string;
  /** The reason, decoded from hex where the node printed it as hex. */
  readonly message: string;
}

export function parseBroadcast(raw: Json, what: string): NodeBroadcast {
  const code = typeof raw['code'] === 'string' ? raw['code'] : raw['result'] === true ? 'SUCCESS' : undefined;
  expectShape(code !== undefined, `${what}: no result / code`);
  const message = typeof raw['message'] === 'string' ? raw['message'] : '';
  const decoded = message.length > 0 && message.length % 2 === 0 && HEX.test(message) ? Buffer.from(message, 'hex').toString('utf8') : message;
  return { accepted: raw['result'] === true, code, message: decoded };
}

/** `gettransactioninfobyid`: where a transaction landed; undefined for `{}` (not in a block yet, or unknown). */
export interface NodeTransactionInfo {
  readonly id: string;
  readonly blockNumber: bigint;
  /** Sun the transaction burned. */
  readonly fee: bigint;
  /** `receipt.result` for contract calls (`SUCCESS`, `REVERT`, `OUT_OF_ENERGY`, …). */
  readonly receiptResult: string | undefined;
  /** `FAILED` when execution failed. */
  readonly result: string | undefined;
}

export function parseTransactionInfo(raw: Json, what: string): NodeTransactionInfo | undefined {
  if (Object.keys(raw).length === 0) return undefined;
  expectShape(typeof raw['id'] === 'string' && HASH.test(raw['id'].toLowerCase()), `${what}: id`);
  const blockNumber = raw['blockNumber'];
  const fee = raw['fee'] ?? 0n;
  expectShape(isInt(blockNumber) && isInt(fee), `${what}: blockNumber / fee`);
  const receipt = raw['receipt'];
  return {
    id: raw['id'].toLowerCase(),
    blockNumber,
    fee,
    receiptResult: isObject(receipt) && typeof receipt['result'] === 'string' ? receipt['result'] : undefined,
    result: typeof raw['result'] === 'string' ? raw['result'] : undefined,
  };
}
