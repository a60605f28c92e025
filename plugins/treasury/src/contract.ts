/**
 * The contract of the treasury plugin (issue 35: balances, plans, signed imports, broadcast and
 * tracking, reconciliation): the services it registers and what other plugins may import from it
 * (`@gw/plugin-treasury/contract`), nothing else (ADR 0009).
 */
import type { ServiceName } from '@gw/kernel';
import type { TreasuryConfig } from './config.js';
import type { AccountBroadcaster } from './services/account-broadcast.js';
import type { AccountNetworks } from './services/account-networks.js';
import type { AccountPlans } from './services/account-plans.js';
import type { AccountReconciliation } from './services/account-reconciliation.js';
import type { AccountSignedImport } from './services/account-signed-import.js';
import type { AccountSources } from './services/account-sources.js';
import type { HotGasWallet } from './services/hot-gas-wallet.js';
import type { MovedOutExport } from './services/moved-out-export.js';
import type { PayoutPlanner } from './services/payout-planner.js';
import type { PlanStatusChanges } from './services/plan-status-change.js';
import type { PlanTracker } from './services/plan-tracker.js';
import type { Reconciliation } from './services/reconciliation.js';
import type { SignedImport } from './services/signed-import.js';
import type { SpendSources } from './services/spend-sources.js';
import type { Sweepers } from './services/sweepers.js';
import type { TreasuryBalances } from './services/treasury-balances.js';
import type { TreasuryNetworks } from './services/treasury-networks.js';
import type { TreasuryPlans } from './services/treasury-plans.js';

declare module '@gw/kernel' {
  interface Cradle {
    readonly treasuryConfig: TreasuryConfig;
    readonly treasuryNetworks: TreasuryNetworks;
    readonly treasurySources: SpendSources;
    /** Sweeps, bumps, accelerations, cancellation and the plans' reads. */
    readonly treasuryPlans: TreasuryPlans;
    /** Signed transactions back: verified against the plan, then stored. */
    readonly treasurySignedImport: SignedImport;
    /** Broadcast, confirmations, reorgs, invalidation of plans whose inputs were spent elsewhere. */
    readonly treasuryTracker: PlanTracker;
    readonly treasuryBalances: TreasuryBalances;
    readonly treasuryReconciliation: Reconciliation;
    /** Account chains: received less moved out per pool address and coin against the chain's holdings. */
    readonly treasuryAccountReconciliation: AccountReconciliation;
    /** The accounting export of money moved out: confirmed plans per project, with their share of the fee. */
    readonly treasuryMovedOut: MovedOutExport;
    /** Account chains (issue 36): each network's account treasury with the operator accounts and sweepers configured. */
    readonly treasuryAccountNetworks: AccountNetworks;
    readonly treasuryAccountSources: AccountSources;
    /** The opt-in hot gas wallet: signs only planned top-ups and sweep submissions, under its caps. */
    readonly treasuryHotGasWallet: HotGasWallet;
    /** EVM: the token sweeper recorded per destination once its deployment plan confirmed. */
    readonly treasurySweepers: Sweepers;
    /** Account-chain holdings, quotes, sweeps, activations, plan files and cancellation. */
    readonly treasuryAccountPlans: AccountPlans;
    /** A round's signatures back, verified step by step; round 2 built from round 1. */
    readonly treasuryAccountSignedImport: AccountSignedImport;
    /** Broadcast stage by stage after the nonce check; stages advanced as they confirm. */
    readonly treasuryAccountBroadcaster: AccountBroadcaster;
    /** Every plan status change told to the `TREASURY_PLAN_OBSERVERS`, in the change's transaction (internal). */
    readonly treasuryPlanStatus: PlanStatusChanges;
    /** Payout plans (issue 37) of approved refunds and payouts, stored in the caller's transaction. */
    readonly treasuryPayouts: PayoutPlanner;
  }
}

/** The services other plugins may declare (the MCP tools and dashboard pages read balances and propose plans through them). */
export const TREASURY_EXPORTS: readonly ServiceName[] = ['treasuryBalances', 'treasuryPlans', 'treasuryAccountPlans', 'treasuryPayouts', 'treasuryMovedOut'];

export { treasuryErrors } from './errors.js';
export { PLAN_STATUSES, PLAN_KINDS, type PlanStatus, type PlanKind } from './plan-status.js';
export type { PlanView, PlanInputView } from './plan-view.js';
export type { AccountPlanView, AccountStepView, HoldingView, QuoteView } from './account-plan-view.js';
export type { AccountSweepInput } from './services/account-plans.js';
export type { MovedOutRow } from './services/moved-out-export.js';
export type { SweeperView } from './services/sweepers.js';
export type { BalanceView, OutputView } from './services/treasury-balances.js';
export type { SweepRequest, OutputSelection, DestinationRequest } from './services/treasury-plans.js';
export type { TreasuryScope } from './services/treasury-scope.js';
export type { PayoutPlanner, PayoutPlanRequest, PayoutPlanResult, PayoutSource } from './services/payout-planner.js';
export { TREASURY_PLAN_OBSERVERS, type PlanObserver, type PlanStatusChange, type PayoutRecipientOutcome } from './plan-observers.js';
