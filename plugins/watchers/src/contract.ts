/**
 * The contract of the watchers plugin (the chain watchers): the services it registers and
 * what other plugins may import from it (`@gw/plugin-watchers/contract`), nothing else (ADR 0009).
 * Services are exported as types: other plugins receive them from the container, declared
 * with `withDeps`/`service`, and never construct them.
 */
import type { ServiceName } from '@gw/kernel';
import type { WatchersConfig } from './config.js';
import type { WatcherMetrics } from './metrics.js';
import type { ActivationDetector } from './services/activation-detector.js';
import type { ChainScanner } from './services/chain-scanner.js';
import type { ConfirmationCounter } from './services/confirmation-counter.js';
import type { HeadPush } from './services/head-push.js';
import type { OrphanInbox } from './services/orphan-inbox.js';
import type { PaymentMatcher } from './services/payment-matcher.js';
import type { ReceivedOutputs } from './services/received-outputs.js';
import type { ReorgRewinder } from './services/reorg-rewinder.js';
import type { ProviderBudgets } from './services/provider-budget.js';
import type { ProviderUsageReads } from './services/provider-usage.js';
import type { WatcherRegistry } from './services/watcher-registry.js';

import type { WatcherStatusReads } from './services/watcher-status.js';
import type { DisagreementDesk } from './services/disagreement-desk.js';
import type { QuorumVerifier } from './services/quorum-verifier.js';

declare module '@gw/kernel' {
  interface Cradle {
    readonly watchersConfig: WatchersConfig;
    readonly watchersMetrics: WatcherMetrics;
    readonly watchersRegistry: WatcherRegistry;
    readonly watchersMatcher: PaymentMatcher;
    readonly watchersCounter: ConfirmationCounter;
    readonly watchersRewinder: ReorgRewinder;
    readonly watchersScanner: ChainScanner;
    /** Marks pool addresses activated once they exist on chain (TRON, issue 36). */
    readonly watchersActivation: ActivationDetector;
    /** The orphan-payment inbox: receipts no invoice took, their attribution (exported for the sessions' late payments, issue 38). */
    readonly watchersOrphans: OrphanInbox;
    readonly watchersPush: HeadPush;
    /** Head, scanned height, lag, last pass and last error per configured chain network. */
    readonly watchersStatus: WatcherStatusReads;
    /** Outputs received at pool addresses, their spends, balances and each network's treasury (issue 35). */
    readonly watchersOutputs: ReceivedOutputs;
    /** Request budgets of providers with a limit, in PostgreSQL, shared by every instance (issue 40); given to every network's `ProviderPool`. */
    readonly watchersBudget: ProviderBudgets;
    /** How close the gateway runs to its providers' limits (the same rows as `watchersBudget`), for `doctor`, the CLI and the dashboard. */
    readonly watchersProviderUsage: ProviderUsageReads;
    /** The trust rule (issue 40): puts transfers at their threshold to the providers one by one, opens disagreements, marks providers. */
    readonly watchersQuorum: QuorumVerifier;
    /** Disagreements between providers and marked providers (issue 40): list, decide, unmark. */
    readonly watchersDisagreements: DisagreementDesk;
  }
}

/**
 * The services other plugins may declare (ADR 0009); the plugin's other services are its own and
 * start-up refuses another plugin's declaration of one.
 */
export const WATCHERS_EXPORTS: readonly ServiceName[] = ['watchersOutputs', 'watchersOrphans'];

export type { OrphanInbox, AttributeInput } from './services/orphan-inbox.js';
export type { BalanceQuery, BalanceRow, Outpoint, OutputQuery, ReceivedOutput, ReceivedOutputs } from './services/received-outputs.js';
