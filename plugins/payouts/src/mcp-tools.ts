import { defineMcpTool, mcpArguments, type McpToolDefinition, ULID_PATTERN, withDeps } from '@gw/kernel';
import Type from 'typebox';
import { ITEM_STATUSES, RATE_RULES, type ItemKind } from './contract.js';
import { withoutClaimUrl } from './services/item-store.js';

const DECIMAL = '^[0-9]{1,30}(\\.[0-9]{1,36})?$';
const ListArguments = {
  status: Type.Optional(Type.Enum(ITEM_STATUSES, { description: 'Only this status.' })),
  cursor: Type.Optional(Type.String({ pattern: ULID_PATTERN, description: 'next_cursor of the previous page.' })),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
};
const ListRefundsArguments = mcpArguments({
  ...ListArguments,
  invoice_id: Type.Optional(Type.String({ pattern: ULID_PATTERN, description: 'Only the refunds of this invoice.' })),
});
const ListPayoutsArguments = mcpArguments(ListArguments);
const ProposeRefundArguments = mcpArguments({
  invoice_id: Type.String({ pattern: ULID_PATTERN, description: 'The invoice to refund (ULID).' }),
  amount: Type.Optional(
    Type.String({
      pattern: DECIMAL,
      description: 'Decimal: in the invoice’s coin (coin_amount) or USD (fiat rules); absent: the natural amount (an overpayment’s excess, else all received).',
    }),
  ),
  rate_rule: Type.Optional(Type.Enum(RATE_RULES, { description: 'How the coin amount is found (default coin_amount).' })),
  spread_percent: Type.Optional(Type.String({ pattern: '^[0-9]{1,2}(\\.[0-9]{1,2})?$', description: 'Percent taken off the coin amount.' })),
  email: Type.Optional(Type.String({ pattern: '^[^@\\s]+@[^@\\s]+$', maxLength: 254, description: 'Where the claim link is e-mailed.' })),
  reference: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'A second call with it answers the first refund.' })),
});

/** What every proposal answers: the agent is told that a person decides. */
export const APPROVAL_BY_A_PERSON =
  'Proposed only: no money moves until an administrator approves it in the dashboard (Refunds and payouts) or with `gateway payout approve`. ' +
  'No tool can approve a refund or payout.';

/**
 * The MCP tools of refunds and payouts (issue 37 item 7): read both lists and propose a refund.
 * There is deliberately no approval tool: an agent proposes, a person (an administrator, in the
 * dashboard or the CLI) approves; the proposal's answer says so. Scopes `refunds:read`,
 * `payouts:read`, `refunds:write`.
 */
export const payoutsMcpTools = withDeps(['payoutsItems'], (deps): McpToolDefinition[] => {
  // An agent never sees a claim link (a bearer capability for the payer's money): the partner passes it on by its own means.
  const list = async (
    kind: ItemKind,
    projectId: string,
    args: { status?: (typeof ITEM_STATUSES)[number]; cursor?: string; limit: number; invoice_id?: string },
  ) => {
    const page = await deps.payoutsItems.list({
      projectId,
      kind,
      limit: args.limit,
      ...(args.status ? { status: args.status } : {}),
      ...(args.cursor ? { cursor: args.cursor } : {}),
      ...(args.invoice_id ? { invoiceId: args.invoice_id } : {}),
    });
    return { ...page, items: page.items.map(withoutClaimUrl) };
  };
  return [
    defineMcpTool({
      name: 'list_refunds',
      title: 'List refunds',
      description:
        "The project's refunds, newest first, 1 to 200 per page (default 50), optionally of one status or invoice. Each: id, status (awaiting_claim, claimed, " +
        'approved, batched, sent, completed, failed, cancelled), invoice_id, coin, amount (decimal string), address once claimed, approvals and ' +
        'approvals_required, plan_id and txid once paid. Returns { items, next_cursor }.',
      input: ListRefundsArguments,
      scope: 'refunds:read',
      writes: false,
      errors: ['validation_error'],
      handler: async ({ args, project }) => list('refund', project.id, args),
    }),
    defineMcpTool({
      name: 'list_payouts',
      title: 'List payouts',
      description:
        "The project's payouts, newest first, 1 to 200 per page (default 50), optionally of one status: id, status (pending_approval, approved, batched, sent, " +
        'completed, failed, cancelled), address, coin, amount (decimal string), reference, approvals, plan_id and txid. Returns { items, next_cursor }.',
      input: ListPayoutsArguments,
      scope: 'payouts:read',
      writes: false,
      errors: ['validation_error'],
      handler: async ({ args, project }) => list('payout', project.id, args),
    }),
    defineMcpTool({
      name: 'propose_refund',
      title: 'Propose a refund',
      description:
        'Proposes a refund of an invoice: an amount (or its natural amount: the excess of an overpaid invoice, else all it received) under a rate rule, ' +
        'never more than the invoice received. The payer claims it on a claim page whose link the partner receives over its signed API (never here: claim_url is null). Returns { refund, created, approval }. ' +
        'It moves nothing: an administrator must approve it in the dashboard or the CLI; no tool can approve.',
      input: ProposeRefundArguments,
      scope: 'refunds:write',
      writes: true,
      errors: ['validation_error', 'invoice_not_found', 'refund_not_refundable', 'refund_exceeds_received', 'idempotency_key_reused', 'rate_quote_unavailable'],
      handler: async ({ args, project, actor }) => {
        const { item, created } = await deps.payoutsItems.createRefund(
          {
            projectId: project.id,
            invoiceId: args.invoice_id,
            ...(args.amount ? { amount: args.amount } : {}),
            ...(args.rate_rule ? { rateRule: args.rate_rule } : {}),
            ...(args.spread_percent ? { spreadPercent: args.spread_percent } : {}),
            ...(args.email ? { email: args.email } : {}),
            ...(args.reference ? { reference: args.reference } : {}),
            ...(args.reason ? { reason: args.reason } : {}),
            ...(args.idempotency_key ? { idempotencyKey: args.idempotency_key } : {}),
          },
          actor,
        );
        return { refund: withoutClaimUrl(item), created, approval: APPROVAL_BY_A_PERSON };
      },
    }),
  ];
});
