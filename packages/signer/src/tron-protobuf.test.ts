import test from 'ava';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccountPlanFile } from '@gw/chain-api';
import { TronWeb } from 'tronweb';
import { accountPlan, step, tronAccount } from './account-testing.js';
import { MNEMONIC, runSignerHere } from './testing.js';

// The security review of issue 36: the TRON protobuf reader took the last occurrence of a field and
// ignored its wire type, so an amount encoded twice (a varint, then length-delimited bytes) read 0.
// Here TransferContract transactions are encoded by hand, field by field, to feed it such bytes.

const dir = mkdtempSync(join(tmpdir(), 'gateway-signer-tron-pb-'));
let files = 0;
const sign = (plan: AccountPlanFile) => {
  const path = join(dir, `${files++}-plan.json`);
  writeFileSync(path, JSON.stringify(plan));
  return runSignerHere(['sign', path, '--key-stdin', '--yes', '--out', '-'], MNEMONIC);
};

const varint = (value: bigint): number[] => {
  const out: number[] = [];
  let v = value;
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
};
const num = (field: number, value: bigint): number[] => [...varint(BigInt(field << 3)), ...varint(value)];
const bytes = (field: number, data: Uint8Array | number[]): number[] => [...varint(BigInt((field << 3) | 2)), ...varint(BigInt(data.length)), ...data];
const hexOf = (address: string): Uint8Array => Buffer.from(TronWeb.address.toHex(address), 'hex');

/** A TransferContract transaction whose contract value is `value` (raw protobuf), with raw_data JSON saying `amount`. */
function transferTx(owner: string, to: string, value: number[], amount: bigint) {
  const expiration = BigInt(Date.now() + 60_000);
  const any = [...bytes(1, Buffer.from('type.googleapis.com/protocol.TransferContract')), ...bytes(2, value)];
  const contract = [...num(1, 1n), ...bytes(2, any)];
  const raw = Buffer.from([
    ...bytes(1, [0x6d, 0x1e]),
    ...bytes(4, Buffer.from('8c2d7f34a6b1e905', 'hex')),
    ...num(8, expiration),
    ...bytes(11, contract),
    ...num(14, expiration - 60_000n),
  ]);
  return {
    txID: createHash('sha256').update(raw).digest('hex'),
    raw_data: {
      contract: [
        {
          type: 'TransferContract',
          parameter: {
            value: { owner_address: TronWeb.address.toHex(owner), to_address: TronWeb.address.toHex(to), amount: Number(amount) },
            type_url: 'type.googleapis.com/protocol.TransferContract',
          },
        },
      ],
      ref_block_bytes: '6d1e',
      ref_block_hash: '8c2d7f34a6b1e905',
      expiration: Number(expiration),
      timestamp: Number(expiration - 60_000n),
    },
    raw_data_hex: raw.toString('hex'),
  };
}

const DESTINATION = TronWeb.createRandom().address as string;

function plan(value: number[], amount: bigint) {
  const deposit = tronAccount(3);
  const destination = DESTINATION;
  const tx = transferTx(deposit.address, destination, value, amount);
  return accountPlan({ chain: 'tron', network: 'nile', coin: 'trx', method: 'native', destination, moved_units: amount.toString() }, [
    step({
      id: 'native-3',
      signer: { address: deposit.address, path: "m/44'/195'/0'/0/3" },
      format: 'tron-tx',
      data: JSON.stringify(tx),
      nonce: null,
      to: destination,
      moves: { trx: amount },
    }),
  ]);
}

const owner = () => hexOf(tronAccount(3).address);
const someone = hexOf(DESTINATION);

test('a hand-encoded TransferContract in canonical form is signed (the refusals below are for their defect alone)', async (t) => {
  const run = await sign(plan([...bytes(1, owner()), ...bytes(2, someone), ...num(3, 5_000_000n)], 5_000_000n));
  t.is(run.code, 0, run.stderr);
  t.regex(run.stderr, /TransferContract: 5000000 sun from/);
});

test('an amount encoded twice, as a varint then as bytes, is refused (it read 0 before)', async (t) => {
  const run = await sign(plan([...bytes(1, owner()), ...bytes(2, someone), ...num(3, 5_000_000n), ...bytes(3, [0])], 0n));
  t.not(run.code, 0);
  t.regex(run.stderr, /refused \(plan_unreadable\): step native-3: the TransferContract's field 3 has the wrong protobuf wire type/);
});

test('a singular field that appears twice is refused', async (t) => {
  const run = await sign(plan([...bytes(1, owner()), ...bytes(2, someone), ...num(3, 5_000_000n), ...num(3, 1n)], 1n));
  t.regex(run.stderr, /refused \(plan_unreadable\): step native-3: the TransferContract's field 3 appears twice/);
  const twoRecipients = await sign(plan([...bytes(1, owner()), ...bytes(2, someone), ...bytes(2, someone), ...num(3, 1n)], 1n));
  t.regex(twoRecipients.stderr, /refused \(plan_unreadable\): step native-3: the TransferContract's field 2 appears twice/);
});

test('an overlong number or fields out of order are refused: the bytes must be their canonical encoding', async (t) => {
  // 1 as a two-byte varint (0x81 0x00).
  const overlong = await sign(plan([...bytes(1, owner()), ...bytes(2, someone), 3 << 3, 0x81, 0x00], 1n));
  t.regex(overlong.stderr, /refused \(plan_unreadable\): step native-3: the TransferContract is not in its canonical protobuf encoding/);
  const reordered = await sign(plan([...bytes(2, someone), ...bytes(1, owner()), ...num(3, 1n)], 1n));
  t.regex(reordered.stderr, /refused \(plan_unreadable\): step native-3: the TransferContract's fields are not in their canonical order/);
});
