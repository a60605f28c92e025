import { type Actor, type ChainId, type ChainRegistry, isAppError, type RateLimiter } from '@gw/kernel';
import {
  isFinal,
  liveTransfers,
  liveUnits,
  type InvoiceLifecycle,
  type InvoiceService,
  type InvoiceState,
  type InvoiceStatus,
  type TransferKey,
  type TransitionRecord,
} from '@gw/plugin-invoices/contract';
import type { EventLog } from '@gw/plugin-webhooks/contract';
import type { Knex } from 'knex';
import type { SandboxConfig } from '../config.js';
import { sandboxErrors } from '../errors.js';
import {
  EVENT_RULES,
  fractionOfUnits,
  multiplyUnits,
  SIMULATION_RULES,
  simulationApplies,
  synthesizedTxHash,
  TERMINAL_EVENT_TYPES,
  type Simulation,
} from '../simulations.js';
import type { SimulateEventInput } from '../schemas.js';
import { countedPayments, unconfirmedPayments, type SandboxChain } from './sandbox-chain.js';

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

/** A step of a simulation: one lifecycle command in the simulation's transaction. */
type Step = (trx: Knex.Transaction, state: InvoiceState) => Promise<TransitionRecord[]>;

/**
 * The sandbox's simulations, built as facts for the invoice lifecycle (SIMULATION_RULES says how
 * each is built): payments go through the same matcher (`observePayments`), confirmations through
 * the same counting (`confirm`), reorganisations and drops through `revertPayments`, expiry through
 * `deadline_passed`, so the sandbox cannot disagree with production. Each simulation is one
 * transaction: when the lifecycle's outcome is not the one the simulation promises (spec 4.5), it
 * is refused with 422 `sandbox_invoice_transition_invalid` and nothing is kept. Partners receive
 * real signed webhooks with `mode: sandbox`.
 */
export class Simulator {
  constructor(
    private readonly deps: {
      db: Knex;
      chains: ChainRegistry;
      rateLimiter: RateLimiter;
      sandboxConfig: SandboxConfig;
      invoicesService: InvoiceService;
      invoicesLifecycle: InvoiceLifecycle;
      webhooksEventLog: EventLog;
      sandboxChain: SandboxChain;
    },
  ) {}

  /** One of the named simulations of spec 4.5 on an invoice of the project. */
  async simulate(projectId: string, invoiceId: string, simulation: Simulation, input: SimulationInput, actor: Actor): Promise<SimulationResult> {
    const invoice = await this.invoice(projectId, invoiceId);
    await this.limit(projectId, invoice.coin);
    const rule = SIMULATION_RULES[simulation];
    // detect and paid are idempotent on (invoice, status): calling them again answers the same event.
    if ((simulation === 'detect' || simulation === 'paid') && invoice.status === rule.to) {
      const sent = await this.deps.webhooksEventLog.latestOfInvoice(projectId, invoice.id, [rule.event]);
      if (sent) return { event_id: sent, status: invoice.status };
    }
    const chain = this.chainOf(invoice.coin);
    const sandbox = this.deps.sandboxChain;
    const pay =
      (amountUnits: bigint, txHash: string, replaces: readonly TransferKey[] = []): Step =>
      (trx, state) =>
        sandbox.pay(trx, state, { amountUnits, txHash, replaces }, actor);
    const confirm: Step = (trx, state) => sandbox.confirm(trx, state, () => Math.max(state.invoice.confirmation_threshold, 1), actor);
    const drop: Step = (trx, state) => sandbox.drop(trx, state, unconfirmedPayments(state), actor);
    const deadline: Step = (trx, state) => sandbox.deadline(trx, state, actor);
    return this.run(projectId, invoiceId, simulation, rule.from, rule.to, rule.event, (state) => {
      const amount = state.invoice.amount_units;
      const hash = (kind: string) => synthesizedTxHash(this.deps.chains.get(chain).definition, `${state.invoice.id}:${kind}:${state.transfers.length}`);
      switch (simulation) {
        case 'detect':
          return [pay(amount, synthesizedTxHash(this.deps.chains.get(chain).definition, input.seed ?? state.invoice.id))];
        case 'paid': {
          const due = amount - liveUnits(state);
          return [...(due > 0n ? [pay(due, hash('paid'))] : []), confirm];
        }
        case 'overpaid': {
          const total = input.multiplier !== undefined ? multiplyUnits(amount, input.multiplier) : amount + BigInt(input.extraUnits!);
          const extra = total - liveUnits(state);
          return [...(extra > 0n ? [pay(extra, hash('overpaid'))] : []), confirm];
        }
        case 'partial': {
          const part = input.fraction !== undefined ? fractionOfUnits(amount, input.fraction) : BigInt(input.amountUnits!);
          if (part >= amount) {
            throw sandboxErrors.sandbox_invoice_transition_invalid({
              message: `amountUnits must be below the invoice amount (${amount} base units) for a partial payment.`,
              details: { field: 'amountUnits', amount_crypto_units: amount.toString() },
            });
          }
          if (!simulationApplies('partial', state.invoice)) {
            throw sandboxErrors.sandbox_invoice_transition_invalid({
              message:
                'An invoice with matching_mode any accepts any amount, so a smaller payment is not partial (production would send no invoice.partial either).',
              details: { matching_mode: 'any' },
            });
          }
          return [pay(part, hash('partial'), unconfirmedPayments(state))];
        }
        case 'expire':
          return [drop, deadline];
        case 'late-payment':
          return [pay(amount, synthesizedTxHash(this.deps.chains.get(chain).definition, `${state.invoice.id}:late`)), confirm];
        case 'reorg':
          return [(trx, current) => sandbox.reorg(trx, current, countedPayments(current), actor)];
        case 'reconfirm':
          return [pay(amount, hash('reconfirm')), confirm];
      }
    });
  }

  /** simulate-event: the event's payment (or drop, deadline, reorg) as facts, gated on `expectedCurrentStatus`. */
  async simulateEvent(projectId: string, invoiceId: string, input: SimulateEventInput, actor: Actor): Promise<SimulationResult> {
    const invoice = await this.invoice(projectId, invoiceId);
    await this.limit(projectId, invoice.coin);
    if (invoice.status !== input.expectedCurrentStatus) {
      throw sandboxErrors.sandbox_invoice_transition_invalid({
        message: `The invoice is ${invoice.status}, not ${input.expectedCurrentStatus}.`,
        details: { status: invoice.status, expected_current_status: input.expectedCurrentStatus },
      });
    }
    const rule = EVENT_RULES[input.eventType];
    const chain = this.chainOf(invoice.coin);
    const sandbox = this.deps.sandboxChain;
    const extras = {
      amount_units: input.amountUnits,
      confirmations: input.confirmations,
      block_height: input.blockHeight,
      ...(input.chainSpecific ? { chain_specific: input.chainSpecific } : {}),
    };
    const drop: Step = (trx, state) => sandbox.drop(trx, state, unconfirmedPayments(state), actor);
    return this.run(projectId, invoiceId, 'event', rule.from, rule.to, input.eventType, (state) => {
      const hash = synthesizedTxHash(this.deps.chains.get(chain).definition, input.seed ?? `${state.invoice.id}:${input.eventType}:${state.transfers.length}`);
      const payment =
        (confirmations: number): Step =>
        (trx, current) =>
          sandbox.pay(
            trx,
            current,
            { amountUnits: BigInt(input.amountUnits), txHash: hash, confirmations, blockHeight: BigInt(input.blockHeight), eventData: extras },
            actor,
          );
      switch (input.eventType) {
        case 'invoice.detected':
          return [payment(input.confirmations)];
        case 'invoice.paid':
        case 'invoice.overpaid':
        case 'invoice.partial':
        case 'invoice.expired_paid_late': {
          // The event's payment replaces the unconfirmed ones, then confirms (at least to the threshold).
          const count = Math.max(input.confirmations, state.invoice.confirmation_threshold, 1);
          return [drop, payment(0), (trx, current) => sandbox.confirm(trx, current, () => count, actor, extras)];
        }
        case 'invoice.expired':
          return [drop, (trx, current) => sandbox.deadline(trx, current, actor)];
        case 'invoice.reverted':
          return [(trx, current) => sandbox.reorg(trx, current, countedPayments(current), actor)];
      }
    });
  }

  /**
   * simulate-duplicate-delivery: the invoice's most recent terminal event is delivered once more
   * under the same `event_id`. No status changes. 422 `sandbox_invoice_terminal` before any.
   */
  async duplicateDelivery(projectId: string, invoiceId: string, actor: Actor): Promise<{ event_id: string }> {
    const invoice = await this.invoice(projectId, invoiceId);
    await this.limit(projectId, invoice.coin);
    const eventId = await this.deps.webhooksEventLog.latestOfInvoice(projectId, invoice.id, TERMINAL_EVENT_TYPES);
    if (!eventId) throw sandboxErrors.sandbox_invoice_terminal({ details: { status: invoice.status } });
    await this.deps.webhooksEventLog.redeliver(projectId, eventId, actor);
    return { event_id: eventId };
  }

  /**
   * clock/advance: `blocks` more confirmations for every unconfirmed payment of the project's
   * invoices on `chain` (payment_confirmed, counted by the lifecycle's rules: an invoice whose
   * payments all reach its threshold settles as paid, overpaid or partial, or expired_paid_late).
   * Returns how many changed status and how many detected invoices remain below their threshold.
   */
  async advanceClock(projectId: string, chain: ChainId, blocks: number, actor: Actor): Promise<{ advanced: number; remaining: number }> {
    const limit = this.deps.sandboxConfig.clockAdvanceRateLimitPerMinute;
    await this.deps.rateLimiter.consume({ key: `sandbox.clock:project:${projectId}:chain:${chain}`, limit, windowSeconds: 60 }, (retryAfter) =>
      sandboxErrors.sandbox_rate_limit_exceeded({ retryAfter, details: { limit, window_seconds: 60, chain } }),
    );
    const ids = await this.deps.invoicesService.awaitingConfirmations(projectId, chain);
    return this.deps.db.transaction(async (trx) => {
      let advanced = 0;
      let remaining = 0;
      for (const id of ids) {
        const state = await this.deps.invoicesLifecycle.lockOwn(trx, projectId, id);
        const transitions = await this.deps.sandboxChain.confirm(trx, state, (t) => t.confirmations + blocks, actor);
        const after = await this.deps.invoicesLifecycle.lockOwn(trx, projectId, id);
        if (transitions.some((t) => t.from !== t.to)) advanced++;
        if (after.status === 'detected' && liveTransfers(after).some((t) => !isFinal(t, after.invoice.confirmation_threshold))) remaining++;
      }
      return { advanced, remaining };
    });
  }

  /**
   * Runs `build`'s steps on the locked invoice in one transaction and answers the last event the
   * invoice sent. The status must be in `from` (checked under the lock) and end as `to` (`same`:
   * unchanged) with an event of `event`'s type, else 422 and the transaction rolls back.
   */
  private async run(
    projectId: string,
    invoiceId: string,
    simulation: string,
    from: readonly InvoiceStatus[],
    to: InvoiceStatus | 'same',
    event: string,
    build: (state: InvoiceState) => Step[],
  ): Promise<SimulationResult> {
    try {
      return await this.deps.db.transaction(async (trx) => {
        const state = await this.deps.invoicesLifecycle.lockOwn(trx, projectId, invoiceId);
        requireFrom(state.status, from, simulation);
        const expected = to === 'same' ? state.status : to;
        const records: TransitionRecord[] = [];
        for (const step of build(state)) {
          const current = await this.deps.invoicesLifecycle.lockOwn(trx, projectId, invoiceId);
          records.push(...(await step(trx, current)).filter((r) => r.invoiceId === invoiceId));
        }
        const after = await this.deps.invoicesLifecycle.lockOwn(trx, projectId, invoiceId);
        const sent = records.filter((r) => r.eventType === event && r.eventId);
        if (after.status !== expected || sent.length === 0) {
          throw sandboxErrors.sandbox_invoice_transition_invalid({
            message: `Under the lifecycle's rules this ${simulation === 'event' ? `${event} simulation` : `simulate-${simulation}`} leaves the invoice ${after.status}${sent.length === 0 ? ` without ${event}` : ''}, not ${expected}; nothing was changed.`,
            details: { status: after.status, expected_status: expected, matching_mode: after.invoice.matching_mode },
          });
        }
        return { event_id: sent[sent.length - 1]!.eventId!, status: after.status };
      });
    } catch (error) {
      if (isAppError(error) && error.code === 'invoice_not_found') throw sandboxErrors.sandbox_invoice_not_found();
      throw error;
    }
  }

  private async invoice(projectId: string, invoiceId: string) {
    try {
      return await this.deps.invoicesService.get(projectId, invoiceId);
    } catch (error) {
      if (isAppError(error) && error.code === 'invoice_not_found') throw sandboxErrors.sandbox_invoice_not_found();
      throw error;
    }
  }

  private async limit(projectId: string, coin: string): Promise<void> {
    const limit = this.deps.sandboxConfig.simulateRateLimitPerMinute;
    const chain = this.chainOf(coin);
    await this.deps.rateLimiter.consume({ key: `sandbox.simulate:project:${projectId}:chain:${chain}`, limit, windowSeconds: 60 }, (retryAfter) =>
      sandboxErrors.sandbox_rate_limit_exceeded({ retryAfter, details: { limit, window_seconds: 60, chain } }),
    );
  }

  private chainOf(coin: string): ChainId {
    return this.deps.chains.coin(coin as never).adapter.definition.id;
  }
}

function requireFrom(status: InvoiceStatus, from: readonly InvoiceStatus[], what: string): void {
  if (!from.includes(status)) {
    throw sandboxErrors.sandbox_invoice_transition_invalid({
      message: `The invoice is ${status}; ${what === 'event' ? 'this event' : `simulate-${what}`} needs ${from.join(' or ')}.`,
      details: { status, allowed_from: from },
    });
  }
}
