import {
  type ChainRegistry,
  fromBaseUnits,
  networkKindOf,
  hashToken,
  type OutboundEvents,
  type KernelConfig,
  type MoneyOutEventType,
  publicBaseUrl,
  randomBase62,
  type SecretBox,
  isoTime,
  isoTimeOrNull,
} from '@gw/kernel';
import type { InvoiceService } from '@gw/plugin-invoices/contract';
import type { Knex } from 'knex';
import type { ItemView } from '../contract.js';
import { payoutsErrors } from '../errors.js';
import type { ItemKind, ItemStatus } from '../item-status.js';
import { Approval } from '../models/approval.js';
import { Item } from '../models/item.js';
import { usdOf } from './money.js';

/**
 * The view without its claim link (`claim_url: null`): what webhook events, MCP answers and audit
 * entries carry. The link lets whoever holds it choose where the payer's money goes; only the
 * signed API answers (the partner's own channel) and the checkout page's panel show it.
 */
export function withoutClaimUrl(view: ItemView): ItemView {
  return view.claim_url === null ? view : { ...view, claim_url: null };
}

/** The path of the payer's claim page below `{base_url}`. */
export const CLAIM_PATH = '/refunds/claim';

/** The event a move into `status` announces; `batched` announces nothing (the plan is the operator's business). */
const EVENT_OF: Partial<Record<ItemStatus, string>> = {
  claimed: 'claimed',
  approved: 'approved',
  sent: 'sent',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** Timestamps set when an item enters a status. */
const STAMP_OF: Partial<Record<ItemStatus, keyof Item>> = {
  claimed: 'claimed_at',
  approved: 'approved_at',
  sent: 'sent_at',
  completed: 'completed_at',
};

export type ItemPatch = Partial<Pick<Item, 'address' | 'proof_message' | 'proof_signature' | 'plan_id' | 'txid' | 'fee_units' | 'failure_reason'>>;

/**
 * The items' rows, views and status changes: every change writes the row and its webhook event
 * (`refund.*` / `payout.*`) in the caller's transaction, so the event exists exactly when the change does.
 */
export class ItemStore {
  readonly baseUrl: string;

  constructor(
    private readonly deps: {
      chains: ChainRegistry;
      invoiceEvents: OutboundEvents;
      invoicesService: InvoiceService;
      kernelConfig: KernelConfig;
      secretBox: SecretBox;
    },
  ) {
    this.baseUrl = publicBaseUrl(deps.kernelConfig);
  }

  /** A fresh claim token with what is stored of it: its hash (the lookup) and the token sealed (the API shows the link again). */
  newClaimToken(itemId: string): { token: string; hash: string; sealed: string } {
    const token = randomBase62(32);
    return { token, hash: hashToken(token), sealed: this.deps.secretBox.seal(token, itemId) };
  }

  /** Whether `address` is an address of the item's chain on its project's network kind. */
  validAddress(item: Pick<Item, 'chain' | 'project_kind'>, address: string): boolean {
    return this.deps.chains.get(item.chain).isValidAddress(address, networkKindOf(item.project_kind));
  }

  /** The item of the project, locked when `forUpdate`; the kind's 404 otherwise. */
  async find(db: Knex | Knex.Transaction, projectId: string | undefined, kind: ItemKind | undefined, id: string, forUpdate = false): Promise<Item> {
    const query = Item.query(db).findById(id);
    if (forUpdate) query.forUpdate();
    const item = await query;
    if (!item || (projectId !== undefined && item.project_id !== projectId) || (kind !== undefined && item.kind !== kind)) {
      throw kind === 'payout' ? payoutsErrors.payout_not_found() : payoutsErrors.refund_not_found();
    }
    return item;
  }

  async views(db: Knex | Knex.Transaction, items: readonly Item[]): Promise<ItemView[]> {
    if (items.length === 0) return [];
    const approvals = await Approval.query(db)
      .whereIn(
        'item_id',
        items.map((i) => i.id),
      )
      .orderBy(['created_at', 'user_id']);
    return items.map((item) =>
      this.view(
        item,
        approvals.filter((a) => a.item_id === item.id),
      ),
    );
  }

  async viewOf(db: Knex | Knex.Transaction, item: Item): Promise<ItemView> {
    return (await this.views(db, [item]))[0]!;
  }

  view(item: Item, approvals: readonly Approval[]): ItemView {
    const decimals = this.deps.chains.storedCoin(item.coin).decimals;
    const token = item.status === 'awaiting_claim' && item.claim_token_sealed ? this.deps.secretBox.open(item.claim_token_sealed, item.id) : undefined;
    return {
      id: item.id,
      object: item.kind,
      project_id: item.project_id,
      status: item.status,
      invoice_id: item.invoice_id,
      chain: item.chain,
      network: item.network,
      coin: item.coin,
      amount: fromBaseUnits(item.amount_units, decimals),
      amount_units: item.amount_units.toString(),
      amount_usd: item.rate === null ? null : usdOf(item.amount_units, decimals, item.rate),
      rate: item.rate,
      rate_rule: item.rate_rule,
      spread_percent: item.spread_percent,
      address: item.address,
      // A refund created with a claim link got its address from the claim page; any other address came with the create request.
      address_source: item.address === null ? null : item.kind === 'refund' && item.claim_token_hash !== null ? 'claim' : 'partner',
      reference: item.reference,
      reason: item.reason,
      metadata: item.metadata,
      claim_url: token === undefined ? null : `${this.baseUrl}${CLAIM_PATH}/${token}`,
      claim_requires_proof: item.claim_requires_proof,
      approvals: approvals.map((a) => ({ user_id: a.user_id, at_iso: isoTime(a.created_at) })),
      approvals_required: item.approvals_required,
      plan_id: item.plan_id,
      txid: item.txid,
      fee_units: item.fee_units === null ? null : item.fee_units.toString(),
      failure_reason: item.failure_reason,
      created_at_iso: isoTime(item.created_at),
      updated_at_iso: isoTime(item.updated_at),
      claimed_at_iso: isoTimeOrNull(item.claimed_at),
      approved_at_iso: isoTimeOrNull(item.approved_at),
      sent_at_iso: isoTimeOrNull(item.sent_at),
      completed_at_iso: isoTimeOrNull(item.completed_at),
    };
  }

  /**
   * Moves a locked item to `status` with `patch`, and emits the move's event (`announce: false`
   * for moves the partner does not hear of: into `batched`, back to `approved`, a reorg's return to
   * `sent`). Answers the item as it now is.
   */
  async move(trx: Knex.Transaction, item: Item, status: ItemStatus, patch: ItemPatch = {}, announce = true): Promise<Item> {
    const now = new Date();
    const stamp = STAMP_OF[status];
    const updated = await Item.query(trx)
      .patchAndFetchById(item.id, { ...patch, status, updated_at: now, ...(stamp && status !== item.status ? { [stamp]: now } : {}) })
      .throwIfNotFound();
    const suffix = EVENT_OF[status];
    if (announce && suffix && status !== item.status) await this.emit(trx, updated, suffix, item.status);
    return updated;
  }

  /** Emits `<kind>.<suffix>` for the item as it now is. */
  async emit(trx: Knex.Transaction, item: Item, suffix: string, previous: ItemStatus | null): Promise<void> {
    // The claim link is a bearer capability for the payer's money: events (delivered to URLs, stored, retried) never carry it.
    const view = withoutClaimUrl(await this.viewOf(trx, item));
    // A refund's events go where its invoice's do (its callback_url, else the project's default).
    const callbackUrl = item.invoice_id === null ? null : (await this.deps.invoicesService.get(item.project_id, item.invoice_id, trx)).callback_url;
    await this.deps.invoiceEvents.emit(trx, [
      {
        projectId: item.project_id,
        projectKind: item.project_kind,
        invoiceId: item.invoice_id,
        eventType: `${item.kind}.${suffix}` as MoneyOutEventType,
        data: {
          ...(item.kind === 'refund' ? { refund_id: item.id, invoice_id: item.invoice_id!, refund: { ...view } } : { payout_id: item.id, payout: { ...view } }),
          status: item.status,
          previous_status: previous,
        },
        callbackUrl,
      },
    ]);
  }
}
