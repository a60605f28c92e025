import type { AccountSource, OperatorAccount } from '@gw/chain-api';
import type { ChainPrices, NodeAccount, NodeBlockRef, NodeConstantCall } from './node-answers.js';

/**
 * The chain state a TRON plan is built from, read once (`TronTreasury` reads it; the planners are
 * pure over it): the reference block, prices, and every account the plan touches.
 */
export interface SweepState {
  readonly coin: string;
  /** The TRC-20 contract of `coin`; undefined for TRX. */
  readonly contract: string | undefined;
  readonly decimals: number;
  readonly destination: string;
  readonly destinationExists: boolean;
  readonly block: NodeBlockRef;
  readonly prices: ChainPrices;
  readonly sources: readonly SourceState[];
  readonly minUnits: bigint;
  readonly funding: OperatorState | undefined;
  readonly staking: OperatorState | undefined;
}

/** A deposit address of the plan as the chain has it now. */
export interface SourceState {
  readonly source: AccountSource;
  /** Derivation path of its key (checked against the address). */
  readonly path: string;
  /** Undefined: not on chain (never received TRX). */
  readonly account: NodeAccount | undefined;
  /** Bandwidth left today; undefined when the account does not exist. */
  readonly bandwidthLeft: bigint | undefined;
  /** Its balance of the plan's coin. */
  readonly units: bigint;
  /** Token plans: the simulated transfer of `units` to the destination (undefined for TRX, or nothing to move). */
  readonly simulation: NodeConstantCall | undefined;
}

/** A configured operator account (funding, staking) as the chain has it now. */
export interface OperatorState {
  readonly account: OperatorAccount;
  readonly onChain: NodeAccount | undefined;
  readonly bandwidthLeft: bigint | undefined;
  readonly totalEnergyLimit: bigint;
  readonly totalEnergyWeight: bigint;
}
