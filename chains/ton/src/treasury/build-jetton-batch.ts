import { internal, SendMode, type Address } from '@ton/core';
import { treasuryChainErrors, type AccountPlanBuild, type AccountStep, type OperatorAccount } from '@gw/chain-api';
import { formatTonAddress } from '../derive.js';
import { depositRequest } from './deposit-request.js';
import { planRequest } from './external-step.js';
import { jettonTransferBody } from './jetton-transfer.js';
import { tonText, type PreparedSource, type TonPlanContext } from './plan-context.js';
import {
  JETTON_EXTERNAL_FEE,
  JETTON_FORWARD_TON_AMOUNT,
  JETTON_TRANSFER_FEE,
  JETTON_TRANSFER_VALUE,
  TOP_UP_EXTERNAL_BASE_FEE,
  TOP_UP_PER_MESSAGE_FEE,
  V5R1_MAX_MESSAGES,
} from './ton-fees.js';
import type { WalletState } from './wallet-states.js';

/** The TON a subwallet must hold to send its jetton transfer: the message's value and its own external. */
export const JETTON_MOVE_TON = JETTON_TRANSFER_VALUE + JETTON_EXTERNAL_FEE;

/** The operator's gas subwallet (a subwallet of the same key) and its state. */
export interface PreparedGasWallet {
  readonly account: OperatorAccount;
  readonly subwallet: number;
  readonly state: WalletState;
}

/** The fee of a top-up external carrying `messages` messages. */
export const topUpFee = (messages: number): bigint => TOP_UP_EXTERNAL_BASE_FEE + TOP_UP_PER_MESSAGE_FEE * BigInt(messages);

/**
 * `jetton_batch`: the jettons of each subwallet to the destination.
 *
 * Stage 1: the operator's gas subwallet tops up, in one external of up to 255 messages
 * (non-bounceable, so an undeployed subwallet keeps them), each subwallet short of
 * `JETTON_MOVE_TON` by exactly what it lacks. More than 255 top-ups take one external per 255, each
 * its own stage (they carry consecutive seqnos of one wallet, which must land in order).
 *
 * Last stage: each subwallet's external (with its StateInit when undeployed) sends a TEP-74
 * `transfer` of its whole jetton balance to its jetton wallet, with `response_destination` the gas
 * subwallet and 1 nanoton forwarded to the destination. A subwallet that needed a top-up holds only
 * gas money (and TON worth less than moving it): its message carries its whole balance (mode 128),
 * so nothing is stranded and what the jetton wallets do not use returns to the gas subwallet as
 * excess. Each transfer step's data states the jetton master and the subwallet's jetton wallet
 * (`jetton_master`, `jetton_wallet`): a signer cannot compute a jetton wallet offline for every jetton,
 * and shows the TON sent there as going to the jetton wallet the plan states. A subwallet that holds more TON than the transfer needs (a TON payment too) sends
 * `JETTON_TRANSFER_VALUE` paying its fee apart (mode 1) and keeps the rest for a `native` sweep.
 */
export async function buildJettonBatchPlan(
  ctx: TonPlanContext,
  coin: string,
  master: Address,
  sources: readonly PreparedSource[],
  gas: PreparedGasWallet,
  minUnits: bigint,
): Promise<AccountPlanBuild> {
  const movable: { s: PreparedSource; topUp: bigint; jettonWallet: Address }[] = [];
  const skipped: { address: string; units: bigint; costUnits: bigint }[] = [];
  for (const s of sources) {
    const { jettons, jettonWallet, ton } = s.state;
    if (jettonWallet === undefined || jettons === 0n || jettons < minUnits || s.state.status === 'frozen') {
      skipped.push({ address: s.source.address, units: jettons, costUnits: JETTON_TRANSFER_FEE });
      continue;
    }
    movable.push({ s, topUp: ton >= JETTON_MOVE_TON ? 0n : JETTON_MOVE_TON - ton, jettonWallet });
  }
  if (movable.length === 0) throw treasuryChainErrors.treasury_insufficient_value({ message: `No source holds ${coin} (or the minimum asked).` });

  const gasText = formatTonAddress(gas.state.address, ctx.network);
  const needing = movable.filter((m) => m.topUp > 0n);
  const chunks: (typeof needing)[] = [];
  for (let i = 0; i < needing.length; i += V5R1_MAX_MESSAGES) chunks.push(needing.slice(i, i + V5R1_MAX_MESSAGES));
  const topUpTotal = needing.reduce((sum, m) => sum + m.topUp, 0n);
  const topUpFees = chunks.reduce((sum, c) => sum + topUpFee(c.length), 0n);
  if (chunks.length > 0 && gas.state.ton < topUpTotal + topUpFees) {
    throw treasuryChainErrors.treasury_insufficient_value({
      message: `The gas subwallet ${gasText} holds ${tonText(gas.state.ton)}; the top-ups need ${tonText(topUpTotal + topUpFees)} with their fees.`,
    });
  }

  const steps: AccountStep[] = [];
  for (const [k, chunk] of chunks.entries()) {
    const external = await planRequest(
      ctx,
      gas,
      k,
      chunk.map((m) => ({ message: internal({ to: m.s.state.address, value: m.topUp, bounce: false }), mode: SendMode.PAY_GAS_SEPARATELY })),
    );
    const total = chunk.reduce((sum, m) => sum + m.topUp, 0n);
    steps.push({
      id: `topup-${k}`,
      round: 1,
      stage: k + 1,
      description: `Top up ${chunk.length} subwallet${chunk.length === 1 ? '' : 's'} with ${tonText(total)} of gas for their ${coin} transfers`,
      signer: { kind: 'operator', account: gas.account },
      kind: 'transaction',
      ...external,
      moves: { [ctx.nativeCoin]: total },
      feeUnits: topUpFee(chunk.length),
      to: chunk.map((m) => m.s.source.address).join(','),
    });
  }

  const transferStage = chunks.length + 1;
  let moved = 0n;
  let sourcesPay = 0n;
  let transferFees = 0n;
  for (const m of movable) {
    const { s } = m;
    const carryAll = m.topUp > 0n;
    const body = jettonTransferBody({
      queryId: BigInt(s.subwallet),
      amount: s.state.jettons,
      destination: ctx.destination,
      responseDestination: gas.state.address,
      forwardTonAmount: JETTON_FORWARD_TON_AMOUNT,
    });
    const message = internal({ to: m.jettonWallet, value: carryAll ? 0n : JETTON_TRANSFER_VALUE, bounce: true, body });
    const request = await depositRequest(
      ctx,
      s,
      { message, mode: carryAll ? SendMode.CARRY_ALL_REMAINING_BALANCE : SendMode.PAY_GAS_SEPARATELY },
      { master: formatTonAddress(master, ctx.network), wallet: formatTonAddress(m.jettonWallet, ctx.network) },
    );
    steps.push({
      id: `transfer-${s.subwallet}`,
      round: 1,
      stage: transferStage,
      description: `Send ${s.state.jettons} ${coin} base units from ${s.source.address} to ${ctx.destinationText}`,
      ...request,
      moves: { [coin]: s.state.jettons },
      feeUnits: JETTON_TRANSFER_FEE,
      to: ctx.destinationText,
    });
    moved += s.state.jettons;
    transferFees += JETTON_TRANSFER_FEE;
    // The source pays from its own TON first; the operator's top-up covers the rest (its excess comes back).
    sourcesPay += s.state.ton < JETTON_TRANSFER_FEE ? s.state.ton : JETTON_TRANSFER_FEE;
  }
  const feeUnits = topUpFees + transferFees;
  return {
    method: 'jetton_batch',
    coin,
    destination: ctx.destinationText,
    steps,
    rounds: 1,
    movedUnits: moved,
    feeUnits,
    operatorPaysUnits: feeUnits - sourcesPay,
    skipped,
    context: {
      valid_until: ctx.validUntil,
      gas_wallet: gasText,
      top_up_units: topUpTotal.toString(),
      jetton_transfer_value: JETTON_TRANSFER_VALUE.toString(),
      forward_ton_amount: JETTON_FORWARD_TON_AMOUNT.toString(),
    },
  };
}
