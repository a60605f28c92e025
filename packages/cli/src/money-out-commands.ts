/**
 * The partner commands of refunds and payouts (issue 37): `gateway refunds create|list|get|cancel`,
 * `gateway payouts create|list|get|cancel`, and `gateway trigger refund.<x>|payout.<x>`. A sandbox
 * secret (`sk_sandbox_`) talks to the sandbox mount, any other to the production one.
 */
import type { GatewayClient, MoneyOutListQuery, PayoutRecipientInput } from '@gw/client';
import { MONEY_OUT_STATUSES, REFUND_RATE_RULES } from '@gw/client';
import { PartnerUsageError } from './credentials.js';
import type { ResourceCommand } from './resource-command.js';
import { moneyOutTriggerPlan, type MoneyOutStep } from './trigger-plan.js';
import { choiceFlag, dataFlag, flagText, idempotencyOption, oneId, pageFlags, type FlagValues } from './flag-values.js';

export const MONEY_OUT_VERBS = ['create', 'list', 'get', 'cancel'] as const;

/** The flags the `refunds` and `payouts` commands take (besides the credentials). */
export const MONEY_OUT_FLAGS = {
  invoice: { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  amount: { type: 'string' },
  'rate-rule': { type: 'string' },
  spread: { type: 'string' },
  address: { type: 'string' },
  email: { type: 'string' },
  reference: { type: 'string' },
  reason: { type: 'string' },
  coin: { type: 'string' },
  data: { type: 'string' },
  'idempotency-key': { type: 'string' },
} as const;

function listQuery(values: FlagValues): MoneyOutListQuery {
  const status = choiceFlag(values, 'status', MONEY_OUT_STATUSES);
  return { ...(status ? { status } : {}), ...pageFlags(values, 3) };
}

/** Runs `gateway refunds <verb> ...`; returns the answer to print. */
export const runRefunds: ResourceCommand = async (gateway, verb, positionals, values) => {
  const { refunds } = gateway;
  switch (verb) {
    case 'create': {
      const invoiceId = oneId('refunds', 'create', positionals);
      const rateRule = choiceFlag(values, 'rate-rule', REFUND_RATE_RULES);
      const body = {
        ...(flagText(values, 'amount') ? { amount: flagText(values, 'amount')! } : {}),
        ...(rateRule ? { rate_rule: rateRule } : {}),
        ...(flagText(values, 'spread') ? { spread_percent: flagText(values, 'spread')! } : {}),
        ...(flagText(values, 'address') ? { address: flagText(values, 'address')! } : {}),
        ...(flagText(values, 'email') ? { email: flagText(values, 'email')! } : {}),
        ...(flagText(values, 'reference') ? { reference: flagText(values, 'reference')! } : {}),
        ...(flagText(values, 'reason') ? { reason: flagText(values, 'reason')! } : {}),
      };
      return refunds.create(invoiceId, body, idempotencyOption(values));
    }
    case 'list': {
      if (positionals.length > 0) throw new PartnerUsageError('expected: gateway refunds list [--invoice ID] [--status S] [--limit N] [--cursor C]');
      const invoice = flagText(values, 'invoice');
      return invoice ? refunds.listForInvoice(invoice) : refunds.list(listQuery(values));
    }
    case 'get':
      return refunds.retrieve(oneId('refunds', 'get', positionals));
    case 'cancel':
      return refunds.cancel(oneId('refunds', 'cancel', positionals));
    default:
      throw new PartnerUsageError(`expected: gateway refunds <${MONEY_OUT_VERBS.join('|')}>`);
  }
};

/** The recipients of `payouts create`: `--data` (a JSON array) or one from the flags. */
function recipients(values: FlagValues): PayoutRecipientInput[] {
  const parsed = dataFlag(values);
  if (parsed !== undefined) {
    if (!Array.isArray(parsed)) throw new PartnerUsageError('--data must be a JSON array of recipients {address, coin, amount, reference}');
    return parsed as PayoutRecipientInput[];
  }
  const [address, coin, amount, reference] = ['address', 'coin', 'amount', 'reference'].map((name) => flagText(values, name));
  if (!address || !coin || !amount || !reference)
    throw new PartnerUsageError('payouts create needs --address, --coin, --amount and --reference (or --data JSON)');
  return [{ address, coin, amount, reference, ...(flagText(values, 'reason') ? { reason: flagText(values, 'reason')! } : {}) }];
}

/** Runs `gateway payouts <verb> ...`; returns the answer to print. */
export const runPayouts: ResourceCommand = async (gateway, verb, positionals, values) => {
  const { payouts } = gateway;
  switch (verb) {
    case 'create':
      if (positionals.length > 0)
        throw new PartnerUsageError('expected: gateway payouts create --address A --coin C --amount X --reference R (or --data JSON)');
      return { items: await payouts.create(recipients(values), idempotencyOption(values)) };
    case 'list':
      if (positionals.length > 0) throw new PartnerUsageError('expected: gateway payouts list [--status S] [--limit N] [--cursor C]');
      return payouts.list(listQuery(values));
    case 'get':
      return payouts.retrieve(oneId('payouts', 'get', positionals));
    case 'cancel':
      return payouts.cancel(oneId('payouts', 'cancel', positionals));
    default:
      throw new PartnerUsageError(`expected: gateway payouts <${MONEY_OUT_VERBS.join('|')}>`);
  }
};

/** One step of a money-out trigger and the item's status after it. */
export interface MoneyOutTriggerStep {
  readonly step: 'invoice' | 'detect' | 'overpaid' | 'create' | MoneyOutStep;
  readonly id: string;
  readonly status: string;
}

/**
 * Produces `eventType` (a refund or payout event) in the sandbox. A refund: a new sandbox invoice,
 * paid overpaid by simulations, refunded (its natural amount, the excess), then simulated on. A
 * payout: paid to `address`, else to the address of a new sandbox invoice of `coin` (a valid
 * address of the coin's test network), then simulated on.
 */
export async function triggerMoneyOut(
  gateway: GatewayClient,
  eventType: string,
  options: { readonly coin: string; readonly address?: string | undefined },
  onStep: (step: MoneyOutTriggerStep) => void,
): Promise<{ readonly object: 'refund' | 'payout'; readonly id: string; readonly invoice_id: string | null; readonly status: string }> {
  const plan = moneyOutTriggerPlan(eventType);
  if (!plan) throw new PartnerUsageError(`unknown event type "${eventType}"`);
  const { sandbox } = gateway;
  const coin = options.coin as Parameters<typeof sandbox.invoices.create>[0]['coin'];
  const created = Date.now();
  if (eventType.startsWith('refund.')) {
    const invoice = await sandbox.invoices.create({ external_id: `trigger-${created}`, coin, amount_crypto: '0.01' });
    onStep({ step: 'invoice', id: invoice.id, status: invoice.status });
    onStep({ step: 'detect', id: invoice.id, status: (await sandbox.simulate.detect(invoice.id)).status ?? '' });
    onStep({ step: 'overpaid', id: invoice.id, status: (await sandbox.simulate.overpaid(invoice.id, { multiplier: 1.5 })).status ?? '' });
    let refund = await sandbox.refunds.create(invoice.id, { reason: `gateway trigger ${eventType}` }, { idempotencyKey: `trigger-${created}` });
    onStep({ step: 'create', id: refund.id, status: refund.status });
    for (const step of plan) {
      refund = step === 'cancel' ? await sandbox.refunds.cancel(refund.id) : await sandbox.simulate.refund(refund.id, step);
      onStep({ step, id: refund.id, status: refund.status });
    }
    return { object: 'refund', id: refund.id, invoice_id: invoice.id, status: refund.status };
  }
  let address = options.address;
  if (!address) {
    const target = await sandbox.invoices.create({ external_id: `trigger-payout-${created}`, coin, amount_crypto: '0.01' });
    onStep({ step: 'invoice', id: target.id, status: target.status });
    address = target.address;
  }
  let [payout] = await sandbox.payouts.create(
    [{ address, coin: options.coin, amount: '0.001', reference: `trigger-${created}`, reason: `gateway trigger ${eventType}` }],
    {
      idempotencyKey: `trigger-${created}`,
    },
  );
  onStep({ step: 'create', id: payout!.id, status: payout!.status });
  for (const step of plan) {
    if (step === 'claim') continue;
    payout = step === 'cancel' ? await sandbox.payouts.cancel(payout!.id) : await sandbox.simulate.payout(payout!.id, step);
    onStep({ step, id: payout.id, status: payout.status });
  }
  return { object: 'payout', id: payout!.id, invoice_id: null, status: payout!.status };
}
