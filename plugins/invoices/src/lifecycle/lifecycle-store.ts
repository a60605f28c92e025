import type { CheckoutLinks } from '../services/checkout-links.js';
import {
  groupBy,
  jsonRecords,
  sql,
  sqlQuery,
  type Actor,
  type AuditEntry,
  type AuditLog,
  type ChainId,
  type ChainRegistry,
  type CoinId,
  type Extensions,
  type InvoiceEvent,
  type OutboundEvents,
} from '@gw/kernel';
import type { AddressPoolService } from '@gw/plugin-address-pool/contract';
import type { RateService } from '@gw/plugin-rates/contract';
import { countWhenCommitted, type TransitionCounter } from '../metrics.js';
import type { Knex } from 'knex';
import type { InvoiceStatus } from '../invoice-status.js';
import { MATCH_CANDIDATE_STATUSES, PAID_STATUSES, WAITING_STATUSES } from './status-traits.js';
import { Invoice, invoiceOfRow } from '../models/invoice.js';
import { InvoiceTransaction, transactionsByInvoice } from '../models/invoice-transaction.js';
import { invoiceView, type InvoiceView } from '../services/invoice-view.js';
import { MAX_AMOUNT_UNITS } from '../services/amounts.js';
import { invoicesErrors } from '../errors.js';
import { liveUnits, stateOf, type InvoiceState, type TransferState } from './invoice-state.js';
import { INVOICE_OBSERVERS, type InvoiceStatusChange } from './invoice-observers.js';
import { NEW, type Fact } from './transition-table.js';

/** Audit actions of the facts that have their own; every other applied row is `invoice.transition`. */
const AUDIT_ACTIONS: Partial<Record<Fact, string>> = { cancel_requested: 'invoice.cancel', attributed: 'invoice.attribute' };

/**
 * The channel on which every change of an invoice (status, transfers, confirmations) is announced
 * when its transaction commits; the payload is the invoice id. Live pages (checkout) subscribe.
 */
export const INVOICE_CHANGED_CHANNEL = 'invoices.changed';

/** A (project, address, coin) a receipt concerns. */
export interface CandidateKey {
  readonly projectId: string;
  readonly address: string;
  readonly coin: CoinId;
}

export function candidateKeyOf(key: CandidateKey): string {
  return `${key.projectId}|${key.address}|${key.coin}`;
}

/** Candidate invoices kept per key (newest first): more at one address would be a misconfiguration. */
const CANDIDATES_PER_KEY = 50;

/**
 * Loads invoices for the lifecycle (locked for update, with their transfers) and writes a batch of
 * changed working copies back in a fixed number of set-based statements, whatever the batch size:
 * invoice rows, transfers, the pool addresses they release or record as paid, the events (through
 * the kernel's invoice events, into the outbox), one audit row per applied transition, and one
 * notification per changed invoice. It is also the one place the plugins following invoices
 * (`INVOICE_OBSERVERS`) hear of their changes: every status change is written here, so each reaches
 * them exactly once, in the transaction that writes it.
 */
export class LifecycleStore {
  constructor(
    private readonly deps: {
      extensions: Extensions;
      chains: ChainRegistry;
      invoicesCheckoutLinks: CheckoutLinks;
      audit: AuditLog;
      invoiceEvents: OutboundEvents;
      addressPoolService: AddressPoolService;
      ratesService: RateService;
      invoicesTransitions: TransitionCounter;
    },
  ) {}

  /** Locks the invoices (in id order, so concurrent batches never deadlock) and loads them with their transfers. */
  async load(trx: Knex.Transaction, invoiceIds: readonly string[]): Promise<Map<string, InvoiceState>> {
    const ids = [...new Set(invoiceIds)].sort();
    if (ids.length === 0) return new Map();
    // Plain rows (no model instances): a block loads thousands, and pg already parses the jsonb columns.
    // Both statements at once (run in order on the connection): the transfers' read starts while the rows are parsed.
    const locked = sqlQuery<object>(trx, sql`select * from invoices_invoices where id = any(${ids}::text[]) order by id for update`);
    const transfers = transactionsByInvoice(trx, ids);
    transfers.catch(() => undefined);
    const rows = (await locked).map(invoiceOfRow);
    const transactions = await transfers;
    return new Map(rows.map((row) => [row.id, stateOf(row, transactions.get(row.id) ?? [])]));
  }

  /**
   * The invoices a receipt at each key may concern (waiting, reverted and expired ones; at most 50
   * per key, newest first), locked and loaded, keyed by `candidateKeyOf`.
   */
  async candidates(
    trx: Knex.Transaction,
    chain: ChainId,
    keys: readonly CandidateKey[],
  ): Promise<{ byKey: Map<string, InvoiceState[]>; states: Map<string, InvoiceState> }> {
    const unique = [...new Map(keys.map((k) => [candidateKeyOf(k), k])).values()];
    if (unique.length === 0) return { byKey: new Map(), states: new Map() };
    const found = await sqlQuery<{ id: string }>(
      trx,
      sql`select id from (
            select i.id, row_number() over (partition by i.project_id, i.address, i.coin order by i.id desc) as n
              from invoices_invoices i
             where i.chain = ${chain}
               and (i.project_id, i.address, i.coin) in (select * from unnest(${unique.map((k) => k.projectId)}::text[], ${unique.map((k) => k.address)}::text[], ${unique.map((k) => k.coin)}::text[]))
               and i.status = any(${MATCH_CANDIDATE_STATUSES}::text[])
          ) c where n <= ${CANDIDATES_PER_KEY}`,
    );
    return this.loadByKey(trx, found);
  }

  /**
   * The invoices receipts on a chain with payment references may concern (issue 43), keyed like
   * `candidates` by (project, recipient, coin): those whose `payment_reference` a receipt carries
   * (waiting, reverted and expired ones), and the pending `exact` invoices at its recipient and coin
   * whose amount equals its (at most 50 per amount, newest first: `matchReferencedPayment` decides).
   * Both lookups are indexed (migration 0008), so a merchant address shared by any number of open
   * invoices costs a receipt a few index reads.
   */
  async referenceCandidates(
    trx: Knex.Transaction,
    chain: ChainId,
    receipts: readonly (CandidateKey & { readonly amountUnits: bigint; readonly references?: readonly string[] | undefined })[],
  ): Promise<{ byKey: Map<string, InvoiceState[]>; states: Map<string, InvoiceState> }> {
    if (receipts.length === 0) return { byKey: new Map(), states: new Map() };
    const references = [...new Set(receipts.flatMap((r) => r.references ?? []))];
    const amounts = [...new Map(receipts.map((r) => [`${candidateKeyOf(r)}|${r.amountUnits}`, r])).values()];
    const found = await sqlQuery<{ id: string }>(
      trx,
      sql`select i.id from invoices_invoices i
           where i.chain = ${chain} and i.payment_reference = any(${references}::text[]) and i.status = any(${MATCH_CANDIDATE_STATUSES}::text[])
          union
          select id from (
            select i.id, row_number() over (partition by i.project_id, i.address, i.coin, i.amount_units order by i.id desc) as n
              from invoices_invoices i
             where i.chain = ${chain} and i.status = 'pending' and i.matching_mode = 'exact' and i.payment_reference is not null
               and (i.project_id, i.address, i.coin, i.amount_units) in (
                 select * from unnest(${amounts.map((k) => k.projectId)}::text[], ${amounts.map((k) => k.address)}::text[],
                                      ${amounts.map((k) => k.coin)}::text[], ${amounts.map((k) => k.amountUnits.toString())}::numeric[]))
          ) c where n <= ${CANDIDATES_PER_KEY}`,
    );
    return this.loadByKey(trx, found);
  }

  /** The working copies of `found`, and grouped by candidate key (project, address, coin), newest first. */
  private async loadByKey(
    trx: Knex.Transaction,
    found: readonly { id: string }[],
  ): Promise<{ byKey: Map<string, InvoiceState[]>; states: Map<string, InvoiceState> }> {
    const states = await this.load(
      trx,
      found.map((r) => r.id),
    );
    const newestFirst = [...states.values()].sort((a, b) => (a.invoice.id < b.invoice.id ? 1 : -1));
    const byKey = groupBy(newestFirst, (state) =>
      candidateKeyOf({ projectId: state.invoice.project_id, address: state.invoice.address, coin: state.invoice.coin }),
    );
    return { byKey, states };
  }

  /** The view of a working copy as it stands. */
  view(state: InvoiceState, status: InvoiceStatus = state.status, transfers: readonly TransferState[] = state.transfers): InvoiceView {
    return viewOf(state, status, transfers, this.deps.chains, this.deps.invoicesCheckoutLinks);
  }

  /**
   * USD at payment (accounting exports) of the invoices that are paid now: the USD rate their
   * coin's cached quote has (read in `trx`; no provider is called on this path; without a usable
   * quote the rate stays null). Written only the first time an invoice reaches a paid status.
   */
  private async paymentRates(trx: Knex.Transaction, paid: readonly InvoiceState[]): Promise<Map<InvoiceState, { rate: string; source: string } | undefined>> {
    const first = paid.filter((s) => s.invoice.paid_at === null || s.invoice.paid_at === undefined);
    if (first.length === 0) return new Map();
    const known = await this.deps.ratesService.knownRates(trx);
    return new Map(
      first.map((s) => {
        const asset = this.deps.chains.has(s.invoice.chain) ? this.deps.chains.coin(s.invoice.coin).coin.price.symbol : undefined;
        return [s, asset === undefined ? undefined : known.get(asset)];
      }),
    );
  }

  /**
   * Tells the `INVOICE_OBSERVERS` of the changes of `states` (written in `trx` just before), one
   * observer after the other; an observer's error fails the write (the caller's transaction).
   */
  private async tellObservers(trx: Knex.Transaction, states: readonly InvoiceState[]): Promise<void> {
    const observers = this.deps.extensions.of(INVOICE_OBSERVERS).map((c) => c.item);
    if (observers.length === 0) return;
    const changes = statusChangesOf(states);
    for (const change of changes) for (const observer of observers) await observer.onStatus(trx, change);
  }

  /** Writes every working copy that changed; returns nothing, the states hold the outcome. */
  async persist(trx: Knex.Transaction, states: Iterable<InvoiceState>, actor: Actor): Promise<void> {
    const changed = [...states].filter((s) => s.changed || s.transfers.some((t) => t.dirty));
    if (changed.length === 0) return;
    const now = new Date();
    const rows = changed.filter((s) => s.changed);
    const releasing = new Set(
      rows.filter((s) => WAITING_STATUSES.includes(s.invoice.status) && !WAITING_STATUSES.includes(s.status) && s.invoice.address_released_at === null),
    );
    const paying = rows.filter((s) => PAID_STATUSES.includes(s.status) && !PAID_STATUSES.includes(s.invoice.status));
    // Paid now and no payment time yet: a settlement, or an orphan attributed as a new paid invoice.
    const paidFirst = await this.paymentRates(
      trx,
      rows.filter((s) => PAID_STATUSES.includes(s.status)),
    );
    const transfers = changed.flatMap((s) => s.transfers.filter((t) => t.dirty).map((t) => ({ s, t })));
    for (const { t } of transfers) {
      if (t.amountUnits <= 0n || t.amountUnits > MAX_AMOUNT_UNITS) {
        throw invoicesErrors.amount_out_of_range({
          message: 'A transfer amount must be between 1 and 2^256 - 1 base units.',
          details: { amount_units: t.amountUnits.toString() },
        });
      }
    }
    // The statements are started without waiting for one another: sqlQuery runs them in order on
    // the transaction's connection, and the JavaScript that builds the next rows (views, event
    // bodies, audit rows) runs while PostgreSQL works on the earlier ones. Every one is awaited
    // before persist returns; the first failure aborts the transaction and is the error thrown.
    // Amounts are checked before anything is sent, so a refused batch writes nothing.
    const sent: Promise<unknown>[] = [];
    const send = (statement: Promise<unknown>) => {
      // Handled at once (a rejection must not go unhandled while later rows are built); awaited below.
      statement.catch(() => undefined);
      sent.push(statement);
    };
    if (rows.length > 0) {
      send(
        sqlQuery(
          trx,
          sql`update invoices_invoices i
                 set status = u.status, event_counts = u.event_counts, updated_at = ${now}::timestamptz,
                     address_released_at = case when u.releases then coalesce(i.address_released_at, ${now}::timestamptz) else i.address_released_at end,
                     paid_at = case when u.paid_first then coalesce(i.paid_at, ${now}::timestamptz) else i.paid_at end,
                     paid_usd_rate = case when u.paid_first and i.paid_at is null then u.paid_usd_rate else i.paid_usd_rate end,
                     paid_rate_source = case when u.paid_first and i.paid_at is null then u.paid_rate_source else i.paid_rate_source end
                from ${jsonRecords(
                  rows.map((s) => ({
                    id: s.invoice.id,
                    status: s.status,
                    event_counts: s.eventCounts,
                    releases: releasing.has(s),
                    paid_first: paidFirst.has(s),
                    paid_usd_rate: paidFirst.get(s)?.rate ?? null,
                    paid_rate_source: paidFirst.get(s)?.source ?? null,
                  })),
                )} as u(id text, status text, event_counts jsonb, releases boolean, paid_first boolean, paid_usd_rate numeric, paid_rate_source text)
               where i.id = u.id`,
        ),
      );
    }
    send(
      this.deps.addressPoolService.releaseMany(
        trx,
        [...releasing].map((s) => s.invoice.pool_address_id),
      ),
    );
    send(
      this.deps.addressPoolService.markPaidMany(
        trx,
        paying.map((s) => s.invoice.pool_address_id),
      ),
    );
    countWhenCommitted(
      this.deps.invoicesTransitions,
      trx,
      rows.flatMap((s) => s.applied.filter((a) => a.from !== a.to).map((a) => ({ from: a.from, to: a.to }))),
    );
    if (transfers.length > 0) {
      send(
        sqlQuery(
          trx,
          sql`insert into invoices_transactions (id, invoice_id, project_id, chain, coin, tx_hash, output_index, to_address, amount_units,
                                                 block_height, block_hash, confirmations, status, synthetic, detected_at, confirmed_at)
              select id, invoice_id, project_id, chain, coin, tx_hash, output_index, to_address, amount_units,
                     block_height, block_hash, confirmations, status, synthetic, detected_at, confirmed_at
                from ${jsonRecords(
                  transfers.map(({ s, t }) => ({
                    id: t.id,
                    invoice_id: s.invoice.id,
                    project_id: s.invoice.project_id,
                    chain: s.invoice.chain,
                    coin: s.invoice.coin,
                    tx_hash: t.txHash,
                    output_index: t.outputIndex,
                    to_address: s.invoice.address,
                    amount_units: t.amountUnits.toString(),
                    block_height: t.blockHeight?.toString() ?? null,
                    block_hash: t.blockHash,
                    confirmations: t.confirmations,
                    status: t.status,
                    synthetic: t.synthetic,
                    detected_at: t.detectedAt.toISOString(),
                    confirmed_at: t.confirmedAt?.toISOString() ?? null,
                  })),
                )} as x(id text, invoice_id text, project_id text, chain text, coin text, tx_hash text, output_index int, to_address text, amount_units numeric,
                        block_height bigint, block_hash text, confirmations int, status text, synthetic boolean, detected_at timestamptz, confirmed_at timestamptz)
              on conflict (invoice_id, tx_hash, output_index) do update
                 set amount_units = excluded.amount_units, block_height = excluded.block_height, block_hash = excluded.block_hash,
                     confirmations = excluded.confirmations, status = excluded.status, confirmed_at = excluded.confirmed_at`,
        ),
      );
    }
    // One turn of the event loop: the statements above reach the connection before the rows below are built.
    await new Promise((resolve) => setImmediate(resolve));
    const events: InvoiceEvent[] = [];
    const audits: AuditEntry[] = [];
    for (const state of changed) {
      const { invoice } = state;
      for (const applied of state.applied) {
        if (applied.event) {
          events.push({
            projectId: invoice.project_id,
            projectKind: invoice.project_kind,
            invoiceId: invoice.id,
            eventType: applied.event.type,
            eventId: applied.event.id,
            callbackUrl: invoice.callback_url,
            data: {
              invoice_id: invoice.id,
              external_id: invoice.external_id,
              status: applied.to,
              previous_status: applied.from === NEW ? null : applied.from,
              ...applied.event.data,
              invoice: viewOf(state, applied.to, applied.transfers, this.deps.chains, this.deps.invoicesCheckoutLinks),
            },
          });
        }
        audits.push({
          ...actor,
          action: AUDIT_ACTIONS[applied.fact] ?? 'invoice.transition',
          projectId: invoice.project_id,
          target: `invoice:${invoice.id}`,
          details: {
            from: applied.from,
            to: applied.to,
            ...(applied.event ? { event_type: applied.event.type, event_id: applied.event.id } : {}),
            ...applied.details,
          },
        });
      }
    }
    if (audits.length > 0) send(sqlQuery(trx, this.deps.audit.recordManySql(audits)));
    send(sqlQuery(trx, sql`select pg_notify(${INVOICE_CHANGED_CHANNEL}, id) from unnest(${changed.map((s) => s.invoice.id)}::text[]) as id`));
    if (events.length > 0) send(this.deps.invoiceEvents.emit(trx, events));
    await Promise.all(sent);
    await this.tellObservers(trx, changed);
    // The working copies now match the database: a second persist of the same states writes nothing.
    for (const state of changed) {
      (state.invoice as { status: InvoiceStatus }).status = state.status;
      if (releasing.has(state)) (state.invoice as { address_released_at: Date | null }).address_released_at = now;
      if (paidFirst.has(state)) (state.invoice as { paid_at: Date | null }).paid_at = now;
      (state.invoice as { event_counts: Record<string, number> }).event_counts = { ...state.eventCounts };
      state.changed = false;
      state.applied.length = 0;
      for (const t of state.transfers) t.dirty = false;
    }
  }
}

/**
 * The changes observers hear of a batch: each applied row that moved the status or sent an event
 * (the rows the audit log calls transitions, less those that only changed transfers), in the
 * order they were applied, with the totals as they stood after that row.
 */
function statusChangesOf(states: Iterable<InvoiceState>): InvoiceStatusChange[] {
  const changes: InvoiceStatusChange[] = [];
  for (const state of states) {
    const { invoice } = state;
    for (const applied of state.applied) {
      if (applied.from === applied.to && !applied.event) continue;
      changes.push({
        invoiceId: invoice.id,
        projectId: invoice.project_id,
        projectKind: invoice.project_kind,
        externalId: invoice.external_id,
        coin: invoice.coin,
        address: invoice.address,
        previousStatus: applied.from === NEW ? null : applied.from,
        status: applied.to,
        eventType: applied.event?.type ?? null,
        amountUnits: invoice.amount_units,
        receivedUnits: liveUnits({ transfers: applied.transfers }),
        underpaymentTolerance: invoice.underpayment_tolerance ?? '0',
      });
    }
  }
  return changes;
}

/** The view of a working copy with `status` and `transfers`. */
function viewOf(state: InvoiceState, status: InvoiceStatus, transfers: readonly TransferState[], chains: ChainRegistry, links: CheckoutLinks): InvoiceView {
  return invoiceView(
    { ...state.invoice, status } as Invoice,
    transfers.map((t) => transactionRow(state, t)),
    chains,
    links,
  );
}

/** A transfer of a working copy in the shape of its stored row (for views). */
function transactionRow(state: InvoiceState, t: TransferState): InvoiceTransaction {
  return {
    id: t.id,
    invoice_id: state.invoice.id,
    project_id: state.invoice.project_id,
    chain: state.invoice.chain,
    coin: state.invoice.coin,
    tx_hash: t.txHash,
    output_index: t.outputIndex,
    to_address: state.invoice.address,
    amount_units: t.amountUnits,
    block_height: t.blockHeight === null ? null : t.blockHeight.toString(),
    block_hash: t.blockHash,
    confirmations: t.confirmations,
    status: t.status,
    synthetic: t.synthetic,
    detected_at: t.detectedAt,
    confirmed_at: t.confirmedAt,
  } as InvoiceTransaction;
}
