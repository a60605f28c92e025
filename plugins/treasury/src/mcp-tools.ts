import { defineMcpTool, mcpArguments, type McpToolDefinition, withDeps } from '@gw/kernel';
import Type from 'typebox';
import { ACCOUNT_METHODS } from './services/account-plans.js';

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

const AccountNetworkArguments = {
  chain: Type.String({ maxLength: 40, description: 'An account chain: eth, polygon, bsc, base, tron, ton.' }),
  network: Type.String({ maxLength: 40 }),
};
const HoldingsArguments = mcpArguments(AccountNetworkArguments);
const AccountSweepArguments = mcpArguments({
  ...AccountNetworkArguments,
  coin: Type.String({ maxLength: 40, description: 'The coin to gather (eth, usdc_erc20, usdt_tron, ...).' }),
  destination: Type.String({ minLength: 1, maxLength: 200, description: 'An address of the network (the operator’s cold wallet, an exchange).' }),
  method: Type.Optional(Type.Enum(ACCOUNT_METHODS, { description: 'How to move it; absent: the cheapest.' })),
  min_units: Type.Optional(Type.String({ pattern: '^[0-9]{1,78}$' })),
});

/**
 * The treasury's MCP tools (issue 35 item 6): read the project's balances, and propose a sweep.
 * A proposal is only a plan: it moves nothing until a person signs its plan file offline and
 * imports it; no tool imports, broadcasts or approves. PAT scopes `treasury:read`, `treasury:write`.
 * On account chains (issue 36): the project's holdings per address, each method's cost, and a
 * proposed sweep plan, which likewise moves nothing until its steps are signed offline.
 */
export const treasuryMcpTools = withDeps(['treasuryBalances', 'treasuryPlans', 'treasuryAccountPlans'], (deps): McpToolDefinition[] => [
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
  defineMcpTool({
    name: 'get_treasury_holdings',
    title: 'Account-chain holdings',
    description:
      "What each of the project's pool addresses on an account chain (EVM, TRON, TON) holds on chain now: balances per coin, and per token the native " +
      'gas it lacks to move alone (gas_lacking_units), what moving it costs (move_cost_units) and a dust flag. Base units as decimal strings. Returns { holdings }.',
    input: HoldingsArguments,
    scope: 'treasury:read',
    writes: false,
    errors: ['validation_error', 'treasury_unavailable'],
    handler: async ({ args, project }) => ({
      holdings: await deps.treasuryAccountPlans.holdings({ chain: args.chain, network: args.network, projectId: project.id }, { projectId: project.id }),
    }),
  }),
  defineMcpTool({
    name: 'quote_treasury_sweep',
    title: 'Quote an account-chain sweep',
    description:
      "What each method (native, gas_top_up, eip7702, eip3009, energy_burn, energy_delegation, jetton_batch) would cost to gather a coin from the project's " +
      'pool addresses to a destination now: fee_units, operator_pays_units, steps and signing rounds, and why a method is unavailable. Returns { sources, quotes }.',
    input: AccountSweepArguments,
    scope: 'treasury:read',
    writes: false,
    errors: ['validation_error', 'treasury_unavailable', 'treasury_nothing_to_move', 'treasury_wrong_network'],
    handler: async ({ args, project }) => deps.treasuryAccountPlans.quote(accountSweep(args, project.id), { projectId: project.id }),
  }),
  defineMcpTool({
    name: 'propose_treasury_account_plan',
    title: 'Propose an account-chain sweep',
    description:
      "Proposes a plan gathering a coin from the project's pool addresses on an account chain to a destination, by the method given or the cheapest. " +
      'Returns the plan with its steps, signing rounds and fees. It moves nothing: a person must download its plan file, sign it offline and import it; ' +
      'this tool cannot approve, sign or broadcast.',
    input: AccountSweepArguments,
    scope: 'treasury:write',
    writes: true,
    errors: [
      'treasury_nothing_to_move',
      'treasury_outputs_planned',
      'treasury_wrong_network',
      'treasury_unavailable',
      'treasury_method_unavailable',
      'treasury_operator_account_missing',
    ],
    handler: async ({ args, project, actor }) => deps.treasuryAccountPlans.sweep(accountSweep(args, project.id), { projectId: project.id }, actor),
  }),
]);

function accountSweep(
  args: { chain: string; network: string; coin: string; destination: string; method?: (typeof ACCOUNT_METHODS)[number]; min_units?: string },
  projectId: string,
) {
  return {
    chain: args.chain,
    network: args.network,
    coin: args.coin,
    destination: args.destination,
    projectId,
    ...(args.method ? { method: args.method } : {}),
    ...(args.min_units ? { minUnits: BigInt(args.min_units) } : {}),
  };
}
