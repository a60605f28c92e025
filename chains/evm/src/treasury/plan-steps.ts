import { type AccountSource, type AccountStep, fromBaseUnits, type OperatorAccount, type StepSigner } from '@gw/chain-api';
import { encodeRlp, getAddress, Transaction, type AuthorizationLike, type TransactionLike } from 'ethers';
import type { FeeMarket } from './fee-market.js';

/** The signer of a deposit address's step: its key, index and full path (`m/44'/60'/0'/0/<index>`). */
export function depositSigner(source: AccountSource, accountPath: string): StepSigner {
  return { kind: 'deposit', address: getAddress(source.address), key: source.key, index: source.index, path: `${accountPath}/0/${source.index}` };
}

export function operatorSigner(account: OperatorAccount): StepSigner {
  return { kind: 'operator', account: { ...account, address: getAddress(account.address) } };
}

/** The fields of one EVM transaction of a plan; fees come from the plan's {@link FeeMarket}. */
export interface EvmTxFields {
  readonly nonce: bigint;
  readonly to: string;
  readonly value: bigint;
  readonly data: string;
  readonly gasLimit: bigint;
  /** Present: an EIP-7702 (type 4) transaction carrying these signed authorizations. */
  readonly authorizationList?: readonly AuthorizationLike[];
}

/**
 * The unsigned transaction of a step: EIP-1559 (type 2), or EIP-7702 (type 4) with an
 * authorization list; its serialized unsigned form is what the step carries and the signer signs.
 */
export function evmTransaction(fees: FeeMarket, fields: EvmTxFields): Transaction {
  return Transaction.from({
    type: fields.authorizationList ? 4 : 2,
    chainId: fees.chainId,
    nonce: Number(fields.nonce),
    to: getAddress(fields.to),
    value: fields.value,
    data: fields.data,
    gasLimit: fields.gasLimit,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    ...(fields.authorizationList ? { authorizationList: [...fields.authorizationList] } : {}),
  } as TransactionLike);
}

/**
 * The serialized unsigned form of a step's transaction, `0x02 ‖ rlp([chainId, nonce, tip, max fee,
 * gas, to, value, data, []])` for type 2 written straight with the RLP encoder (a 1,000-address
 * plan has 2,000 of them; ethers' Transaction object takes half a millisecond each), type 4
 * through ethers. plan-calldata.test.ts checks the type-2 form against ethers byte for byte.
 */
export function unsignedSerialized(fees: FeeMarket, fields: EvmTxFields): string {
  if (fields.authorizationList) return evmTransaction(fees, fields).unsignedSerialized;
  const fields2 = [
    rlpQuantity(fees.chainId),
    rlpQuantity(fields.nonce),
    rlpQuantity(fees.maxPriorityFeePerGas),
    rlpQuantity(fees.maxFeePerGas),
    rlpQuantity(fields.gasLimit),
    fields.to.toLowerCase(),
    rlpQuantity(fields.value),
    fields.data,
    [],
  ];
  return `0x02${encodeRlp(fields2).slice(2)}`;
}

function rlpQuantity(n: bigint): string {
  if (n === 0n) return '0x';
  const hex = n.toString(16);
  return `0x${hex.length % 2 ? '0' : ''}${hex}`;
}

/** A transaction step: what it moves, its maximum fee (gas limit × max fee), signed by `signer`. */
export function transactionStep(input: {
  readonly id: string;
  readonly round: 1 | 2;
  readonly stage: number;
  readonly description: string;
  readonly signer: StepSigner;
  readonly fees: FeeMarket;
  readonly tx: EvmTxFields;
  readonly moves: Readonly<Record<string, bigint>>;
  /** Where the value goes, when not `tx.to` (a token transfer's recipient, the destination of a sweep). */
  readonly beneficiary?: string;
}): AccountStep {
  return {
    id: input.id,
    round: input.round,
    stage: input.stage,
    description: input.description,
    signer: input.signer,
    kind: 'transaction',
    unsigned: { format: 'evm-tx', data: unsignedSerialized(input.fees, input.tx) },
    nonce: input.tx.nonce,
    moves: input.moves,
    feeUnits: input.tx.gasLimit * input.fees.maxFeePerGas,
    to: getAddress(input.beneficiary ?? input.tx.to),
  };
}

/** The address a step's signer signs with. */
export function signerAddress(step: AccountStep): string {
  return step.signer.kind === 'deposit' ? step.signer.address : step.signer.account.address;
}

/** Base units as a decimal amount of `decimals` for descriptions (`0.000042`). */
export function formatUnits(units: bigint, decimals: number): string {
  return units < 0n ? `-${fromBaseUnits(-units, decimals)}` : fromBaseUnits(units, decimals);
}
