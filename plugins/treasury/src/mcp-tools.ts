import { defineMcpTool, mcpArguments, type McpToolDefinition, withDeps } from '@gw/kernel';
import Type from 'typebox';

const RATE = Type.String({ pattern: '^[0-9]{1,30}$', description: 'Base units per size unit (sat/vB, lovelace/byte).' });

const BalancesArguments = mcpArguments({
  chain: Type.Optional(Type.String({ maxLength: 40, description: 'Only this chain (btc, ltc, ada).' })),
  network: Type.Optional(Type.String({ maxLength: 40 })),
  group_by: Type.Union([Type.Literal('network'), Type.Literal('address')], { default: 'network' }),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
});

const ProposeArguments = mcpArguments({
  chain: Type.String({ maxLength: 40 }),
  network: Type.String({ maxLength: 40 }),
  destination: Type.String({ minLength: 1, maxLength: 200, description: '"own" (the account’s next change address) or an external address of the network.' }),
  invoice_ids: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 1000 })),
  min_units: Type.Optional(Type.String({ pattern: '^[0-9]{1,78}$' })),
  fee_rate: Type.Optional(RATE),
  max_fee_rate: Type.Optional(RATE),
});

/**
 * The treasury's MCP tools (issue 35 item 6): read the project's balances, and propose a sweep.
 * A proposal is only a plan: it moves nothing until a person signs its plan file offline and
 * imports it; no tool imports, broadcasts or approves. PAT scopes `treasury:read`, `treasury:write`.
 */
export const treasuryMcpTools = withDeps(['treasuryBalances', 'treasuryPlans'], (deps): McpToolDefinition[] => [
  defineMcpTool({
    name: 'get_treasury_balances',
    title: 'Treasury balances',
    description:
      "What the project's pool addresses hold, per chain network (default) or per address: confirmed_units, unconfirmed_units, outputs, and " +
      'unclaimed_units (orphans and late payments). Amounts are base units as decimal strings. Returns { rows, next }.',
    input: BalancesArguments,
    scope: 'treasury:read',
    writes: false,
    errors: ['validation_error'],
    handler: async ({ args, project }) =>
      deps.treasuryBalances.balances(
        {
          groupBy: args.group_by === 'address' ? 'address' : 'project',
          ...(args.chain ? { chain: args.chain as never } : {}),
          ...(args.network ? { network: args.network } : {}),
          projectId: project.id,
          limit: args.limit,
        },
        { projectId: project.id },
      ),
  }),
  defineMcpTool({
    name: 'propose_treasury_plan',
    title: 'Propose a treasury sweep',
    description:
      "Proposes a plan gathering the project's confirmed unspent outputs (all worth more than min_units, or those of invoice_ids) to " +
      '"own" (the account’s next change address) or an external address. Returns the plan: fee, fee_percent, skipped outputs and the ' +
      'plan_file to sign offline. It moves nothing: a person must sign the plan file and import it; this tool cannot approve, sign or broadcast.',
    input: ProposeArguments,
    scope: 'treasury:write',
    writes: true,
    errors: [
      'treasury_nothing_to_move',
      'treasury_outputs_planned',
      'treasury_output_spent',
      'treasury_fee_above_ceiling',
      'treasury_wrong_network',
      'treasury_unavailable',
    ],
    handler: async ({ args, project, actor }) =>
      deps.treasuryPlans.sweep(
        {
          chain: args.chain,
          network: args.network,
          select: {
            projectId: project.id,
            ...(args.invoice_ids ? { invoiceIds: args.invoice_ids } : {}),
            ...(args.min_units ? { minUnits: BigInt(args.min_units) } : {}),
          },
          destination: args.destination === 'own' ? { kind: 'own', projectId: project.id } : { kind: 'external', address: args.destination },
          ...(args.fee_rate ? { feeRate: BigInt(args.fee_rate) } : {}),
          ...(args.max_fee_rate ? { maxFeeRate: BigInt(args.max_fee_rate) } : {}),
        },
        { projectId: project.id },
        actor,
      ),
  }),
]);
