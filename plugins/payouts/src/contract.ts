/**
 * The contract of the payouts plugin (issue 37: refunds and payouts): the services it registers and
 * what other plugins may import from it (`@gw/plugin-payouts/contract`), nothing else (ADR 0009).
 *
 * A refund and a payout are one thing, an **item**: money out of one project to one address, in one
 * coin, approved by administrators, paid by a treasury plan signed offline. A refund belongs to an
 * invoice, takes its coin and network, and gets its address from the payer's claim; a payout comes
 * with its address. Partners create and cancel items (signed API, PATs, MCP); only administrators
 * approve (dashboard, CLI). Approved items of one project, chain, network and coin join a **batch**:
 * one `payout` plan of the treasury, stored in the same transaction that moves the items to
 * `batched`; the plan's later status changes move them on (`TREASURY_PLAN_OBSERVERS`).
 */
import type { Actor, KeysetPage, ServiceName } from '@gw/kernel';
import type { Knex } from 'knex';
import type { AddressSource } from './address-source.js';
import type { ItemKind, ItemStatus, RateRule } from './item-status.js';

/** An item as the API answers it (`GET /api/v1/refunds/{id}`, `GET /api/v1/payouts/{id}`). Amounts are decimal strings. */
export interface ItemView {
  readonly id: string;
  readonly object: ItemKind;
  readonly project_id: string;
  readonly status: ItemStatus;
  /** Refunds: the invoice refunded; payouts: null. */
  readonly invoice_id: string | null;
  readonly chain: string;
  readonly network: string;
  readonly coin: string;
  /** Coin amount (decimal) and base units. */
  readonly amount: string;
  readonly amount_units: string;
  /** USD value at `rate` (decimal, 2 places); null without a rate. */
  readonly amount_usd: string | null;
  /** USD per coin the amount was found with (refund rate rules) or valued at; null without one. */
  readonly rate: string | null;
  /** Refunds: the rule that found the amount; payouts: null. */
  readonly rate_rule: RateRule | null;
  readonly spread_percent: string | null;
  /** The destination: a payout's from creation; a refund's once claimed (null before). */
  readonly address: string | null;
  /**
   * How the address arrived: `claim` (the payer on the claim page, reached from the invoice's checkout
   * page: anyone holding that link can claim, the approval is the guard), `partner` (the create request:
   * a payout's, or a refund's when the partner knew the payer's address); null before a claim.
   */
  readonly address_source: AddressSource | null;
  /** Payouts: the partner's reference (unique per project); refunds: the partner's optional reference. */
  readonly reference: string | null;
  readonly reason: string | null;
  readonly metadata: Readonly<Record<string, unknown>> | null;
  /** Refunds: the payer's claim page (null once claimed or for payouts). */
  readonly claim_url: string | null;
  /** Refunds: whether the claim must carry a signature by the address (the amount is above the threshold). */
  readonly claim_requires_proof: boolean;
  /** Administrators who approved, in order; `approvals_required` of them are needed. */
  readonly approvals: readonly { readonly user_id: string; readonly at_iso: string }[];
  readonly approvals_required: number;
  /** The treasury plan paying it (batched and after); null before. */
  readonly plan_id: string | null;
  readonly txid: string | null;
  /** The network fee share of the item's plan, base units of the chain's native coin; null before it is known. */
  readonly fee_units: string | null;
  readonly failure_reason: string | null;
  readonly created_at_iso: string;
  readonly updated_at_iso: string;
  readonly claimed_at_iso: string | null;
  readonly approved_at_iso: string | null;
  readonly sent_at_iso: string | null;
  readonly completed_at_iso: string | null;
}

/** Who asks: partners act within one project; operators within the projects they reach. */
export interface ItemScope {
  /** The projects the caller reaches; undefined = every project (an admin of the installation). */
  readonly projectIds?: readonly string[];
}

/** `POST /api/v1/invoices/{id}/refunds` (issue 37). */
export interface CreateRefundInput {
  readonly projectId: string;
  readonly invoiceId: string;
  /** Decimal: coin (`coin_amount`) or USD (fiat rules); absent = the natural amount. */
  readonly amount?: string;
  readonly rateRule?: RateRule;
  readonly spreadPercent?: string;
  /** The payer's address when the partner knows it: the refund starts `claimed`. */
  readonly address?: string;
  /** Where the claim link is e-mailed. */
  readonly email?: string;
  readonly reference?: string;
  readonly reason?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** The `Idempotency-Key` header: a second create with it answers the first refund (another body: `idempotency_key_reused`). */
  readonly idempotencyKey?: string;
}

/** One recipient of `POST /api/v1/payouts`. */
export interface PayoutRecipientInput {
  readonly address: string;
  readonly coin: string;
  /** Decimal coin amount. */
  readonly amount: string;
  /** Unique per project: a second payout with it answers the first (`payout_reference_conflict` for another body). */
  readonly reference: string;
  readonly reason?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface ItemListFilter {
  readonly projectId: string;
  readonly kind: ItemKind;
  readonly status?: ItemStatus;
  readonly invoiceId?: string;
  readonly cursor?: string;
  readonly limit: number;
}

/** Partner-side writes and every read (API, sandbox mirror, MCP, CLI, dashboard). */
export interface PayoutItems {
  /**
   * Creates a refund of an invoice. `options.inTransaction` runs in the transaction that inserts it,
   * after the insert and its events: what it writes commits with the refund or not at all (a
   * compatibility API's own row for it), and its throw refuses the create. An idempotent replay
   * does not run it.
   */
  createRefund(
    input: CreateRefundInput,
    actor: Actor,
    options?: { readonly inTransaction?: (trx: Knex.Transaction, item: ItemView) => Promise<void> },
  ): Promise<{ item: ItemView; created: boolean }>;
  /** All recipients or none (one bad address refuses the request whole). */
  createPayouts(
    projectId: string,
    recipients: readonly PayoutRecipientInput[],
    actor: Actor,
    idempotencyKey?: string,
  ): Promise<{ items: ItemView[]; created: boolean }>;
  get(projectId: string, kind: ItemKind, id: string): Promise<ItemView>;
  list(filter: ItemListFilter): Promise<KeysetPage<ItemView>>;
  /** Every refund of an invoice of the project, oldest first; 404 `invoice_not_found` for another project's invoice. */
  refundsOf(projectId: string, invoiceId: string): Promise<ItemView[]>;
  /** Partners: before approval (`PARTNER_CANCELLABLE_STATUSES`). */
  cancel(projectId: string, kind: ItemKind, id: string, actor: Actor): Promise<ItemView>;
}

/** What the claim page shows (by its token, never by id). */
export interface ClaimView {
  readonly item: ItemView;
  readonly projectName: string;
  /** The invoice's external id, shown to the payer. */
  readonly externalId: string;
  /** The text a proof signs (fixed per refund). */
  readonly proofMessage: string;
  /** The page may still take a claim (`awaiting_claim`). */
  readonly open: boolean;
}

export interface ClaimInput {
  readonly address: string;
  readonly addressConfirmation: string;
  /** Required when `claim_requires_proof`: the chain's message signature of `proofMessage` by the address. */
  readonly signature?: string;
}

/** The payer's side: claims by token, without an account. */
export interface RefundClaims {
  byToken(token: string): Promise<ClaimView>;
  claim(token: string, input: ClaimInput): Promise<ItemView>;
}

/** Administrators only (dashboard, operator CLI); never API keys, PATs or MCP. */
export interface PayoutApprovals {
  /**
   * One administrator's approval (dashboard, or CLI `--as`); the item becomes `approved` with
   * `approvals_required` distinct ones from users who are still active administrators then.
   */
  approve(itemId: string, actor: Actor & { readonly kind: 'user' }, scope: ItemScope): Promise<ItemView>;
  /** Administrators: also `approved` items not yet in a plan. */
  cancel(itemId: string, actor: Actor, scope: ItemScope): Promise<ItemView>;
  /** Every item of the scope waiting for approval or batching. */
  pending(scope: ItemScope, kind?: ItemKind): Promise<ItemView[]>;
  policy(projectId: string): Promise<ApprovalPolicy>;
  setPolicy(projectId: string, policy: ApprovalPolicy, actor: Actor): Promise<ApprovalPolicy>;
}

/** Per project (`payouts_policies`). */
export interface ApprovalPolicy {
  /** Above this USD value an item needs two administrators; null: one always. */
  readonly dualApprovalAboveUsd: string | null;
  /** Above this USD value a refund claim needs a signature by the address; null: the configured default. */
  readonly claimProofAboveUsd: string | null;
}

export interface BatchRequest {
  readonly projectId: string;
  readonly chain: string;
  readonly network: string;
  readonly coin: string;
  /** Default: every approved item of that project, chain, network and coin. */
  readonly itemIds?: readonly string[];
  readonly source: import('@gw/plugin-treasury/contract').PayoutSource;
  readonly feeRate?: bigint;
}

/** Approved items into a treasury `payout` plan; plan status changes back onto the items. */
export interface PayoutBatches {
  create(request: BatchRequest, actor: Actor, scope: ItemScope): Promise<{ planId: string; items: ItemView[] }>;
}

/** One row of money out (the accounting export and the dashboard). */
export interface MoneyOutRow {
  readonly kind: 'refund' | 'payout' | 'sweep' | 'network_fee';
  readonly project_id: string;
  readonly chain: string;
  readonly network: string;
  readonly coin: string;
  readonly amount: string;
  readonly amount_units: string;
  readonly item_id: string | null;
  readonly plan_id: string | null;
  readonly txid: string | null;
  readonly at_iso: string;
}

declare module '@gw/kernel' {
  interface Cradle {
    readonly payoutsConfig: import('./config.js').PayoutsConfig;
    readonly payoutsItems: PayoutItems;
    readonly payoutsClaims: RefundClaims;
    readonly payoutsApprovals: PayoutApprovals;
    readonly payoutsBatches: PayoutBatches;
    /** The plugin's own: items' rows, views and status changes with their events. */
    readonly payoutsStore: import('./services/item-store.js').ItemStore;
    readonly payoutsPolicies: import('./services/policies.js').Policies;
    readonly payoutsSimulations: import('./services/sandbox-simulations.js').SandboxSimulations;
  }
}

/** The services other plugins may declare (the MCP tools read and propose; nothing exported approves). */
export const PAYOUTS_EXPORTS: readonly ServiceName[] = ['payoutsItems'];

export * from './item-status.js';
export { ADDRESS_SOURCES, addressSourceText, type AddressSource } from './address-source.js';
export { claimProofMessage } from './services/claim-message.js';
/** USD value (2 places, rounded down) of base units at a USD rate: how a refund values what came (`fiat_now` without an amount). */
export { usdDownOf } from './services/money.js';
export { CLAIM_PATH } from './services/item-store.js';
export { cliApprover, dashboardApprover, isActiveAdmin, type ApproverActor } from './services/approver.js';
