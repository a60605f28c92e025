import type { AccountPlanFile, AddressHoldings, SweepQuote } from '@gw/kernel';
import { type Plan, recipientsOf, type StoredRecipient } from './models/plan.js';
import type { PlanAddress } from './models/plan-address.js';
import type { PlanStep, StepStatus } from './models/plan-step.js';
import type { PlanStatus } from './plan-status.js';
import { planTimes } from './plan-view.js';

/** One step of an account plan as the API, the CLI and the dashboard show it. */
export interface AccountStepView {
  readonly id: string;
  readonly round: number;
  readonly stage: number;
  readonly kind: 'transaction' | 'authorization';
  readonly description: string;
  readonly signer: { readonly kind: 'deposit' | 'operator'; readonly role: string | null; readonly address: string; readonly path: string };
  readonly nonce: string | null;
  readonly to: string;
  readonly moves: Readonly<Record<string, string>>;
  readonly fee_units: string;
  readonly status: StepStatus;
  /** `offline`, or `hot_gas_wallet` for a step the operator's opt-in gas key signed. */
  readonly signed_by: string | null;
  readonly txid: string | null;
  readonly confirmations: number;
  readonly failure: string | null;
}

/** An account-chain plan (issue 36): its method, rounds, stages and steps; base units as decimal strings. */
export interface AccountPlanView {
  readonly id: string;
  readonly chain: string;
  readonly network: string;
  readonly coin: string;
  readonly kind: 'sweep' | 'activation' | 'sweeper_deployment' | 'payout';
  readonly method: string;
  readonly status: PlanStatus;
  /** The signing round awaited (status awaiting_signature) or the last one completed. */
  readonly round: number;
  readonly rounds: number;
  /** The broadcast stage being sent; null before the first broadcast. */
  readonly stage: number | null;
  readonly destination: string;
  readonly moved_units: string;
  readonly fee_units: string;
  readonly operator_pays_units: string;
  readonly addresses: readonly { readonly address: string; readonly project_id: string; readonly amount_units: string }[];
  readonly skipped: readonly { readonly address: string; readonly units: string; readonly cost_units: string }[];
  readonly steps: readonly AccountStepView[];
  readonly failure: string | null;
  readonly created_by: string;
  readonly created_at_iso: string;
  readonly signed_at_iso: string | null;
  readonly broadcast_at_iso: string | null;
  readonly confirmed_at_iso: string | null;
  /** Kind `payout`: whom it pays, in step order (each reference a refund or payout id). Empty otherwise. */
  readonly recipients: readonly StoredRecipient[];
}

export function accountPlanView(plan: Plan, steps: readonly PlanStep[], addresses: readonly PlanAddress[]): AccountPlanView {
  return {
    id: plan.id,
    chain: plan.chain,
    network: plan.network,
    coin: plan.coin,
    kind: plan.kind as AccountPlanView['kind'],
    method: plan.method!,
    status: plan.status,
    round: plan.round!,
    rounds: plan.rounds!,
    stage: plan.stage,
    destination: plan.destination,
    moved_units: plan.value_units.toString(),
    fee_units: (plan.fee_units ?? 0n).toString(),
    operator_pays_units: (plan.operator_pays_units ?? 0n).toString(),
    addresses: addresses.map((a) => ({ address: a.address, project_id: a.project_id, amount_units: a.amount_units.toString() })),
    skipped: plan.skipped as unknown as AccountPlanView['skipped'],
    steps: steps.map(stepView),
    failure: plan.failure,
    created_by: plan.created_by,
    ...planTimes(plan),
    recipients: recipientsOf(plan),
  };
}

function stepView(step: PlanStep): AccountStepView {
  return {
    id: step.step_id,
    round: step.round,
    stage: step.stage,
    kind: step.kind,
    description: step.description,
    signer: { kind: step.signer_kind, role: step.signer_role, address: step.signer_address, path: step.signer_path },
    nonce: step.nonce?.toString() ?? null,
    to: step.to_address,
    moves: step.moves,
    fee_units: step.fee_units.toString(),
    status: step.status,
    signed_by: step.signed_by,
    txid: step.txid,
    confirmations: step.confirmations,
    failure: step.failure,
  };
}

/** What one address holds (issue 36 item 1), at the edge. */
export interface HoldingView {
  readonly address: string;
  readonly project_id: string;
  readonly balances: Readonly<Record<string, string>>;
  readonly nonce: string;
  readonly tokens: readonly { readonly coin: string; readonly move_cost_units: string; readonly gas_lacking_units: string; readonly dust: boolean }[];
  /** The open plan holding a coin of it, if any. */
  readonly plan_id: string | null;
}

export function holdingView(h: AddressHoldings, projectId: string, planId: string | null): HoldingView {
  return {
    address: h.address,
    project_id: projectId,
    balances: Object.fromEntries(Object.entries(h.balances).map(([coin, units]) => [coin, units.toString()])),
    nonce: h.nonce.toString(),
    tokens: h.tokens.map((t) => ({
      coin: t.coin,
      move_cost_units: t.moveCostUnits.toString(),
      gas_lacking_units: t.gasLackingUnits.toString(),
      dust: t.dust,
    })),
    plan_id: planId,
  };
}

/** A method's cost for a sweep, at the edge. */
export interface QuoteView {
  readonly method: string;
  readonly available: boolean;
  readonly reason: string | null;
  readonly sources: number;
  readonly moved_units: string;
  readonly fee_units: string;
  readonly operator_pays_units: string;
  readonly steps: number;
  readonly rounds: number;
}

export function quoteView(q: SweepQuote): QuoteView {
  return {
    method: q.method,
    available: q.available,
    reason: q.reason ?? null,
    sources: q.sources,
    moved_units: q.movedUnits.toString(),
    fee_units: q.feeUnits.toString(),
    operator_pays_units: q.operatorPaysUnits.toString(),
    steps: q.steps,
    rounds: q.rounds,
  };
}

export type { AccountPlanFile };
