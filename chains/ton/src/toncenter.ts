import { expectShape } from '@gw/chain-api';
import { Address } from '@ton/core';

/**
 * The parts of toncenter API v3 responses the TON watcher reads, validated. Anything of another
 * shape throws (`malformed`), so the provider pool moves on to the next toncenter endpoint.
 * Reference: toncenter's v3 OpenAPI (`/api/v3/masterchainInfo`, `/api/v3/blocks`,
 * `/api/v3/transactionsByMasterchainBlock`, `/api/v3/runGetMethod`).
 */

/** A masterchain block as `/api/v3/blocks` and `/api/v3/masterchainInfo` describe it. */
export interface ToncenterBlock {
  readonly seqno: number;
  /** base64 root hash: the block's identity. */
  readonly rootHash: string;
  readonly genUtime: number;
}

/** An incoming message of a transaction. */
export interface ToncenterMessage {
  /** Raw `<workchain>:<hex>` (checked); null for external-in messages. */
  readonly source: string | null;
  readonly destination: string | null;
  /** Nanotons, as the decimal string toncenter gives. */
  readonly value: bigint;
  readonly bounced: boolean;
  /** base64 BoC of the body; undefined when toncenter gives none. */
  readonly body: string | undefined;
}

/** A transaction of `/api/v3/transactionsByMasterchainBlock`. */
export interface ToncenterTransaction {
  /** base64, as toncenter gives it. */
  readonly hash: string;
  readonly lt: bigint;
  readonly now: number;
  /** `ord`, `tick_tock`, ... */
  readonly type: string;
  readonly aborted: boolean;
  /** Type of the bounce phase (`ok`, `nofunds`, `negfunds`); null when there was none. */
  readonly bounce: string | null;
  readonly inMsg: ToncenterMessage | null;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isUnsignedDecimal = (value: unknown): value is string => typeof value === 'string' && /^\d+$/.test(value);

function parseBlock(value: unknown, what: string): ToncenterBlock {
  expectShape(isObject(value), `${what} is not an object`);
  const { seqno, root_hash: rootHash, gen_utime: genUtime, workchain } = value;
  expectShape(workchain === -1, `${what} is not a masterchain block`);
  expectShape(typeof seqno === 'number' && Number.isSafeInteger(seqno) && seqno >= 0, `${what}.seqno`);
  expectShape(typeof rootHash === 'string' && rootHash.length > 0, `${what}.root_hash`);
  // gen_utime is a decimal string in toncenter's v3 schema; accept a number too.
  const time = typeof genUtime === 'number' ? genUtime : isUnsignedDecimal(genUtime) ? Number(genUtime) : Number.NaN;
  expectShape(Number.isSafeInteger(time), `${what}.gen_utime`);
  return { seqno, rootHash, genUtime: time };
}

/** `/api/v3/masterchainInfo` → the last masterchain block. */
export function parseMasterchainInfo(value: unknown): ToncenterBlock {
  expectShape(isObject(value), 'masterchainInfo is not an object');
  return parseBlock(value['last'], 'masterchainInfo.last');
}

/** `/api/v3/blocks?workchain=-1&shard=8000000000000000&seqno=N` → that block, or null when toncenter has none. */
export function parseBlockList(value: unknown, seqno: number): ToncenterBlock | null {
  expectShape(isObject(value) && Array.isArray(value['blocks']), 'blocks: no blocks array');
  const blocks = (value['blocks'] as unknown[]).map((b, i) => parseBlock(b, `blocks[${i}]`));
  if (blocks.length === 0) return null;
  const block = blocks.find((b) => b.seqno === seqno);
  expectShape(block !== undefined, `blocks: answer does not hold masterchain block ${seqno}`);
  return block;
}

function parseMessage(value: unknown, what: string): ToncenterMessage | null {
  if (value === null || value === undefined) return null;
  expectShape(isObject(value), `${what} is not an object`);
  const { source, destination, value: amount, bounced, message_content: content } = value;
  expectShape(source === null || source === undefined || (typeof source === 'string' && Address.isRaw(source)), `${what}.source`);
  expectShape(destination === null || destination === undefined || (typeof destination === 'string' && Address.isRaw(destination)), `${what}.destination`);
  // External messages carry no value (null).
  expectShape(amount === null || amount === undefined || isUnsignedDecimal(amount), `${what}.value`);
  expectShape(bounced === null || bounced === undefined || typeof bounced === 'boolean', `${what}.bounced`);
  let body: string | undefined;
  if (content !== null && content !== undefined) {
    expectShape(isObject(content), `${what}.message_content`);
    expectShape(content['body'] === undefined || content['body'] === null || typeof content['body'] === 'string', `${what}.message_content.body`);
    body = typeof content['body'] === 'string' ? content['body'] : undefined;
  }
  return {
    source: source ?? null,
    destination: destination ?? null,
    value: typeof amount === 'string' ? BigInt(amount) : 0n,
    bounced: bounced === true,
    body,
  };
}

function parseTransaction(value: unknown, what: string): ToncenterTransaction {
  expectShape(isObject(value), `${what} is not an object`);
  const { hash, lt, now, description } = value;
  expectShape(typeof hash === 'string' && hash.length > 0, `${what}.hash`);
  expectShape(isUnsignedDecimal(lt), `${what}.lt`);
  expectShape(typeof now === 'number' && Number.isSafeInteger(now), `${what}.now`);
  expectShape(isObject(description), `${what}.description`);
  expectShape(typeof description['type'] === 'string', `${what}.description.type`);
  expectShape(typeof description['aborted'] === 'boolean', `${what}.description.aborted`);
  const bounce = description['bounce'];
  expectShape(bounce === null || bounce === undefined || (isObject(bounce) && typeof bounce['type'] === 'string'), `${what}.description.bounce`);
  return {
    hash,
    lt: BigInt(lt),
    now,
    type: description['type'],
    aborted: description['aborted'],
    bounce: isObject(bounce) ? (bounce['type'] as string) : null,
    inMsg: parseMessage(value['in_msg'], `${what}.in_msg`),
  };
}

/** One page of `/api/v3/transactionsByMasterchainBlock`. */
export function parseTransactionList(value: unknown): ToncenterTransaction[] {
  expectShape(isObject(value) && Array.isArray(value['transactions']), 'transactions: no transactions array');
  return (value['transactions'] as unknown[]).map((t, i) => parseTransaction(t, `transactions[${i}]`));
}

/** `/api/v3/runGetMethod` → the stack entries (`cell`/`slice` values are base64 BoCs); throws unless exit code 0 or 1. */
export function parseRunGetMethod(value: unknown): { readonly type: string; readonly value: unknown }[] {
  expectShape(isObject(value) && Array.isArray(value['stack']), 'runGetMethod: no stack');
  const exitCode = value['exit_code'];
  expectShape(exitCode === 0 || exitCode === 1, `runGetMethod: exit code ${String(exitCode)}`);
  return (value['stack'] as unknown[]).map((entry, i) => {
    expectShape(isObject(entry) && typeof entry['type'] === 'string', `runGetMethod.stack[${i}]`);
    return { type: entry['type'], value: entry['value'] };
  });
}
