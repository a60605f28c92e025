import { extensionPoint, type CoinId, type InvoiceEventType, type ProjectKind } from '@gw/kernel';
import type { Knex } from 'knex';
import type { InvoiceStatus } from '../invoice-status.js';

/**
 * One change of an invoice's status, as observers hear it (issue 38). Amounts are bigint base
 * units of the invoice's coin. A change is a lifecycle row applied that moves the status or sends
 * an event (so a top-up that leaves a `partial` invoice `partial` with a fresh `invoice.partial` is
 * one, with `previousStatus` equal to `status`); an invoice created in `pending` is none.
 */
export interface InvoiceStatusChange {
  readonly invoiceId: string;
  readonly projectId: string;
  readonly projectKind: ProjectKind;
  readonly externalId: string;
  readonly coin: CoinId;
  readonly address: string;
  /** The status before; `null` for an invoice created directly in its status (an attributed orphan receipt, `new → paid`). */
  readonly previousStatus: InvoiceStatus | null;
  readonly status: InvoiceStatus;
  /** The event the change sends (`invoice.paid`, …), null when it sends none (cancel, ambiguous). */
  readonly eventType: InvoiceEventType | null;
  /** What the invoice asks for. */
  readonly amountUnits: bigint;
  /** What its live transfers add up to after the change (pending and confirmed). */
  readonly receivedUnits: bigint;
  /**
   * The invoice's underpayment tolerance snapshot (a decimal share, "0" when off): a payment of at
   * least amount − floor(amount × tolerance) covers it (`toleratedShortfall`).
   */
  readonly underpaymentTolerance: string;
}

/**
 * A plugin that follows invoices' statuses (the sessions plugin completes a checkout session when
 * its invoice is paid). The invoices plugin calls `onStatus` inside the transaction that changes
 * the status, after the change, for every change: what the observer writes commits with the change
 * or not at all, and an error it throws rolls the change back. It must not call the invoice
 * lifecycle back in that transaction (it may enqueue jobs that do).
 */
export interface InvoiceObserver {
  onStatus(trx: Knex.Transaction, change: InvoiceStatusChange): Promise<void>;
}

/** Observers of invoices' statuses, contributed by other plugins (`contribute(INVOICE_OBSERVERS, …)`, ADR 0011). */
export const INVOICE_OBSERVERS = extensionPoint<InvoiceObserver>('invoices.observers');
