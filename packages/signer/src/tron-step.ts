import bs58check from 'bs58check';
import { AbiCoder } from 'ethers/abi';
import { sha256, type SigningKey } from 'ethers/crypto';
import { computeAddress } from 'ethers/transaction';
import { dataSlice, getBytes, hexlify } from 'ethers/utils';
import type { ReadStep } from './account-plan.js';
import { checkedStep, checkMoves, checkTo, timeOf, tokenCoin, type CheckedStep, type StepContext, type StepTransfer } from './account-step.js';
import { refuse } from './signer-error.js';

/** The T-address of a 21-byte TRON address (0x41 ‖ 20 bytes). */
export function tronBase58(bytes: Uint8Array): string {
  return bs58check.encode(bytes);
}

/** The TRON address of a secp256k1 key: 0x41 ‖ the last 20 bytes of keccak256 of the public key (as EVM). */
export function tronAddressOf(key: SigningKey): string {
  return tronBase58(getBytes(`0x41${computeAddress(key.publicKey).slice(2)}`));
}

/** A T-address or 41-hex address in its T form; null when it is neither. */
export function normalTronAddress(address: string): string | null {
  try {
    if (/^41[0-9a-fA-F]{40}$/.test(address)) return tronBase58(getBytes(`0x${address}`));
    const bytes = bs58check.decode(address);
    return bytes.length === 21 && bytes[0] === 0x41 ? address : null;
  } catch {
    return null;
  }
}

const sameTronAddress = (a: string, b: string): boolean => {
  const x = normalTronAddress(a);
  return x !== null && x === normalTronAddress(b);
};

/** Protocol Buffers wire format, as far as TRON's transaction needs: varints (wire type 0) and length-delimited fields (wire type 2). */
type Field = { readonly number: number; readonly varint?: bigint; readonly bytes?: Uint8Array };

/** What a message's field must be: a varint, bytes, or bytes that may repeat. */
type Schema = Readonly<Record<number, 'varint' | 'bytes' | 'repeated'>>;

const MAX_VARINT = (1n << 64n) - 1n;

function fields(bytes: Uint8Array, where: string): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (at >= bytes.length) refuse('plan_unreadable', `${where}: the transaction's protobuf ends inside a number.`);
      const byte = bytes[at++]!;
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) {
        if (value > MAX_VARINT) refuse('plan_unreadable', `${where}: a protobuf number is longer than 64 bits.`);
        return value;
      }
    }
    return refuse('plan_unreadable', `${where}: a protobuf number is too long.`);
  };
  while (at < bytes.length) {
    const key = varint();
    const number = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) out.push({ number, varint: varint() });
    else if (wire === 2) {
      const length = Number(varint());
      if (at + length > bytes.length) refuse('plan_unreadable', `${where}: a protobuf field runs past the end.`);
      out.push({ number, bytes: bytes.subarray(at, at + length) });
      at += length;
    } else refuse('plan_unreadable', `${where}: protobuf wire type ${wire} is not one TRON's transaction uses.`);
  }
  return out;
}

function encodeVarint(value: bigint, out: number[]): void {
  let v = value;
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
}

/** The canonical encoding of fields in the order given (minimal varints): what TRON's and tronweb's encoders write. */
function encodeFields(list: readonly Field[]): Uint8Array {
  const out: number[] = [];
  for (const field of list) {
    encodeVarint((BigInt(field.number) << 3n) | (field.bytes ? 2n : 0n), out);
    if (field.bytes) {
      encodeVarint(BigInt(field.bytes.length), out);
      out.push(...field.bytes);
    } else encodeVarint(field.varint!, out);
  }
  return Uint8Array.from(out);
}

/**
 * The fields of a message by number, strictly: every field must be in `schema` (something the signer
 * would not show is refused) with its wire type, a singular field appears once, fields come in
 * ascending order, and the message re-encoded from what was read is `bytes` byte for byte (no
 * overlong numbers, nothing two readers could read differently).
 */
function message(bytes: Uint8Array, schema: Schema, what: string, where: string): Map<number, Field[]> {
  const map = new Map<number, Field[]>();
  const list = fields(bytes, where);
  let last = 0;
  for (const field of list) {
    const kind = schema[field.number];
    if (kind === undefined) refuse('unsupported', `${where}: the ${what} has field ${field.number}, which the signer does not read.`);
    if ((kind === 'varint') !== (field.varint !== undefined))
      refuse('plan_unreadable', `${where}: the ${what}'s field ${field.number} has the wrong protobuf wire type.`);
    if (map.has(field.number) && kind !== 'repeated') refuse('plan_unreadable', `${where}: the ${what}'s field ${field.number} appears twice.`);
    if (field.number < last) refuse('plan_unreadable', `${where}: the ${what}'s fields are not in their canonical order.`);
    last = field.number;
    map.set(field.number, [...(map.get(field.number) ?? []), field]);
  }
  const again = encodeFields(list);
  if (again.length !== bytes.length || again.some((b, i) => b !== bytes[i]))
    refuse('plan_unreadable', `${where}: the ${what} is not in its canonical protobuf encoding.`);
  return map;
}

const one = (map: Map<number, Field[]>, n: number): Field | undefined => map.get(n)?.[0];
const num = (map: Map<number, Field[]>, n: number): bigint => one(map, n)?.varint ?? 0n;
const bytesOf = (map: Map<number, Field[]>, n: number): Uint8Array => one(map, n)?.bytes ?? new Uint8Array();

function address(bytes: Uint8Array, what: string, where: string): string {
  if (bytes.length !== 21 || bytes[0] !== 0x41) refuse('plan_unreadable', `${where}: the ${what} is not a TRON address.`);
  return tronBase58(bytes);
}

const TRANSFER_CONTRACT = 1;
const TRIGGER_SMART_CONTRACT = 31;
const DELEGATE_RESOURCE = 57;
const UNDELEGATE_RESOURCE = 58;
const TYPE_NAMES: Record<number, string> = {
  [TRANSFER_CONTRACT]: 'TransferContract',
  [TRIGGER_SMART_CONTRACT]: 'TriggerSmartContract',
  [DELEGATE_RESOURCE]: 'DelegateResourceContract',
  [UNDELEGATE_RESOURCE]: 'UnDelegateResourceContract',
};
const TRC20_TRANSFER = 'a9059cbb';

/** What a TRON transaction does, read from `raw_data_hex`. */
interface TronContract {
  readonly type: number;
  readonly owner: string;
  readonly transfers: StepTransfer[];
  /** Who it gives something other than coins: a delegation's receiver. */
  readonly parties: { address: string; what: string }[];
  /** Where it sends or delegates: the recipient, the token contract, the delegation's receiver. */
  readonly targets: string[];
  readonly lines: string[];
  /** The fields the JSON `raw_data` must agree with. */
  readonly json: Record<string, string | number>;
}

function readContract(type: number, value: Uint8Array, ctx: StepContext, where: string): TronContract {
  const name = TYPE_NAMES[type];
  if (!name)
    refuse(
      'unsupported',
      `${where}: contract type ${type}; the signer signs TransferContract, TriggerSmartContract (TRC-20 transfer), DelegateResource and UnDelegateResource.`,
    );
  if (type === TRANSFER_CONTRACT) {
    const m = message(value, { 1: 'bytes', 2: 'bytes', 3: 'varint' }, name, where);
    const owner = address(bytesOf(m, 1), 'owner', where);
    const to = address(bytesOf(m, 2), 'recipient', where);
    const amount = num(m, 3);
    return {
      type,
      owner,
      transfers: [{ to, coin: ctx.chain.native.id, units: amount }],
      parties: [],
      targets: [to],
      lines: [`TransferContract: ${amount} sun from ${owner}`],
      json: { owner_address: hexlify(bytesOf(m, 1)).slice(2), to_address: hexlify(bytesOf(m, 2)).slice(2), amount: amount.toString() },
    };
  }
  if (type === TRIGGER_SMART_CONTRACT) {
    const m = message(value, { 1: 'bytes', 2: 'bytes', 3: 'varint', 4: 'bytes', 5: 'varint', 6: 'varint' }, name, where);
    const owner = address(bytesOf(m, 1), 'owner', where);
    const contract = address(bytesOf(m, 2), 'contract', where);
    if (num(m, 3) !== 0n || num(m, 5) !== 0n || num(m, 6) !== 0n) refuse('unsupported', `${where}: a contract call that sends TRX or TRC-10 tokens.`);
    const data = hexlify(bytesOf(m, 4)).slice(2);
    if (data.slice(0, 8) !== TRC20_TRANSFER || data.length !== 8 + 128)
      refuse('unsupported', `${where}: a contract call other than a TRC-20 transfer(address,uint256).`);
    const [recipient, amount] = AbiCoder.defaultAbiCoder().decode(['address', 'uint256'], dataSlice(`0x${data}`, 4)) as unknown as [string, bigint];
    const to = tronBase58(getBytes(`0x41${recipient.slice(2)}`));
    return {
      type,
      owner,
      transfers: [{ to, coin: tokenCoin(ctx, where, contract), units: amount, contract }],
      parties: [],
      targets: [to, contract],
      lines: [`TriggerSmartContract: TRC-20 transfer on ${contract} from ${owner}`],
      json: { owner_address: hexlify(bytesOf(m, 1)).slice(2), contract_address: hexlify(bytesOf(m, 2)).slice(2), data },
    };
  }
  const m = message(
    value,
    type === DELEGATE_RESOURCE
      ? { 1: 'bytes', 2: 'varint', 3: 'varint', 4: 'bytes', 5: 'varint', 6: 'varint' }
      : { 1: 'bytes', 2: 'varint', 3: 'varint', 4: 'bytes' },
    name,
    where,
  );
  const owner = address(bytesOf(m, 1), 'owner', where);
  const receiver = address(bytesOf(m, 4), 'receiver', where);
  const resource = num(m, 2) === 1n ? 'ENERGY' : num(m, 2) === 0n ? 'BANDWIDTH' : `resource ${num(m, 2)}`;
  const balance = num(m, 3);
  const lock = type === DELEGATE_RESOURCE && num(m, 5) !== 0n ? `, locked for ${num(m, 6)} blocks` : '';
  return {
    type,
    owner,
    transfers: [],
    parties: [
      {
        address: receiver,
        what: type === DELEGATE_RESOURCE ? `receives the ${resource} of ${balance} sun` : `gives back the ${resource} of ${balance} sun`,
      },
    ],
    targets: [receiver],
    lines: [
      type === DELEGATE_RESOURCE
        ? `DelegateResource: the ${resource} of ${balance} sun staked by ${owner} to ${receiver}${lock} (the TRX stays staked by ${owner})`
        : `UnDelegateResource: reclaims the ${resource} of ${balance} sun delegated by ${owner} to ${receiver}`,
    ],
    json: { owner_address: hexlify(bytesOf(m, 1)).slice(2), receiver_address: hexlify(bytesOf(m, 4)).slice(2), balance: balance.toString() },
  };
}

/**
 * Reads a `tron-tx` step: TRON's transaction JSON (`txID`, `raw_data`, `raw_data_hex`). What is
 * signed is `txID`, the SHA-256 of `raw_data_hex`: the signer decodes `raw_data_hex` itself (the
 * protobuf `Transaction.raw`), checks `txID` is its hash and that the JSON `raw_data` (what a node
 * would rebuild the transaction from) says the same.
 */
export function checkTronStep(read: ReadStep, ctx: StepContext, key: SigningKey, signerAddress: string): Omit<CheckedStep, 'signer'> {
  const where = ctx.where;
  let tx: { txID?: unknown; raw_data?: Record<string, unknown>; raw_data_hex?: unknown; signature?: unknown };
  try {
    tx = JSON.parse(read.step.unsigned.data) as typeof tx;
  } catch {
    return refuse('plan_unreadable', `${where}: unsigned.data is not TRON's transaction JSON.`);
  }
  if (
    typeof tx !== 'object' ||
    tx === null ||
    typeof tx.raw_data_hex !== 'string' ||
    !/^(?:[0-9a-f]{2})+$/.test(tx.raw_data_hex) ||
    typeof tx.txID !== 'string'
  ) {
    refuse('plan_unreadable', `${where}: the TRON transaction needs txID and raw_data_hex (lower-case hex).`);
  }
  if (tx.signature !== undefined && !(Array.isArray(tx.signature) && tx.signature.length === 0))
    refuse('plan_unreadable', `${where}: the transaction is already signed.`);
  const raw = getBytes(`0x${tx.raw_data_hex}`);
  const txID = sha256(raw).slice(2);
  if (tx.txID !== txID) refuse('plan_mismatch', `${where}: txID ${String(tx.txID)} is not the hash of raw_data_hex (${txID}).`);

  // Transaction.raw: ref_block_bytes 1, ref_block_num 3, ref_block_hash 4, expiration 8, data 10, contract 11, timestamp 14, fee_limit 18.
  const rawFields = message(
    raw,
    { 1: 'bytes', 3: 'varint', 4: 'bytes', 8: 'varint', 10: 'bytes', 11: 'repeated', 14: 'varint', 18: 'varint' },
    'transaction',
    where,
  );
  const contracts = rawFields.get(11) ?? [];
  if (contracts.length !== 1) refuse('unsupported', `${where}: ${contracts.length} contracts in one transaction; the signer signs one.`);
  const contract = message(contracts[0]!.bytes!, { 1: 'varint', 2: 'bytes', 5: 'varint' }, 'contract', where);
  if (num(contract, 5) !== 0n)
    refuse('unsupported', `${where}: a transaction under permission ${num(contract, 5)} (multi-signature); the signer signs with the owner permission.`);
  const any = message(bytesOf(contract, 2), { 1: 'bytes', 2: 'bytes' }, 'contract parameter', where);
  const type = Number(num(contract, 1));
  const typeUrl = new TextDecoder().decode(bytesOf(any, 1));
  if (typeUrl !== `type.googleapis.com/protocol.${TYPE_NAMES[type] ?? '?'}`)
    refuse('plan_unreadable', `${where}: the contract's type_url ${typeUrl} is not its type's.`);
  const decoded = readContract(type, bytesOf(any, 2), ctx, where);
  if (!sameTronAddress(decoded.owner, signerAddress))
    refuse('plan_mismatch', `${where}: the transaction is from ${decoded.owner}, not its signer ${signerAddress}.`);
  const memo = bytesOf(rawFields, 10);
  const expiration = num(rawFields, 8);
  const feeLimit = num(rawFields, 18);

  // The JSON a node would rebuild the transaction from must say what raw_data_hex says.
  const json = tx.raw_data;
  const jsonContract = (Array.isArray(json?.['contract']) ? json['contract'] : [])[0] as
    { type?: unknown; parameter?: { value?: Record<string, unknown> } } | undefined;
  const jsonValue = jsonContract?.parameter?.value ?? {};
  const agree =
    json !== undefined &&
    Array.isArray(json['contract']) &&
    json['contract'].length === 1 &&
    jsonContract?.type === TYPE_NAMES[type] &&
    String(json['expiration']) === expiration.toString() &&
    String(json['fee_limit'] ?? 0) === feeLimit.toString() &&
    Object.entries(decoded.json).every(([k, v]) =>
      k.endsWith('_address')
        ? sameTronAddress(String(jsonValue[k]), String(v))
        : String(jsonValue[k] ?? (k === 'amount' || k === 'balance' ? 0 : '')).toLowerCase() === String(v),
    );
  if (!agree) refuse('plan_mismatch', `${where}: the transaction's raw_data JSON does not say what raw_data_hex says.`);

  checkMoves(read, decoded.transfers, where);
  checkTo(read, decoded.targets, sameTronAddress, where);
  const details = [...decoded.lines, `expires ${timeOf(expiration / 1000n)}, txID ${txID}`];
  if (feeLimit > 0n) details.push(`fee limit ${feeLimit} sun (the most energy it may burn)`);
  if (memo.length > 0) details.push(`memo ${JSON.stringify(new TextDecoder().decode(memo))}`);
  return checkedStep(read, {
    transfers: decoded.transfers,
    parties: decoded.parties,
    details,
    notes: expiration <= BigInt(Date.now()) ? [`${where}: the transaction expired at ${timeOf(expiration / 1000n)}; the network will refuse it.`] : [],
    feeUnits: feeLimit > 0n ? feeLimit : null,
    sign: () => {
      const signature = key.sign(`0x${txID}`);
      // r ‖ s ‖ v (v = 27 + recovery id), 65 bytes hex without 0x: TRON's (and tronweb's) form.
      const hex = `${signature.r.slice(2)}${signature.s.slice(2)}${signature.v.toString(16)}`;
      return JSON.stringify({ ...tx, signature: [hex] });
    },
  });
}
