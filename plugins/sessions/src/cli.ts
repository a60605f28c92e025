import { CLI_ACTOR, COIN_ID_PATTERN, type CliCommand, type CliFlag, type CoinId, defineCommand, PAGE_FLAGS, pageFlags, ulidFlag } from '@gw/kernel';
import { SESSION_STATUSES, type CreateLinkInput, type SessionStatus } from './contract.js';

const DECIMAL = /^[0-9]{1,30}(\.[0-9]{1,36})?$/;
const PROJECT = ulidFlag('Project');
const decimalFlag = (description: string): CliFlag => ({
  type: 'string',
  description,
  validate: (v) => (DECIMAL.test(v) ? undefined : 'must be a decimal number (e.g. 25 or 19.90)'),
});

/** The flags of `payment-link create`, shared with the dashboard's form in meaning (same fields, same checks in the service). */
const LINK_FLAGS: Readonly<Record<string, CliFlag>> = {
  project: PROJECT,
  currency: {
    type: 'string',
    required: true,
    description: 'Price currency: an ISO 4217 code the rates price (EUR, USD, ...) or a coin id (btc) for a price in that coin.',
    validate: (v) => (/^[A-Za-z0-9_-]{1,40}$/.test(v) ? undefined : 'must be a currency code or a coin id'),
  },
  amount: decimalFlag('A fixed price in the currency. Without it, --min and --max: the payer enters the amount.'),
  min: decimalFlag('The smallest amount a payer may enter (with --max).'),
  max: decimalFlag('The largest amount a payer may enter (with --min).'),
  coins: {
    type: 'string',
    description: 'The coins a payer may pick, comma-separated (default: every enabled coin the project has a verified wallet for).',
    validate: (v) => (v.split(',').every((c) => COIN_ID_PATTERN.test(c.trim())) ? undefined : 'must be coin ids, comma-separated'),
  },
  description: { type: 'string', description: 'What is paid for, shown to the payer and on the receipt.' },
  'max-uses': {
    type: 'string',
    description: 'How many payments (completed sessions) the link takes at most (default unlimited).',
    validate: (v) => (/^[1-9][0-9]{0,8}$/.test(v) ? undefined : 'must be a whole number from 1'),
  },
  'ask-email': {
    type: 'string',
    choices: ['yes', 'no'],
    description: 'Whether the link’s page asks the payer for an e-mail address for the receipt (default yes).',
  },
  'return-url': { type: 'string', description: 'Where the payer goes after paying (https).' },
};

/** The body of `payment-link create` from its flags; the service checks the rest (currency, limits, coins). */
export function linkInputOf(flags: Readonly<Record<string, string | boolean | undefined>>): CreateLinkInput {
  const text = (name: string): string | undefined => (typeof flags[name] === 'string' && flags[name] !== '' ? (flags[name] as string) : undefined);
  const coins = text('coins');
  const maxUses = text('max-uses');
  const askEmail = text('ask-email');
  return {
    price_currency: String(flags['currency']),
    ...(text('amount') ? { price_amount: text('amount')! } : {}),
    ...(text('min') ? { min_amount: text('min')! } : {}),
    ...(text('max') ? { max_amount: text('max')! } : {}),
    ...(coins ? { allowed_coins: coins.split(',').map((c) => c.trim() as CoinId) } : {}),
    ...(text('description') ? { description: text('description')! } : {}),
    ...(maxUses ? { max_uses: Number(maxUses) } : {}),
    ...(askEmail ? { ask_email: askEmail === 'yes' } : {}),
    ...(text('return-url') ? { return_url: text('return-url')! } : {}),
  };
}

/**
 * Operator CLI of checkout sessions and payment links (issue 38): `gateway payment-link create |
 * list | show | deactivate` and `gateway checkout-session list | show | expire`, for any project
 * (`--project`), audited as `operator-cli`. Partners create sessions over the API; the operator
 * creates links (a URL to paste in a chat or print as a QR code) and looks after both.
 */
export const sessionsCommands: CliCommand[] = [
  defineCommand(['tenancyProjects', 'sessionsLinks'], {
    noun: 'payment-link',
    verb: 'create',
    summary: 'Create a payment link of a project: a reusable URL (and QR code) with a fixed price or an amount the payer enters within limits.',
    help:
      'Examples:\n  pnpm gateway payment-link create --project 01J... --currency EUR --amount 25 --description "Coffee beans, 1 kg"\n' +
      '  pnpm gateway payment-link create --project 01J... --currency USD --min 5 --max 500 --coins btc,usdt_trc20 --max-uses 100\n' +
      'Each payer who opens the URL gets a checkout session of their own and picks the coin there.',
    flags: LINK_FLAGS,
    run: async ({ flags, deps }) => {
      const project = await deps.tenancyProjects.get(String(flags['project']));
      const { link } = await deps.sessionsLinks.create({ id: project.id, kind: project.kind }, linkInputOf(flags), CLI_ACTOR);
      return { link };
    },
  }),
  defineCommand(['tenancyProjects', 'sessionsLinks'], {
    noun: 'payment-link',
    verb: 'list',
    summary: 'A project’s payment links, newest first, with their uses (paged).',
    flags: {
      project: PROJECT,
      active: { type: 'string', choices: ['yes', 'no'], description: 'Only active (yes) or deactivated (no) links.' },
      ...PAGE_FLAGS,
    },
    run: async ({ flags, deps }) => {
      await deps.tenancyProjects.get(String(flags['project']));
      const page = pageFlags(flags);
      return deps.sessionsLinks.list({
        projectId: String(flags['project']),
        limit: page.limit,
        ...(page.cursor ? { cursor: page.cursor } : {}),
        ...(flags['active'] ? { active: flags['active'] === 'yes' } : {}),
      });
    },
  }),
  defineCommand(['sessionsLinks'], {
    noun: 'payment-link',
    verb: 'show',
    summary: 'One payment link: price or limits, allowed coins, uses, its URL and QR code address.',
    flags: { project: PROJECT, id: ulidFlag('Payment link') },
    run: async ({ flags, deps }) => ({ link: await deps.sessionsLinks.get(String(flags['project']), String(flags['id'])) }),
  }),
  defineCommand(['sessionsLinks'], {
    noun: 'payment-link',
    verb: 'deactivate',
    summary: 'Deactivate a payment link: its URL opens no new session (sessions already open go on).',
    flags: { project: PROJECT, id: ulidFlag('Payment link') },
    run: async ({ flags, deps }) => ({ link: await deps.sessionsLinks.deactivate(String(flags['project']), String(flags['id']), CLI_ACTOR) }),
  }),
  defineCommand(['tenancyProjects', 'sessionsCheckout'], {
    noun: 'checkout-session',
    verb: 'list',
    summary: 'A project’s checkout sessions, newest first (by status, payment link or external id; paged).',
    flags: {
      project: PROJECT,
      status: { type: 'string', choices: SESSION_STATUSES, description: 'Only this status.' },
      link: ulidFlag('Payment link', { required: false, description: 'Only the sessions opened from this payment link (ULID).' }),
      'external-id': { type: 'string', description: 'Only this external_id.' },
      ...PAGE_FLAGS,
    },
    run: async ({ flags, deps }) => {
      await deps.tenancyProjects.get(String(flags['project']));
      const page = pageFlags(flags);
      return deps.sessionsCheckout.list({
        projectId: String(flags['project']),
        limit: page.limit,
        ...(page.cursor ? { cursor: page.cursor } : {}),
        ...(flags['status'] ? { status: flags['status'] as SessionStatus } : {}),
        ...(flags['link'] ? { paymentLinkId: String(flags['link']) } : {}),
        ...(flags['external-id'] ? { externalId: String(flags['external-id']) } : {}),
      });
    },
  }),
  defineCommand(['sessionsCheckout'], {
    noun: 'checkout-session',
    verb: 'show',
    summary: 'One checkout session: price, allowed coins, the coin picked, its invoices (late ones marked), receipt.',
    flags: { project: PROJECT, id: ulidFlag('Checkout session') },
    run: async ({ flags, deps }) => ({ session: await deps.sessionsCheckout.get(String(flags['project']), String(flags['id'])) }),
  }),
  defineCommand(['sessionsCheckout'], {
    noun: 'checkout-session',
    verb: 'expire',
    summary: 'End an open checkout session now (its unpaid invoice is cancelled; event checkout_session.expired).',
    flags: { project: PROJECT, id: ulidFlag('Checkout session') },
    run: async ({ flags, deps }) => ({ session: await deps.sessionsCheckout.expire(String(flags['project']), String(flags['id']), CLI_ACTOR) }),
  }),
];
