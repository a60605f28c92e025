import {
  fromBaseUnits,
  treasuryChainErrors,
  type AccountPlanBuild,
  type AccountStep,
  type AccountSweepMethod,
  type OperatorAccount,
  type StepSigner,
} from '@gw/chain-api';
import {
  bandwidthBytes,
  delegateEnergy,
  referenceBlock,
  trc20Transfer,
  trxTransfer,
  undelegateEnergy,
  type ReferenceBlock,
  type TronUnsignedTx,
} from './offline-transaction.js';
import { accountCreationCost, bandwidthCost, delegationFor, energyCost, feeLimitFor } from './resource-costs.js';
import type { OperatorState, SourceState, SweepState } from './sweep-state.js';

const TRX_DECIMALS = 6;
const trx = (sun: bigint): string => `${fromBaseUnits(sun, TRX_DECIMALS)} TRX`;

/** An operator account's bandwidth, used up step by step as its transactions are planned. */
class OperatorBandwidth {
  private left: bigint | undefined;
  constructor(state: OperatorState) {
    this.left = state.onChain === undefined ? undefined : state.bandwidthLeft;
  }
  /** Sun this transaction burns, after what the account's own bandwidth covers. */
  spend(tx: TronUnsignedTx, state: SweepState): bigint {
    const bytes = bandwidthBytes(tx.raw_data_hex);
    const cost = bandwidthCost(bytes, this.left, state.prices);
    if (cost === 0n && this.left !== undefined) this.left -= bytes;
    return cost;
  }
}

interface StepInput {
  readonly id: string;
  readonly stage: number;
  readonly description: string;
  readonly signer: StepSigner;
  readonly tx: TronUnsignedTx;
  readonly moves: Readonly<Record<string, bigint>>;
  readonly feeUnits: bigint;
  readonly to: string;
}

function step(input: StepInput): AccountStep {
  return {
    id: input.id,
    round: 1,
    stage: input.stage,
    description: input.description,
    signer: input.signer,
    kind: 'transaction',
    unsigned: { format: 'tron-tx', data: JSON.stringify(input.tx) },
    nonce: null,
    moves: input.moves,
    feeUnits: input.feeUnits,
    to: input.to,
  };
}

const depositSigner = (s: SourceState): StepSigner => ({ kind: 'deposit', address: s.source.address, key: s.source.key, index: s.source.index, path: s.path });
const operatorSigner = (account: OperatorAccount): StepSigner => ({ kind: 'operator', account });

function requireOperator(state: OperatorState | undefined, role: OperatorAccount['role'], why: string): OperatorState {
  if (state === undefined) throw treasuryChainErrors.treasury_operator_account_missing({ message: `No ${role} account is configured for TRON ${why}.` });
  return state;
}

function context(state: SweepState, ref: ReferenceBlock, method: string): AccountPlanBuild['context'] {
  return {
    method,
    referenceBlock: state.block.height.toString(),
    referenceBlockId: state.block.blockId,
    expiration: ref.expiration,
    energyFeeSun: state.prices.energyFee.toString(),
    bandwidthFeeSun: state.prices.bandwidthFee.toString(),
  };
}

/** Renumbers stages so a plan without top-ups starts at stage 1. */
function compactStages(steps: AccountStep[]): AccountStep[] {
  const used = [...new Set(steps.map((s) => s.stage))].sort((a, b) => a - b);
  return steps.map((s) => ({ ...s, stage: used.indexOf(s.stage) + 1 }));
}

type Skipped = AccountPlanBuild['skipped'][number];

function movable(state: SweepState, s: SourceState): boolean {
  return s.units > 0n && s.units >= state.minUnits;
}

function finish(
  state: SweepState,
  method: AccountSweepMethod,
  ref: ReferenceBlock,
  steps: AccountStep[],
  skipped: Skipped[],
  operatorPays: bigint,
): AccountPlanBuild {
  if (!steps.some((s) => s.signer.kind === 'deposit')) {
    throw treasuryChainErrors.treasury_insufficient_value({ message: `No source holds ${state.coin} worth moving by ${method}.` });
  }
  const ordered = compactStages(steps);
  return {
    method,
    coin: state.coin,
    destination: state.destination,
    steps: ordered,
    rounds: 1,
    movedUnits: ordered.filter((s) => s.signer.kind === 'deposit').reduce((sum, s) => sum + (s.moves[state.coin] ?? 0n), 0n),
    feeUnits: ordered.reduce((sum, s) => sum + s.feeUnits, 0n),
    operatorPaysUnits: operatorPays,
    skipped,
    context: context(state, ref, method),
  };
}

/**
 * `native`: each address sends its TRX less its own fee (bandwidth it cannot cover, and on the
 * first transfer the creation of the destination account if it does not exist yet). One stage.
 */
export function planNative(state: SweepState): AccountPlanBuild {
  const ref = referenceBlock(state.block);
  const steps: AccountStep[] = [];
  const skipped: Skipped[] = [];
  let destinationExists = state.destinationExists;
  for (const s of state.sources) {
    if (!movable(state, s) || s.account === undefined) {
      skipped.push({ address: s.source.address, units: s.units, costUnits: 0n });
      continue;
    }
    // Sized with the whole balance: a smaller amount encodes in no more bytes.
    const probe = trxTransfer(s.source.address, state.destination, s.units, ref);
    const fee = bandwidthCost(bandwidthBytes(probe.raw_data_hex), s.bandwidthLeft, state.prices) + (destinationExists ? 0n : accountCreationCost(state.prices));
    if (s.units <= fee) {
      skipped.push({ address: s.source.address, units: s.units, costUnits: fee });
      continue;
    }
    destinationExists = true;
    const amount = s.units - fee;
    steps.push(
      step({
        id: `transfer-${s.source.index}`,
        stage: 1,
        description: `Send ${trx(amount)} from ${s.source.address} to ${state.destination}`,
        signer: depositSigner(s),
        tx: trxTransfer(s.source.address, state.destination, amount, ref),
        moves: { [state.coin]: amount },
        feeUnits: fee,
        to: state.destination,
      }),
    );
  }
  return finish(state, 'native', ref, steps, skipped, 0n);
}

interface TokenMove {
  readonly s: SourceState;
  readonly energy: bigint;
  readonly tx: TronUnsignedTx;
  /** Bandwidth the transfer burns from the address's TRX. */
  readonly bandwidthSun: bigint;
  readonly feeLimit: bigint;
}

/** The TRC-20 transfers of a token plan; sources whose simulated transfer fails are skipped. */
function tokenMoves(state: SweepState, ref: ReferenceBlock, skipped: Skipped[]): TokenMove[] {
  if (state.contract === undefined) throw treasuryChainErrors.treasury_method_unavailable({ message: `${state.coin} is no TRC-20 token.` });
  const moves: TokenMove[] = [];
  for (const s of state.sources) {
    if (!movable(state, s) || s.simulation === undefined || s.simulation.reverted !== undefined) {
      skipped.push({ address: s.source.address, units: s.units, costUnits: 0n });
      continue;
    }
    const energy = s.simulation.energyUsed;
    const feeLimit = feeLimitFor(energy, state.prices);
    const tx = trc20Transfer(s.source.address, state.contract, state.destination, s.units, feeLimit, ref);
    moves.push({ s, energy, tx, feeLimit, bandwidthSun: bandwidthCost(bandwidthBytes(tx.raw_data_hex), s.bandwidthLeft, state.prices) });
  }
  return moves;
}

function transferStep(state: SweepState, move: TokenMove, stage: number, feeUnits: bigint, how: string): AccountStep {
  return step({
    id: `transfer-${move.s.source.index}`,
    stage,
    description: `Send ${fromBaseUnits(move.s.units, state.decimals)} ${state.coin} from ${move.s.source.address} to ${state.destination} (${how})`,
    signer: depositSigner(move.s),
    tx: move.tx,
    moves: { [state.coin]: move.s.units },
    feeUnits,
    to: state.destination,
  });
}

/** A top-up of `amount` sun from the funding account; creating the account when it does not exist. */
function topUpStep(
  state: SweepState,
  funding: OperatorState,
  bandwidth: OperatorBandwidth,
  s: SourceState,
  amount: bigint,
  stage: number,
  ref: ReferenceBlock,
): AccountStep {
  const tx = trxTransfer(funding.account.address, s.source.address, amount, ref);
  const fee = s.account === undefined ? accountCreationCost(state.prices) : bandwidth.spend(tx, state);
  return step({
    id: `topup-${s.source.index}`,
    stage,
    description: `Top up ${trx(amount)} to ${s.source.address} for its ${state.coin} transfer${s.account === undefined ? ' (activates it)' : ''}`,
    signer: operatorSigner(funding.account),
    tx,
    moves: { trx: amount },
    feeUnits: fee,
    to: s.source.address,
  });
}

function checkFunding(funding: OperatorState | undefined, steps: readonly AccountStep[]): void {
  if (funding === undefined) return;
  const needed = steps
    .filter((s) => s.signer.kind === 'operator' && s.signer.account.role === 'funding')
    .reduce((sum, s) => sum + (s.moves['trx'] ?? 0n) + s.feeUnits, 0n);
  const has = funding.onChain?.balance ?? 0n;
  if (needed > has) {
    throw treasuryChainErrors.treasury_insufficient_value({
      message: `The funding account ${funding.account.address} holds ${trx(has)}; the plan needs ${trx(needed)}.`,
    });
  }
}

/**
 * `energy_burn`: each address pays its transfer's energy by burning TRX. Where it holds less TRX
 * than the transfer's fee limit plus bandwidth, the funding account tops it up first (stage 1);
 * then the transfers (stage 2).
 */
export function planEnergyBurn(state: SweepState): AccountPlanBuild {
  const ref = referenceBlock(state.block);
  const skipped: Skipped[] = [];
  const moves = tokenMoves(state, ref, skipped);
  const steps: AccountStep[] = [];
  let operatorPays = 0n;
  const bandwidth = state.funding ? new OperatorBandwidth(state.funding) : undefined;
  for (const move of moves) {
    const needs = move.feeLimit + move.bandwidthSun;
    const has = move.s.account?.balance ?? 0n;
    if (needs > has) {
      const funding = requireOperator(state.funding, 'funding', `to top up ${move.s.source.address}, which lacks ${trx(needs - has)} for its energy`);
      const topUp = topUpStep(state, funding, bandwidth!, move.s, needs - has, 1, ref);
      steps.push(topUp);
      operatorPays += needs - has + topUp.feeUnits;
    }
    steps.push(transferStep(state, move, 2, energyCost(move.energy, state.prices) + move.bandwidthSun, `${move.energy} energy burned`));
  }
  checkFunding(state.funding, steps);
  return finish(state, 'energy_burn', ref, steps, skipped, operatorPays);
}

/**
 * `energy_delegation`: the staking account lends each address the energy its transfer needs
 * (`DelegateResource`, stage 1), the transfers pay bandwidth only (stage 2), and the staking account
 * takes the energy back (`UnDelegateResource`, stage 3). An address that does not exist yet or lacks
 * the TRX for its bandwidth is topped up by the funding account first (stage 0, renumbered).
 */
export function planEnergyDelegation(state: SweepState): AccountPlanBuild {
  const staking = requireOperator(state.staking, 'staking', 'to delegate energy from');
  const ref = referenceBlock(state.block);
  const skipped: Skipped[] = [];
  const moves = tokenMoves(state, ref, skipped);
  const steps: AccountStep[] = [];
  const stakingBandwidth = new OperatorBandwidth(staking);
  const fundingBandwidth = state.funding ? new OperatorBandwidth(state.funding) : undefined;
  let operatorPays = 0n;
  let delegated = 0n;
  for (const move of moves) {
    const has = move.s.account?.balance ?? 0n;
    if (move.s.account === undefined || move.bandwidthSun > has) {
      const amount = move.bandwidthSun > has ? move.bandwidthSun - has : 1n;
      const funding = requireOperator(
        state.funding,
        'funding',
        `to top up ${move.s.source.address} for its bandwidth (energy can only be delegated to an existing account)`,
      );
      const topUp = topUpStep(state, funding, fundingBandwidth!, move.s, amount, 0, ref);
      steps.push(topUp);
      operatorPays += amount + topUp.feeUnits;
    }
    const balance = delegationFor(move.energy, staking.totalEnergyLimit, staking.totalEnergyWeight);
    delegated += balance;
    // The staking account signs both: the delegation before the transfer, its reclaim after.
    const stakingStep = (id: string, stage: number, description: string, tx: TronUnsignedTx): AccountStep =>
      step({
        id,
        stage,
        description,
        signer: operatorSigner(staking.account),
        tx,
        moves: {},
        feeUnits: stakingBandwidth.spend(tx, state),
        to: move.s.source.address,
      });
    const delegate = stakingStep(
      `delegate-${move.s.source.index}`,
      1,
      `Delegate the energy of ${trx(balance)} staked to ${move.s.source.address} (${move.energy} energy for its transfer)`,
      delegateEnergy(staking.account.address, move.s.source.address, balance, ref),
    );
    steps.push(delegate);
    steps.push(transferStep(state, move, 2, move.bandwidthSun, 'energy delegated'));
    const reclaim = stakingStep(
      `reclaim-${move.s.source.index}`,
      3,
      `Reclaim the energy of ${trx(balance)} delegated to ${move.s.source.address}`,
      undelegateEnergy(staking.account.address, move.s.source.address, balance, ref),
    );
    steps.push(reclaim);
    operatorPays += delegate.feeUnits + reclaim.feeUnits;
  }
  // Stake 2.0 moves a delegated amount out of `frozenV2` (into `delegated_frozenV2_balance_for_energy`):
  // what is left there is the most it can still lend. The node also holds back the share of energy
  // the staking account used itself today, and refuses a delegation beyond that at broadcast.
  const available = staking.onChain?.frozenForEnergy ?? 0n;
  if (delegated > available) {
    throw treasuryChainErrors.treasury_insufficient_value({
      message: `The staking account ${staking.account.address} can delegate the energy of ${trx(available)} staked; the plan needs ${trx(delegated)}.`,
    });
  }
  const stakingFees = steps.filter((s) => s.signer.kind === 'operator' && s.signer.account.role === 'staking').reduce((sum, s) => sum + s.feeUnits, 0n);
  if (stakingFees > (staking.onChain?.balance ?? 0n)) {
    throw treasuryChainErrors.treasury_insufficient_value({
      message: `The staking account ${staking.account.address} cannot pay the ${trx(stakingFees)} of bandwidth its delegations burn.`,
    });
  }
  checkFunding(state.funding, steps);
  return finish(state, 'energy_delegation', ref, steps, skipped, operatorPays);
}

/** The planner of `method`. */
export function planSweep(state: SweepState, method: AccountSweepMethod): AccountPlanBuild {
  if (method === 'native' && state.contract === undefined) return planNative(state);
  if (method === 'energy_burn' && state.contract !== undefined) return planEnergyBurn(state);
  if (method === 'energy_delegation' && state.contract !== undefined) return planEnergyDelegation(state);
  throw treasuryChainErrors.treasury_method_unavailable({ message: `TRON cannot move ${state.coin} by ${method}.` });
}
