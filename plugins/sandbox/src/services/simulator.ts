import { derivedId, isAppError, type ChainId, type ChainRegistry, type RateLimiter } from '@gw/kernel';
import type { InvoiceService, InvoiceStatus, InvoiceTransitions, InvoiceView, TransactionWrite, TransitionRequest } from '@gw/plugin-invoices';
import type { Actor } from '@gw/plugin-tenancy';
import type { EventLog } from '@gw/plugin-webhooks';
import type { Logger } from 'pino';
import type { SandboxConfig } from '../config.js';
import { sandboxErrors } from '../errors.js';
import { EVENT_RULES, fractionOfUnits, multiplyUnits, SIMULATION_RULES, synthesizedTxHash, TERMINAL_EVENT_TYPES, type Simulation } from '../simulations.js';
import type { SimulateEventInput } from '../schemas.js';

/** What a simulation answers (spec 4.5): the event it emitted and the invoice's status after it. */
export interface SimulationResult {
  readonly event_id: string;
  readonly status: InvoiceStatus;
}

/** Body of the named simulations, already checked by the route schemas (exactly-one rules included). */
export interface SimulationInput {
  readonly seed?: string;
  readonly multiplier?: number;
  readonly extraUnits?: string;
  readonly fraction?: number;
  readonly amountUnits?: string;
}

/**
 * The sandbox's simulations. Each one enters through the seam a real watcher uses
 * (`invoicesTransitions.apply`): the invoice is locked, the precondition checked again under the
 * lock, the status and a synthetic transaction written, the change audited and its event put in
 * the outbox, all in one transaction; partners receive real signed webhooks with `mode: sandbox`.
 */
export class Simulator {
  constructor(
    private readonly deps: {
      logger: Logger;
      chains: ChainRegistry;
      rateLimiter: RateLimiter;
      sandboxConfig: SandboxConfig;
      invoicesService: InvoiceService;
      invoicesTransitions: InvoiceTransitions;
      webhooksEventLog: EventLog;
    },
  ) {}

  /** One of the named simulations of spec 4.5 on an invoice of the project. */
  async simulate(projectId: string, invoiceId: string, simulation: Simulation, input: SimulationInput, actor: Actor): Promise<SimulationResult> {
    const invoice = await this.invoice(projectId, invoiceId);
    await this.limit(projectId, invoice);
    const rule = SIMULATION_RULES[simulation];
    // detect and paid carry ids derived from (invoice, status): calling them again answers the same event.
    const derived = simulation === 'detect' ? derivedId(invoice.id, 'detected') : simulation === 'paid' ? derivedId(invoice.id, 'paid') : undefined;
    if (derived && invoice.status === rule.to && (await this.eventExists(projectId, derived))) return { event_id: derived, status: invoice.status };
    this.requireFrom(invoice, rule.from, simulation);
    const units = BigInt(invoice.amount_crypto_units);
    const threshold = invoice.confirmation_threshold;
    const primaryHash = invoice.transactions.find((tx) => tx.status !== 'reverted')?.tx_hash ?? synthesizedTxHash(this.chainOf(invoice), invoice.id);
    let change: Pick<TransitionRequest, 'transaction' | 'transactions' | 'eventData'> = {};
    switch (simulation) {
      case 'detect':
        change = { transaction: synthetic(synthesizedTxHash(this.chainOf(invoice), input.seed ?? invoice.id), units, 0, 'pending') };
        break;
      case 'paid':
      case 'reconfirm':
        change = { transactions: { status: 'confirmed', confirmations: Math.max(threshold, 1) } };
        break;
      case 'overpaid': {
        const paid = input.multiplier !== undefined ? multiplyUnits(units, input.multiplier) : units + BigInt(input.extraUnits!);
        change = { transaction: synthetic(primaryHash, paid, Math.max(threshold, 1), 'confirmed'), eventData: { paid_units: paid.toString() } };
        break;
      }
      case 'partial': {
        const paid = input.fraction !== undefined ? fractionOfUnits(units, input.fraction) : BigInt(input.amountUnits!);
        if (paid >= units) {
          throw sandboxErrors.sandbox_invoice_transition_invalid({
            message: `amountUnits must be below the invoice amount (${units} base units) for a partial payment.`,
            details: { field: 'amountUnits', amount_crypto_units: units.toString() },
          });
        }
        change = { transaction: synthetic(primaryHash, paid, 0, 'pending'), eventData: { paid_units: paid.toString() } };
        break;
      }
      case 'late-payment':
        change = { transaction: synthetic(synthesizedTxHash(this.chainOf(invoice), `${invoice.id}:late`), units, Math.max(threshold, 1), 'confirmed') };
        break;
      case 'reorg':
        change = { transactions: { status: 'reverted', confirmations: 0 } };
        break;
      case 'expire':
        break;
    }
    return this.apply(invoice, { from: rule.from, to: rule.to === 'same' ? invoice.status : rule.to, event: rule.event, ...(derived ? { eventId: derived } : {}), ...change }, actor, simulation);
  }

  /** simulate-event: any event the state machine allows, gated on `expectedCurrentStatus`. */
  async simulateEvent(projectId: string, invoiceId: string, input: SimulateEventInput, actor: Actor): Promise<SimulationResult> {
    const invoice = await this.invoice(projectId, invoiceId);
    await this.limit(projectId, invoice);
    if (invoice.status !== input.expectedCurrentStatus) {
      throw sandboxErrors.sandbox_invoice_transition_invalid({
        message: `The invoice is ${invoice.status}, not ${input.expectedCurrentStatus}.`,
        details: { status: invoice.status, expected_current_status: input.expectedCurrentStatus },
      });
    }
    const rule = EVENT_RULES[input.eventType];
    this.requireFrom(invoice, rule.from, input.eventType);
    const amount = BigInt(input.amountUnits);
    const paying = input.eventType !== 'invoice.expired' && input.eventType !== 'invoice.reverted';
    const status = input.confirmations >= invoice.confirmation_threshold && input.eventType !== 'invoice.detected' ? 'confirmed' : 'pending';
    const hash = synthesizedTxHash(this.chainOf(invoice), input.seed ?? `${invoice.id}:${input.eventType}`);
    return this.apply(
      invoice,
      {
        from: [invoice.status],
        to: rule.to,
        event: input.eventType,
        ...(paying ? { transaction: { ...synthetic(hash, amount, input.confirmations, status), blockHeight: BigInt(input.blockHeight) } } : {}),
        ...(input.eventType === 'invoice.reverted' ? { transactions: { status: 'reverted' as const, confirmations: 0 } } : {}),
        eventData: {
          amount_units: amount.toString(),
          confirmations: input.confirmations,
          block_height: input.blockHeight,
          ...(input.chainSpecific ? { chain_specific: input.chainSpecific } : {}),
        },
      },
      actor,
      'event',
    );
  }

  /**
   * simulate-duplicate-delivery: the invoice's most recent terminal event is delivered once more
   * under the same `event_id`. No status changes. 422 `sandbox_invoice_terminal` before any.
   */
  async duplicateDelivery(projectId: string, invoiceId: string, actor: Actor): Promise<{ event_id: string }> {
    const invoice = await this.invoice(projectId, invoiceId);
    await this.limit(projectId, invoice);
    const eventId = await this.deps.webhooksEventLog.latestOfInvoice(projectId, invoice.id, TERMINAL_EVENT_TYPES);
    if (!eventId) throw sandboxErrors.sandbox_invoice_terminal({ details: { status: invoice.status } });
    await this.deps.webhooksEventLog.redeliver(projectId, eventId, actor);
    return { event_id: eventId };
  }

  /**
   * clock/advance: adds `blocks` confirmations to every detected invoice of the project on
   * `chain`. An invoice whose count reaches its `confirmation_threshold` is final: `paid` for the
   * invoiced amount, `overpaid` above it, `partial` below it (with that event). Returns how many
   * changed status and how many detected invoices remain below their threshold.
   */
  async advanceClock(projectId: string, chain: ChainId, blocks: number, actor: Actor): Promise<{ advanced: number; remaining: number }> {
    const limit = this.deps.sandboxConfig.clockAdvanceRateLimitPerMinute;
    await this.deps.rateLimiter.consume({ key: `sandbox.clock:project:${projectId}:chain:${chain}`, limit, windowSeconds: 60 }, (retryAfter) =>
      sandboxErrors.sandbox_rate_limit_exceeded({ retryAfter, details: { limit, window_seconds: 60, chain } }),
    );
    let advanced = 0;
    let remaining = 0;
    for (const invoice of await this.deps.invoicesService.listByStatus(projectId, chain, 'detected')) {
      const confirmations = invoice.confirmations + blocks;
      const final = confirmations >= invoice.confirmation_threshold;
      const amount = BigInt(invoice.amount_crypto_units);
      const counted = invoice.transactions.filter((tx) => tx.status !== 'reverted');
      const paid = counted.length === 0 ? amount : counted.reduce((sum, tx) => sum + BigInt(tx.amount_units), 0n);
      const to: InvoiceStatus = !final ? 'detected' : paid > amount ? 'overpaid' : paid < amount ? 'partial' : 'paid';
      try {
        await this.deps.invoicesTransitions.apply({
          projectId,
          invoiceId: invoice.id,
          from: ['detected'],
          to,
          ...(final ? { event: `invoice.${to}` as const, ...(to === 'paid' ? { eventId: derivedId(invoice.id, 'paid') } : {}), eventData: { paid_units: paid.toString() } } : {}),
          transactions: { status: final ? 'confirmed' : 'pending', confirmations },
          actor,
          details: { simulation: 'clock/advance', blocks, confirmations },
        });
      } catch (error) {
        // Moved on since it was listed (a concurrent simulation): not this advance's to count.
        if (isAppError(error) && (error.code === 'invalid_state_transition' || error.code === 'invoice_not_found')) continue;
        throw error;
      }
      if (final) advanced++;
      else remaining++;
    }
    return { advanced, remaining };
  }

  private async apply(invoice: InvoiceView, change: Omit<TransitionRequest, 'projectId' | 'invoiceId' | 'actor'>, actor: Actor, simulation: string): Promise<SimulationResult> {
    try {
      const result = await this.deps.invoicesTransitions.apply({ ...change, projectId: invoice.project_id, invoiceId: invoice.id, actor, details: { simulation } });
      return { event_id: result.eventId!, status: result.invoice.status };
    } catch (error) {
      if (isAppError(error) && error.code === 'invalid_state_transition') {
        throw sandboxErrors.sandbox_invoice_transition_invalid({ message: error.message, ...(error.details ? { details: error.details } : {}) });
      }
      if (isAppError(error) && error.code === 'invoice_not_found') throw sandboxErrors.sandbox_invoice_not_found();
      throw error;
    }
  }

  private requireFrom(invoice: InvoiceView, from: readonly InvoiceStatus[], what: string): void {
    if (!from.includes(invoice.status)) {
      throw sandboxErrors.sandbox_invoice_transition_invalid({
        message: `The invoice is ${invoice.status}; ${what} needs ${from.join(' or ')}.`,
        details: { status: invoice.status, allowed_from: from },
      });
    }
  }

  private async invoice(projectId: string, invoiceId: string): Promise<InvoiceView> {
    try {
      return await this.deps.invoicesService.get(projectId, invoiceId);
    } catch (error) {
      if (isAppError(error) && error.code === 'invoice_not_found') throw sandboxErrors.sandbox_invoice_not_found();
      throw error;
    }
  }

  private async limit(projectId: string, invoice: InvoiceView): Promise<void> {
    const limit = this.deps.sandboxConfig.simulateRateLimitPerMinute;
    await this.deps.rateLimiter.consume({ key: `sandbox.simulate:project:${projectId}:chain:${this.chainOf(invoice)}`, limit, windowSeconds: 60 }, (retryAfter) =>
      sandboxErrors.sandbox_rate_limit_exceeded({ retryAfter, details: { limit, window_seconds: 60, chain: this.chainOf(invoice) } }),
    );
  }

  private chainOf(invoice: InvoiceView): ChainId {
    return this.deps.chains.coin(invoice.coin).adapter.definition.id;
  }

  private async eventExists(projectId: string, eventId: string): Promise<boolean> {
    try {
      await this.deps.webhooksEventLog.get(projectId, eventId);
      return true;
    } catch (error) {
      if (isAppError(error) && error.code === 'event_not_found') return false;
      throw error;
    }
  }
}

function synthetic(txHash: string, amountUnits: bigint, confirmations: number, status: TransactionWrite['status']): TransactionWrite {
  return { txHash, amountUnits, confirmations, blockHeight: null, blockHash: null, status, synthetic: true };
}
