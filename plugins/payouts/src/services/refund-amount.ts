import { coreErrors, scaledDecimal, toBaseUnits, UnitsError } from '@gw/kernel';
import { payoutsErrors } from '../errors.js';
import type { RateRule } from '../item-status.js';
import { lessSpread, unitsOfUsd, usdDownOf } from './money.js';

/** What a refund's amount is found from: the invoice as it stands and what its refunds already hold. */
export interface RefundBasis {
  readonly status: string;
  readonly decimals: number;
  /** Base units the invoice asked for. */
  readonly invoicedUnits: bigint;
  /** Base units its counted payments brought. */
  readonly receivedUnits: bigint;
  /** Base units its committed refunds hold. */
  readonly refundedUnits: bigint;
  /** USD per coin when the invoice was priced (its rate snapshot); null without one. */
  readonly paymentRate: string | null;
}

export interface RefundRequest {
  readonly amount?: string;
  readonly rateRule: RateRule;
  readonly spreadPercent?: string;
}

export interface RefundAmount {
  readonly units: bigint;
  /** The rate the amount was found with or valued at. */
  readonly rate: string | null;
}

/** Invoice statuses whose money may go back: settled, or expired after money came. */
const REFUNDABLE = ['paid', 'overpaid', 'expired', 'expired_paid_late'];

/**
 * A refund's base units. Without `amount`: its natural amount (an overpaid invoice's excess, else
 * all it received), less what is already refunded; `fiat_now` then pays that amount's USD value at
 * payment at today's rate. With `amount`: coin (`coin_amount`) or USD at the payment's
 * (`fiat_at_payment`) or today's rate (`fiat_now`, `nowRate` called only then). A spread is then
 * taken off. Refuses an invoice with nothing to refund (`refund_not_refundable`) and an amount above
 * what remains (`refund_exceeds_received`).
 */
export async function refundAmount(basis: RefundBasis, request: RefundRequest, nowRate: () => Promise<string>): Promise<RefundAmount> {
  if (!REFUNDABLE.includes(basis.status) || basis.receivedUnits <= 0n) {
    throw payoutsErrors.refund_not_refundable({ details: { invoice_status: basis.status, received_units: basis.receivedUnits.toString() } });
  }
  const remaining = basis.receivedUnits - basis.refundedUnits;
  const paymentRate = () => {
    if (basis.paymentRate === null) {
      throw coreErrors.validation_error({ message: 'The invoice has no rate at payment: use rate_rule coin_amount.', details: { field: 'rate_rule' } });
    }
    return basis.paymentRate;
  };
  let units: bigint;
  let rate: string | null = basis.paymentRate;
  if (request.amount === undefined) {
    const natural = basis.status === 'overpaid' ? basis.receivedUnits - basis.invoicedUnits - basis.refundedUnits : remaining;
    units = natural;
    if (request.rateRule === 'fiat_now' && units > 0n) {
      const usd = usdDownOf(units, basis.decimals, paymentRate());
      rate = await nowRate();
      units = unitsOfUsd(usd, rate, basis.decimals);
    }
  } else if (request.rateRule === 'coin_amount') {
    try {
      units = toBaseUnits(request.amount, basis.decimals);
    } catch (cause) {
      if (!(cause instanceof UnitsError)) throw cause;
      throw coreErrors.validation_error({ message: `amount: ${cause.message}`, details: { field: 'amount' } });
    }
  } else {
    if (scaledDecimal(request.amount).scale > 2)
      throw coreErrors.validation_error({ message: 'A USD amount has at most 2 decimals.', details: { field: 'amount' } });
    rate = request.rateRule === 'fiat_now' ? await nowRate() : paymentRate();
    units = unitsOfUsd(request.amount, rate, basis.decimals);
  }
  if (request.spreadPercent !== undefined) units = lessSpread(units, request.spreadPercent);
  const details = {
    received_units: basis.receivedUnits.toString(),
    refunded_units: basis.refundedUnits.toString(),
    requested_units: (units < 0n ? 0n : units).toString(),
  };
  if (units <= 0n && request.amount === undefined) throw payoutsErrors.refund_exceeds_received({ message: 'Nothing is left to refund.', details });
  if (units <= 0n) throw coreErrors.validation_error({ message: 'The amount is zero.', details: { field: 'amount' } });
  if (units > remaining) throw payoutsErrors.refund_exceeds_received({ details });
  return { units, rate };
}
