import { chainErrors } from '../chain-errors.js';
import type { AccountPayoutRequest, AccountPlanBuild, AccountStep, OperatorAccount, PayoutRecipient } from './account-treasury.js';
import { treasuryChainErrors } from './treasury-chain-errors.js';

/**
 * The checks every chain's `buildPayout` makes before it reads the chain: a coin, at least one
 * recipient, each with a reference, a positive amount of base units and an address `isAddress`
 * accepts (`treasury_wrong_network` otherwise, naming its index), and a sender. Returns the sending
 * operator account when `from` is one (`treasury_operator_account_missing` when it is absent).
 */
export function checkPayoutRequest(request: AccountPayoutRequest, isAddress: (address: string) => boolean, network: string): OperatorAccount | undefined {
  if (typeof request !== 'object' || request === null) throw chainErrors.validation_error({ message: 'A payout request is an object.' });
  if (typeof request.coin !== 'string' || request.coin.length === 0) throw chainErrors.validation_error({ message: 'A payout names its coin.' });
  if (!Array.isArray(request.recipients) || request.recipients.length === 0)
    throw chainErrors.validation_error({ message: 'A payout needs at least one recipient.' });
  request.recipients.forEach((recipient: PayoutRecipient, index) => {
    if (typeof recipient?.reference !== 'string' || recipient.reference.length === 0)
      throw chainErrors.validation_error({ message: `Recipient ${index} has no reference.`, details: { index } });
    if (typeof recipient.units !== 'bigint' || recipient.units <= 0n)
      throw chainErrors.validation_error({
        message: `Recipient ${index} (${recipient.reference}) must receive a positive amount of base units.`,
        details: { index },
      });
    if (typeof recipient.address !== 'string' || !isAddress(recipient.address))
      throw treasuryChainErrors.treasury_wrong_network({
        message: `Recipient ${index} (${recipient.reference}): ${String(recipient.address).slice(0, 80)} is not an address of ${network}.`,
        details: { index },
      });
  });
  const from = request.from as AccountPayoutRequest['from'] | undefined;
  if (from?.kind === 'deposit') {
    if (typeof from.source?.address !== 'string' || !Number.isInteger(from.source.index) || from.source.index < 0)
      throw chainErrors.validation_error({ message: 'The sending pool address needs its address, key and receive index.' });
    return undefined;
  }
  if (from?.kind !== 'operator') throw chainErrors.validation_error({ message: 'A payout is sent from a pool address or the funding account.' });
  const account = from.account ?? request.operatorAccounts?.funding;
  if (!account)
    throw treasuryChainErrors.treasury_operator_account_missing({ message: `The payout is sent from the funding account; configure one for ${network}.` });
  if (typeof account.address !== 'string' || typeof account.path !== 'string')
    throw chainErrors.validation_error({ message: 'The funding account needs its address and derivation path.' });
  return account;
}

/** `context.recipients` of a payout plan: `[{"reference","address","units"}]` in request order, units as decimal strings. */
export function payoutRecipientsContext(recipients: readonly PayoutRecipient[]): string {
  return JSON.stringify(recipients.map((r) => ({ reference: r.reference, address: r.address, units: r.units.toString() })));
}

/** The plan's `destination` for a payout: the recipients' addresses, comma-separated, each once, in request order. */
export function payoutDestination(recipients: readonly PayoutRecipient[]): string {
  return [...new Set(recipients.map((r) => r.address))].join(',');
}

/** `treasury_insufficient_value` with the details the contract names. */
export function payoutShortfall(coin: string, needed: bigint, held: bigint, who: string): never {
  throw treasuryChainErrors.treasury_insufficient_value({
    message: `${who} holds ${held} base units of ${coin}; the payout needs ${needed} (amounts and fees).`,
    details: { coin, needed_units: needed.toString(), held_units: held.toString() },
  });
}

/**
 * A chain's payout plan from its steps: one round, every recipient's units moved, the steps' fees
 * (paid by the operator when it sends), nothing skipped; `context` is the chain's own.
 */
export function payoutPlanBuild(input: {
  readonly coin: string;
  readonly recipients: readonly PayoutRecipient[];
  readonly steps: readonly AccountStep[];
  /** Whether the operator's funding account sends (and so pays the fees). */
  readonly operator: boolean;
  readonly context: AccountPlanBuild['context'];
}): AccountPlanBuild {
  const feeUnits = input.steps.reduce((sum, s) => sum + s.feeUnits, 0n);
  return {
    method: 'payout',
    coin: input.coin,
    destination: payoutDestination(input.recipients),
    steps: input.steps,
    rounds: 1,
    movedUnits: input.recipients.reduce((sum, r) => sum + r.units, 0n),
    feeUnits,
    operatorPaysUnits: input.operator ? feeUnits : 0n,
    skipped: [],
    context: input.context,
  };
}
