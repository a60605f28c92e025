import { defineRoute, restActor, type RouteDefinition, withDeps } from '@gw/kernel';
import { accountRoutes } from './account-routes.js';
import { treasuryErrors } from './errors.js';
import { AUTH_ERRORS, planRoute, READ, scopeOf, SIGNED_IMPORT_ERRORS, WRITE, WRITE_ERRORS } from './treasury-route.js';
import {
  AccelerateBody,
  BalancesPage,
  BalancesQuery,
  BumpBody,
  CreatePlanBody,
  ImportBody,
  OutputsPage,
  OutputsQuery,
  PlanSchema,
  PlansPage,
  PlansQuery,
  MovedOutPage,
  MovedOutQuery,
  ReconciliationSchema,
} from './schemas.js';
import type { SweepRequest } from './services/treasury-plans.js';
import { planFilterOf } from './services/plan-page.js';
import { scopeProjects } from './services/treasury-scope.js';

/**
 * The treasury's REST API (issue 35 item 6): operators only, with a personal access token
 * (`Authorization: Bearer svc_pat_...`) carrying `treasury:read` or `treasury:write`. A project's
 * signed API key is refused (401 `auth_invalid`): partners never move money.
 */
export const treasuryRoutes = withDeps(
  [
    'treasuryBalances',
    'treasuryPlans',
    'treasurySignedImport',
    'treasuryTracker',
    'treasuryReconciliation',
    'treasuryMovedOut',
    'tenancyProjects',
    'treasuryAccountPlans',
    'treasuryAccountSignedImport',
    'treasuryAccountBroadcaster',
    'treasurySweepers',
  ],
  (deps): RouteDefinition[] => [
    defineRoute({
      method: 'GET',
      path: '/api/v1/treasury/balances',
      summary: 'Unspent value received at pool addresses, per chain network, project or address.',
      description: 'Confirmed and unconfirmed apart; `unclaimed_units` is what orphans and late payments hold. Needs a PAT with treasury:read.',
      tags: ['treasury'],
      auth: 'pat',
      query: BalancesQuery,
      responses: { 200: BalancesPage },
      errors: [...AUTH_ERRORS, 'validation_error'],
      handler: async ({ auth, query }) => ({
        body: await deps.treasuryBalances.balances(
          {
            groupBy: query.group_by,
            ...(query.chain ? { chain: query.chain } : {}),
            ...(query.network ? { network: query.network } : {}),
            ...(query.project_id ? { projectId: query.project_id } : {}),
            limit: query.limit,
            ...(query.after ? { after: query.after } : {}),
          },
          scopeOf(auth, READ),
        ),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/treasury/outputs',
      summary: 'The unspent outputs behind the balances, oldest first, with the plan holding each.',
      tags: ['treasury'],
      auth: 'pat',
      query: OutputsQuery,
      responses: { 200: OutputsPage },
      errors: [...AUTH_ERRORS, 'validation_error'],
      handler: async ({ auth, query }) => ({
        body: await deps.treasuryBalances.outputs(
          {
            chain: query.chain,
            network: query.network,
            ...(query.project_id ? { projectId: query.project_id } : {}),
            ...(query.address ? { address: query.address } : {}),
            limit: query.limit,
            ...(query.after ? { after: query.after } : {}),
          },
          scopeOf(auth, READ),
        ),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/treasury/plans',
      summary: 'Plan a sweep: an unsigned transaction gathering chosen outputs to a destination.',
      description:
        'Answers the plan with its fee, the fee as a share of the value, the outputs not worth moving, and the plan file to sign offline. With max_fee_rate the plan waits (waiting_for_fee) until the next-block rate falls to it.',
      tags: ['treasury'],
      auth: 'pat',
      body: CreatePlanBody,
      responses: { 201: PlanSchema },
      errors: [
        ...WRITE_ERRORS,
        'treasury_nothing_to_move',
        'treasury_outputs_planned',
        'treasury_output_spent',
        'treasury_output_unconfirmed',
        'treasury_output_unknown',
        'treasury_fee_above_ceiling',
        'treasury_fee_rate_unavailable',
        'treasury_wrong_network',
        'treasury_dust_output',
        'treasury_insufficient_value',
        'wallet_not_bound',
      ],
      handler: async ({ auth, body, requestId }) => {
        const scope = scopeOf(auth, WRITE);
        const request: SweepRequest = {
          chain: body.chain,
          network: body.network,
          select: {
            ...(body.select.outpoints ? { outpoints: body.select.outpoints.map((o) => ({ txHash: o.tx_hash, outputIndex: o.output_index })) } : {}),
            ...(body.select.invoice_ids ? { invoiceIds: body.select.invoice_ids } : {}),
            ...(body.select.project_id ? { projectId: body.select.project_id } : {}),
            ...(body.select.received_before ? { receivedBefore: new Date(body.select.received_before) } : {}),
            ...(body.select.min_units ? { minUnits: BigInt(body.select.min_units) } : {}),
          },
          destination:
            body.destination.kind === 'own'
              ? { kind: 'own', ...(body.destination.project_id ? { projectId: body.destination.project_id } : {}) }
              : { kind: 'external', address: body.destination.address },
          ...(body.fee_rate ? { feeRate: BigInt(body.fee_rate) } : {}),
          ...(body.max_fee_rate ? { maxFeeRate: BigInt(body.max_fee_rate) } : {}),
        };
        return { status: 201, body: await deps.treasuryPlans.sweep(request, scope, restActor(auth, requestId)) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/treasury/plans',
      summary: 'Plans, newest first.',
      tags: ['treasury'],
      auth: 'pat',
      query: PlansQuery,
      responses: { 200: PlansPage },
      errors: [...AUTH_ERRORS, 'validation_error'],
      handler: async ({ auth, query }) => ({
        body: await deps.treasuryPlans.list(planFilterOf(query), scopeOf(auth, READ)),
      }),
    }),
    planRoute({
      method: 'GET',
      path: '/api/v1/treasury/plans/:plan_id',
      summary: 'One plan with its inputs, status and plan file.',
      responses: { 200: PlanSchema },
      errors: [...AUTH_ERRORS, 'treasury_plan_not_found'],
      act: (planId, scope) => deps.treasuryPlans.get(planId, scope),
    }),
    planRoute({
      method: 'POST',
      path: '/api/v1/treasury/plans/:plan_id/signed',
      summary: 'Hand back the signed transaction: verified to be exactly the plan before anything is stored.',
      description: 'A second import of the same signed text answers as the first did. Anything that differs from the plan is refused and nothing is broadcast.',
      body: ImportBody,
      responses: { 200: PlanSchema },
      errors: SIGNED_IMPORT_ERRORS,
      act: (planId, scope, actor, body) => deps.treasurySignedImport.import({ planId, text: body.signed, broadcast: body.broadcast }, scope, actor),
    }),
    planRoute({
      method: 'POST',
      path: '/api/v1/treasury/plans/:plan_id/broadcast',
      summary: 'Broadcast a signed plan through the configured providers.',
      responses: { 200: PlanSchema },
      errors: [...WRITE_ERRORS, 'treasury_plan_not_broadcastable', 'treasury_broadcast_rejected'],
      act: (planId, scope, actor) => deps.treasuryTracker.broadcast(planId, scope, actor),
    }),
    planRoute({
      method: 'POST',
      path: '/api/v1/treasury/plans/:plan_id/bump',
      summary: 'Replace a stuck broadcast sweep (RBF): a new plan over the same inputs at a higher fee.',
      body: BumpBody,
      responses: { 201: PlanSchema },
      errors: [...WRITE_ERRORS, 'treasury_plan_not_bumpable', 'treasury_bump_fee_too_low', 'treasury_fee_above_ceiling', 'treasury_fee_rate_unavailable'],
      act: (planId, scope, actor, body) => deps.treasuryPlans.bump(planId, body.fee_rate ? { feeRate: BigInt(body.fee_rate) } : {}, scope, actor),
    }),
    planRoute({
      method: 'POST',
      path: '/api/v1/treasury/plans/:plan_id/cancel',
      summary: 'Drop a plan that was not broadcast; its outputs are free again.',
      responses: { 200: PlanSchema },
      errors: [...WRITE_ERRORS, 'treasury_plan_not_cancellable'],
      act: (planId, scope, actor) => deps.treasuryPlans.cancel(planId, scope, actor),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/treasury/accelerate',
      summary: 'Accelerate an incoming payment (CPFP): a child spending its unconfirmed output, paying for parent and child.',
      tags: ['treasury'],
      auth: 'pat',
      body: AccelerateBody,
      responses: { 201: PlanSchema },
      errors: [
        ...WRITE_ERRORS,
        'treasury_not_accelerable',
        'treasury_output_unknown',
        'treasury_outputs_planned',
        'treasury_fee_above_ceiling',
        'wallet_not_bound',
      ],
      handler: async ({ auth, body, requestId }) => ({
        status: 201,
        body: await deps.treasuryPlans.accelerate(
          {
            chain: body.chain,
            network: body.network,
            txHash: body.tx_hash,
            outputIndex: body.output_index,
            ...(body.fee_rate ? { feeRate: BigInt(body.fee_rate) } : {}),
          },
          scopeOf(auth, WRITE),
          restActor(auth, requestId),
        ),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/treasury/reconciliation',
      summary: 'The latest reconciliation runs and the differences the last run of each network found (reported, never corrected).',
      tags: ['treasury'],
      auth: 'pat',
      responses: { 200: ReconciliationSchema },
      errors: AUTH_ERRORS,
      handler: async ({ auth }) => {
        const scope = scopeOf(auth, READ);
        // Differences name addresses of every project: an operator-wide read only.
        if (scope.projectId)
          throw treasuryErrors.insufficient_scope({ message: 'Reconciliation covers every project: a token bound to a project cannot read it.' });
        const reach = await scopeProjects(deps.tenancyProjects, scope);
        return { body: await deps.treasuryReconciliation.latest(20, reach ?? undefined) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/treasury/moved-out',
      summary: 'Money moved out, for accounting: every plan confirmed in a range, per project, with its share of the fee.',
      tags: ['treasury'],
      auth: 'pat',
      query: MovedOutQuery,
      responses: { 200: MovedOutPage },
      errors: [...AUTH_ERRORS, 'validation_error'],
      handler: async ({ auth, query }) => ({
        body: { rows: await deps.treasuryMovedOut.rows({ from: new Date(query.from), to: new Date(query.to) }, scopeOf(auth, READ)) },
      }),
    }),
    ...accountRoutes(deps),
  ],
);
