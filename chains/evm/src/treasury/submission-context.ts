import type { OperatorAccount } from '@gw/chain-api';
import { getAddress } from 'ethers';
import type { FeeMarket } from './fee-market.js';
import { planContext } from './plan-native.js';
import type { SweepState } from './sweep-state.js';

type PlanContext = Readonly<Record<string, string | number | boolean>>;

/** What the gas address's submissions (EIP-7702 sweeps, EIP-3009 transfers) are built from, in round 1 and again in round 2. */
export interface SubmissionContext {
  readonly fees: FeeMarket;
  readonly token: string;
  /** Multicall3's address; empty: none on the network, one call a submission. */
  readonly multicall3: string;
  readonly gasAccount: OperatorAccount;
  /** The gas account's nonce for the first submission. */
  readonly gasNonce: bigint;
  readonly tokenTransferGas: bigint;
  readonly coinDecimals: number;
}

/** The plan context a method whose gas address submits `token` keeps for round 2 (beside the method's own entries). */
export function submissionContext(state: SweepState, token: string, gas: NonNullable<SweepState['gas']>): Record<string, string | number | boolean> {
  return {
    ...planContext(state),
    token,
    multicall3: state.network.multicall3 ?? '',
    gasAddress: getAddress(gas.account.address),
    gasPath: gas.account.path,
    gasNonce: gas.nonce.toString(),
    tokenTransferGas: state.tokenTransferGas.toString(),
    coinDecimals: state.coinDecimals,
  };
}

/** The submission facts read back from a plan context written by {@link submissionContext}. */
export function readSubmissionContext(context: PlanContext): SubmissionContext {
  return {
    fees: {
      chainId: BigInt(String(context['chainId'])),
      maxFeePerGas: BigInt(String(context['maxFeePerGas'])),
      maxPriorityFeePerGas: BigInt(String(context['maxPriorityFeePerGas'])),
    },
    token: String(context['token']),
    multicall3: String(context['multicall3']),
    gasAccount: { role: 'gas', address: String(context['gasAddress']), path: String(context['gasPath']) },
    gasNonce: BigInt(String(context['gasNonce'])),
    tokenTransferGas: BigInt(String(context['tokenTransferGas'])),
    coinDecimals: Number(context['coinDecimals']),
  };
}
