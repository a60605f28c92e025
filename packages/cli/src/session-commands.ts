/**
 * The partner commands of checkout sessions and payment links (issue 38): `gateway
 * checkout-sessions create|list|get|expire` and `gateway payment-links create|list|get|deactivate`.
 * A sandbox secret (`sk_sandbox_`) talks to the sandbox mount, any other to the production one.
 */
import type { CheckoutSessionQuery, CreateCheckoutSessionInput, CreatePaymentLinkInput, PaymentLinkQuery } from '@gw/client';
import { CHECKOUT_SESSION_STATUSES } from '@gw/client';
import { PartnerUsageError } from './credentials.js';
import type { ResourceCommand } from './resource-command.js';
import { choiceFlag, dataFlag, flagText, idempotencyOption, oneId, pageFlags, wholeNumberFlag, yesNoFlag, type FlagValues } from './flag-values.js';

export const SESSION_VERBS = ['create', 'list', 'get', 'expire'] as const;
export const LINK_VERBS = ['create', 'list', 'get', 'deactivate'] as const;

/** The flags the `checkout-sessions` and `payment-links` commands take (besides the credentials). */
export const SESSION_FLAGS = {
  currency: { type: 'string' },
  amount: { type: 'string' },
  min: { type: 'string' },
  max: { type: 'string' },
  coins: { type: 'string' },
  description: { type: 'string' },
  'external-id': { type: 'string' },
  email: { type: 'string' },
  'return-url': { type: 'string' },
  'cancel-url': { type: 'string' },
  'expires-in': { type: 'string' },
  'max-uses': { type: 'string' },
  'ask-email': { type: 'string' },
  data: { type: 'string' },
  status: { type: 'string' },
  link: { type: 'string' },
  active: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  'idempotency-key': { type: 'string' },
} as const;

/**
 * The body of a create: `--data` (the whole JSON body) with the flags given on top of it, so a
 * body with line items or metadata and a quick `--currency EUR --amount 5` both work.
 */
function body(values: FlagValues, flags: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const parsed = dataFlag(values);
  if (parsed !== undefined && (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)))
    throw new PartnerUsageError('--data must be a JSON object (the request body)');
  const base = (parsed ?? {}) as Record<string, unknown>;
  const given = Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined));
  return { ...base, ...given };
}

const coins = (values: FlagValues) =>
  flagText(values, 'coins')
    ?.split(',')
    .map((c) => c.trim());

/** Runs `gateway checkout-sessions <verb> ...`; returns the answer to print. */
export const runCheckoutSessions: ResourceCommand = async (gateway, verb, positionals, values) => {
  const sessions = gateway.checkoutSessions;
  switch (verb) {
    case 'create': {
      if (positionals.length > 0) throw new PartnerUsageError('expected: gateway checkout-sessions create --currency C --amount X [...]');
      const input = body(values, {
        price_currency: flagText(values, 'currency'),
        price_amount: flagText(values, 'amount'),
        allowed_coins: coins(values),
        description: flagText(values, 'description'),
        external_id: flagText(values, 'external-id'),
        customer_email: flagText(values, 'email'),
        return_url: flagText(values, 'return-url'),
        cancel_url: flagText(values, 'cancel-url'),
        expires_in: wholeNumberFlag(values, 'expires-in'),
      });
      if (input['price_currency'] === undefined || input['price_amount'] === undefined)
        throw new PartnerUsageError('checkout-sessions create needs --currency and --amount (or them in --data)');
      return sessions.create(input as CreateCheckoutSessionInput, idempotencyOption(values));
    }
    case 'list': {
      if (positionals.length > 0)
        throw new PartnerUsageError('expected: gateway checkout-sessions list [--status S] [--link ID] [--external-id X] [--limit N] [--cursor C]');
      const status = choiceFlag(values, 'status', CHECKOUT_SESSION_STATUSES);
      const query: CheckoutSessionQuery = {
        ...(status ? { status } : {}),
        ...(flagText(values, 'link') ? { payment_link_id: flagText(values, 'link')! } : {}),
        ...(flagText(values, 'external-id') ? { external_id: flagText(values, 'external-id')! } : {}),
        ...pageFlags(values),
      };
      return sessions.list(query);
    }
    case 'get':
      return sessions.retrieve(oneId('checkout-sessions', 'get', positionals));
    case 'expire':
      return sessions.expire(oneId('checkout-sessions', 'expire', positionals));
    default:
      throw new PartnerUsageError(`expected: gateway checkout-sessions <${SESSION_VERBS.join('|')}>`);
  }
};

/** Runs `gateway payment-links <verb> ...`; returns the answer to print. */
export const runPaymentLinks: ResourceCommand = async (gateway, verb, positionals, values) => {
  const links = gateway.paymentLinks;
  switch (verb) {
    case 'create': {
      if (positionals.length > 0) throw new PartnerUsageError('expected: gateway payment-links create --currency C (--amount X | --min X --max Y) [...]');
      const askEmail = yesNoFlag(values, 'ask-email');
      const input = body(values, {
        price_currency: flagText(values, 'currency'),
        price_amount: flagText(values, 'amount'),
        min_amount: flagText(values, 'min'),
        max_amount: flagText(values, 'max'),
        allowed_coins: coins(values),
        description: flagText(values, 'description'),
        max_uses: wholeNumberFlag(values, 'max-uses'),
        ask_email: askEmail,
        return_url: flagText(values, 'return-url'),
      });
      if (input['price_currency'] === undefined) throw new PartnerUsageError('payment-links create needs --currency (or it in --data)');
      return links.create(input as CreatePaymentLinkInput, idempotencyOption(values));
    }
    case 'list': {
      if (positionals.length > 0) throw new PartnerUsageError('expected: gateway payment-links list [--active yes|no] [--limit N] [--cursor C]');
      const active = yesNoFlag(values, 'active');
      const query: PaymentLinkQuery = { ...(active === undefined ? {} : { active: active ? 'true' : 'false' }), ...pageFlags(values) } as const;
      return links.list(query);
    }
    case 'get':
      return links.retrieve(oneId('payment-links', 'get', positionals));
    case 'deactivate':
      return links.deactivate(oneId('payment-links', 'deactivate', positionals));
    default:
      throw new PartnerUsageError(`expected: gateway payment-links <${LINK_VERBS.join('|')}>`);
  }
};
