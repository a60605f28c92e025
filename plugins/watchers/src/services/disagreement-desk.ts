import type { Actor } from '@gw/kernel';

/**
 * Disagreements between providers (issue 40): the contract the operator's surfaces (CLI,
 * dashboard, doctor) read and act through. The quorum verifier opens them; the implementation
 * lives beside it.
 *
 * A disagreement is about one recorded transfer that reached its confirmation threshold on the
 * scanning provider while fewer than the quorum of independent providers reported it in the same
 * block (`kind`): some said it is not there (`deniedBy`) or have another block at that height
 * (`otherBranch`); or marked providers leave fewer operators than the quorum; or the quorum did not
 * come within the decision time (a provider lagging or failing for good). Its invoice waits (it
 * stays `confirming`), and the treasury does not count the output as confirmed. It closes by itself
 * (`resolved`) when the quorum is reached later; once the transfer has waited
 * `plugins.watchers.disagreementDecisionSeconds` since the providers were first asked, the operator
 * may decide: `accept` counts the transfer (the invoice settles as the lifecycle decides), `reject`
 * drops it (its invoice hears `payment_dropped`). Both are audited.
 */
export type DisagreementStatus = 'open' | 'resolved' | 'accepted' | 'rejected';

/**
 * Why a disagreement opened: `contradiction` (a provider denied the transfer or has another block
 * at its height), `out_of_reach` (marked providers leave fewer operators than the quorum),
 * `unattested` (no contradiction: the quorum did not come within the decision time, so the operator
 * may decide at once).
 */
export type DisagreementKind = 'contradiction' | 'out_of_reach' | 'unattested';

export interface Disagreement {
  readonly id: string;
  readonly chain: string;
  readonly network: string;
  readonly kind: DisagreementKind;
  readonly coin: string;
  readonly txHash: string;
  readonly outputIndex: number;
  readonly toAddress: string;
  /** Base units, as a decimal string. */
  readonly amountUnits: string;
  readonly invoiceId: string | null;
  /** The project of the pool address paid (also when no invoice took the transfer): whose users may see and decide it in the dashboard. */
  readonly projectId: string;
  readonly blockHeight: number;
  readonly blockHash: string;
  /** Providers that report the transfer in that block. */
  readonly reportedBy: readonly string[];
  /** Providers that have the block but not the transfer. */
  readonly deniedBy: readonly string[];
  /** Providers with another block at that height. */
  readonly otherBranch: readonly string[];
  /** Providers not yet at the threshold depth when last asked, or failing to answer (not counted against). */
  readonly lagging: readonly string[];
  readonly status: DisagreementStatus;
  readonly openedAt: Date;
  /** From then on the operator may decide. */
  readonly decideAfter: Date;
  readonly decidedAt: Date | null;
  readonly decidedBy: string | null;
  readonly reason: string | null;
}

/**
 * A provider caught reporting a transfer the others do not have (two checks in a row, the denying
 * operators at least as many as the reporting ones): asked last, and its word no longer counts
 * toward a quorum, until the operator clears the mark.
 */
export interface ProviderMark {
  readonly chain: string;
  readonly network: string;
  readonly provider: string;
  readonly reason: string;
  /** The disagreement that caught it. */
  readonly disagreementId: string | null;
  readonly markedAt: Date;
}

export interface DisagreementDesk {
  /** Newest first; `status` filters (default: every status). */
  list(filter?: { readonly status?: DisagreementStatus; readonly chain?: string; readonly network?: string; readonly limit?: number }): Promise<Disagreement[]>;
  /** Throws `disagreement_not_found`. */
  get(id: string): Promise<Disagreement>;
  /**
   * The operator's decision on an open disagreement whose `decideAfter` has passed. Throws
   * `disagreement_not_found`, `disagreement_not_ripe`, `disagreement_closed`, and
   * `network_scan_busy` (503) while a scan pass of the network holds it for more than a few
   * seconds. `reason` is required and audited.
   */
  decide(id: string, decision: 'accept' | 'reject', actor: Actor, reason: string): Promise<Disagreement>;
  /** Marks in force. */
  marks(filter?: { readonly chain?: string; readonly network?: string }): Promise<ProviderMark[]>;
  /** Clears a mark (audited); throws `provider_not_marked`. */
  unmark(chain: string, network: string, provider: string, actor: Actor): Promise<void>;
}
