import { defineMcpTool, mcpArguments, type McpToolDefinition, PAGE_QUERY, ULID_PATTERN, withDeps } from '@gw/kernel';
import Type from 'typebox';
import { CreateLinkBody, CreateSessionBody } from './schemas.js';

const IDEMPOTENCY_KEY = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'A second call with the same key and arguments answers the first result instead of creating again.',
  }),
);
const CreateLinkArguments = mcpArguments({ ...CreateLinkBody.properties, idempotency_key: IDEMPOTENCY_KEY });
const CreateSessionArguments = mcpArguments({ ...CreateSessionBody.properties, idempotency_key: IDEMPOTENCY_KEY });
const ListLinksArguments = mcpArguments({
  active: Type.Optional(Type.Boolean({ description: 'Only active (true) or only deactivated (false) links.' })),
  ...PAGE_QUERY,
});
const SessionArguments = mcpArguments({ checkout_session_id: Type.String({ pattern: ULID_PATTERN, description: 'Checkout session id (ULID).' }) });

const PRICE =
  'The price is price_currency (an ISO 4217 code the gateway prices: USD, EUR, GBP, JPY, CHF, CAD, AUD, BRL, INR, TRY; or a coin id such as btc for a price in that coin) ' +
  'with a decimal string amount (at most the currency’s decimals: JPY 0, the others 2).';

/** What the two create tools share: the invoices' write scope, and the refusals of a create. */
const CREATE_TOOL = {
  scope: 'invoices:write',
  access: { write: true },
  writes: true,
  errors: ['validation_error', 'coin_not_allowed', 'amount_out_of_range', 'idempotency_key_reused', 'rate_quote_unavailable', 'subscription_expired'],
} as const;

/**
 * The MCP tools of checkout sessions and payment links (issue 38), for every project kind (a sandbox
 * project's sessions are sandbox sessions): `create_payment_link` (the issue's agent tool: a URL to
 * hand to a customer), `create_checkout_session`, `list_payment_links`, `get_checkout_session`.
 * Scopes as the invoice tools': `invoices:write` to create, `invoices:read` to read.
 */
export const sessionsMcpTools = withDeps(['sessionsCheckout', 'sessionsLinks'], (deps): McpToolDefinition[] => [
  defineMcpTool({
    name: 'create_payment_link',
    title: 'Create a payment link',
    description:
      'Create a reusable payment link: a URL (url) and its QR code (qr_url, an SVG) to hand to customers, in a chat or on a page. Every customer who opens it gets a checkout session ' +
      'of their own and picks the coin they pay in (allowed_coins; default every coin the project can be paid in). ' +
      `${PRICE} Give a fixed price_amount, or min_amount and max_amount for an amount the customer enters (a tip, a donation). ` +
      'Optional: description and line_items (shown to the payer and on the receipt), max_uses (paid sessions it takes), ask_email (default true: the page asks for an address for the receipt), return_url, metadata. ' +
      'Returns the payment link: id, url, qr_url, active, uses and the rest. Same logic as POST /api/v1/payment-links.',
    input: CreateLinkArguments,
    ...CREATE_TOOL,
    handler: async ({ args, project, actor }) => {
      const { project_id: _, idempotency_key: key, ...input } = args;
      return (await deps.sessionsLinks.create({ id: project.id, kind: project.kind }, input, actor, key)).link;
    },
  }),
  defineMcpTool({
    name: 'create_checkout_session',
    title: 'Create a checkout session',
    description:
      'Create a checkout session for one payment whose coin the payer chooses: send the payer to its url, where they pick a coin and network; only then is an invoice (a deposit address) created. ' +
      `${PRICE} Optional: allowed_coins (default every coin the project can be paid in), description, line_items, external_id (your reference), customer_email (for the receipt), ` +
      'return_url, cancel_url, metadata, expires_in (seconds). Returns the session: id, status (open), url, allowed_coins, expires_at_iso and the rest. ' +
      'It completes when paid (webhook checkout_session.completed). Same logic as POST /api/v1/checkout-sessions.',
    input: CreateSessionArguments,
    ...CREATE_TOOL,
    handler: async ({ args, project, actor }) => {
      const { project_id: _, idempotency_key: key, ...input } = args;
      return (await deps.sessionsCheckout.create({ id: project.id, kind: project.kind }, input, actor, key)).session;
    },
  }),
  defineMcpTool({
    name: 'list_payment_links',
    title: 'List payment links',
    description:
      "The project's payment links, newest first, 1 to 200 per page (default 50), optionally only active or deactivated ones: id, url, qr_url, active, price_currency, " +
      'price_amount (or min_amount and max_amount), allowed_coins, description, uses (paid sessions) and max_uses. Returns { items, next_cursor }; pass next_cursor as cursor for the next page.',
    input: ListLinksArguments,
    scope: 'invoices:read',
    writes: false,
    errors: ['validation_error'],
    handler: async ({ args, project }) =>
      deps.sessionsLinks.list({
        projectId: project.id,
        limit: args.limit,
        ...(args.active === undefined ? {} : { active: args.active }),
        ...(args.cursor ? { cursor: args.cursor } : {}),
      }),
  }),
  defineMcpTool({
    name: 'get_checkout_session',
    title: 'Get a checkout session',
    description:
      'One checkout session: status (open, completed, expired), price, allowed_coins, the coin picked and its invoice_id, every invoice of the session (one per coin picked; late: paid after the payer switched away), ' +
      'receipt_url once completed. checkout_session_not_found when it is not a session of this project.',
    input: SessionArguments,
    scope: 'invoices:read',
    writes: false,
    errors: ['validation_error', 'checkout_session_not_found'],
    handler: async ({ args, project }) => deps.sessionsCheckout.get(project.id, args.checkout_session_id),
  }),
]);
