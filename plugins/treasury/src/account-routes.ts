import { defineRoute, restActor, type RouteDefinition } from '@gw/kernel';
import type { Static } from 'typebox';
import type { AccountBroadcaster } from './services/account-broadcast.js';
import type { AccountPlans, AccountSweepInput } from './services/account-plans.js';
import type { AccountSignedImport } from './services/account-signed-import.js';
import type { Sweepers } from './services/sweepers.js';
import { planFilterOf } from './services/plan-page.js';
import { AUTH_ERRORS, planRoute, READ, scopeOf, SIGNED_IMPORT_ERRORS, WRITE, WRITE_ERRORS } from './treasury-route.js';
import {
  AccountImportBody,
  AccountPlanFileSchema,
  AccountPlanSchema,
  AccountPlansPage,
  AccountSweepBody,
  ActivationBody,
  HoldingsPage,
  SweeperDeploymentBody,
  SweepersPage,
  SweepersQuery,
  HoldingsQuery,
  QuotesSchema,
} from './account-schemas.js';
import { PlansQuery } from './schemas.js';

/**
 * The account-chain treasury routes (issue 36) under `/api/v1/treasury/accounts/`: holdings per
 * address, quotes per method, sweep and activation plans, the plan file of each signing round,
 * signed imports, broadcast stage by stage and cancellation. Same tokens and scopes as the UTXO
 * routes.
 */
export function accountRoutes(deps: {
  treasuryAccountPlans: AccountPlans;
  treasuryAccountSignedImport: AccountSignedImport;
  treasuryAccountBroadcaster: AccountBroadcaster;
  treasurySweepers: Sweepers;
}): RouteDefinition[] {
  const sweepInput = (body: Static<typeof AccountSweepBody>): AccountSweepInput => ({
    chain: body.chain,
    network: body.network,
    coin: body.coin,
    destination: body.destination,
    ...(body.method ? { method: body.method } : {}),
    ...(body.project_id ? { projectId: body.project_id } : {}),
    ...(body.min_units ? { minUnits: BigInt(body.min_units) } : {}),
  });
  const BUILD_ERRORS = [
    ...WRITE_ERRORS,
    'treasury_nothing_to_move',
    'treasury_outputs_planned',
    'treasury_wrong_network',
    'treasury_method_unavailable',
    'treasury_operator_account_missing',
    'treasury_insufficient_value',
    'chain_provider_unavailable',
  ];
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/treasury/accounts/holdings',
      summary: 'What each pool address of an account-chain network holds on chain now, per coin, with the gas each token lacks and dust flags.',
      tags: ['treasury'],
      auth: 'pat',
      query: HoldingsQuery,
      responses: { 200: HoldingsPage },
      errors: [...AUTH_ERRORS, 'validation_error', 'treasury_unavailable', 'chain_provider_unavailable'],
      handler: async ({ auth, query }) => ({
        body: {
          holdings: await deps.treasuryAccountPlans.holdings(
            { chain: query.chain, network: query.network, ...(query.project_id ? { projectId: query.project_id } : {}) },
            scopeOf(auth, READ),
          ),
        },
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/treasury/accounts/quote',
      summary: 'What each sweep method would cost to gather a coin now: fees, what the operator accounts pay, steps and signing rounds.',
      tags: ['treasury'],
      auth: 'pat',
      body: AccountSweepBody,
      responses: { 200: QuotesSchema },
      errors: BUILD_ERRORS,
      handler: async ({ auth, body }) => ({ body: await deps.treasuryAccountPlans.quote(sweepInput(body), scopeOf(auth, READ)) }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/treasury/accounts/plans',
      summary: 'Plan a sweep of a coin from the pool addresses of an account-chain network, by the method asked or the cheapest.',
      description: 'Answers the plan with its steps, rounds and stages. Download the plan file of round 1, sign it offline, upload the signed file.',
      tags: ['treasury'],
      auth: 'pat',
      body: AccountSweepBody,
      responses: { 201: AccountPlanSchema },
      errors: BUILD_ERRORS,
      handler: async ({ auth, body, requestId }) => ({
        status: 201,
        body: await deps.treasuryAccountPlans.sweep(sweepInput(body), scopeOf(auth, WRITE), restActor(auth, requestId)),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/treasury/accounts/plans',
      summary: 'Account-chain plans, newest first.',
      tags: ['treasury'],
      auth: 'pat',
      query: PlansQuery,
      responses: { 200: AccountPlansPage },
      errors: [...AUTH_ERRORS, 'validation_error'],
      handler: async ({ auth, query }) => ({
        body: await deps.treasuryAccountPlans.list(planFilterOf(query), scopeOf(auth, READ)),
      }),
    }),
    planRoute({
      method: 'GET',
      path: '/api/v1/treasury/accounts/plans/:plan_id',
      summary: 'One account-chain plan with its steps.',
      responses: { 200: AccountPlanSchema },
      errors: [...AUTH_ERRORS, 'treasury_plan_not_found'],
      act: (planId, scope) => deps.treasuryAccountPlans.get(planId, scope),
    }),
    planRoute({
      method: 'GET',
      path: '/api/v1/treasury/accounts/plans/:plan_id/file',
      summary: 'The plan file of the signing round awaited: the steps a signer signs offline (the hot gas wallet’s are not in it).',
      responses: { 200: AccountPlanFileSchema },
      errors: [...AUTH_ERRORS, 'treasury_plan_not_found', 'treasury_plan_not_signable', 'treasury_unavailable'],
      act: (planId, scope) => deps.treasuryAccountPlans.planFile(planId, scope),
    }),
    planRoute({
      method: 'POST',
      path: '/api/v1/treasury/accounts/plans/:plan_id/signed',
      summary: 'Hand back a round’s signed file: each step verified to be exactly the plan’s, signed by its key, before anything is stored.',
      description:
        'Round 1 of a two-round plan (EIP-7702, EIP-3009) makes round 2 (the gas address’s submission), which the hot gas wallet signs when configured, else awaits a second file.',
      body: AccountImportBody,
      responses: { 200: AccountPlanSchema },
      errors: [...SIGNED_IMPORT_ERRORS, 'treasury_hot_wallet_refused', 'treasury_hot_wallet_cap_exceeded'],
      act: (planId, scope, actor, body) => deps.treasuryAccountSignedImport.import({ planId, text: body.signed, broadcast: body.broadcast }, scope, actor),
    }),
    planRoute({
      method: 'POST',
      path: '/api/v1/treasury/accounts/plans/:plan_id/broadcast',
      summary:
        'Broadcast a signed account plan: every nonce checked fresh first (a stale one fails the plan, nothing sent), then stage 1; later stages follow as each confirms.',
      responses: { 200: AccountPlanSchema },
      errors: [...WRITE_ERRORS, 'treasury_plan_not_broadcastable', 'treasury_broadcast_rejected', 'treasury_nonce_stale', 'chain_provider_unavailable'],
      act: (planId, scope, actor) => deps.treasuryAccountBroadcaster.broadcast(planId, scope, actor),
    }),
    planRoute({
      method: 'POST',
      path: '/api/v1/treasury/accounts/plans/:plan_id/cancel',
      summary: 'Drop an account plan that was not broadcast; its addresses are free again.',
      responses: { 200: AccountPlanSchema },
      errors: [...WRITE_ERRORS, 'treasury_plan_not_cancellable'],
      act: (planId, scope, actor) => deps.treasuryAccountPlans.cancel(planId, scope, actor),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/treasury/accounts/activations',
      summary: 'TRON: plan the activation of the pool addresses not yet on chain, from the funding account, in one signed batch.',
      tags: ['treasury'],
      auth: 'pat',
      body: ActivationBody,
      responses: { 201: AccountPlanSchema },
      errors: BUILD_ERRORS,
      handler: async ({ auth, body, requestId }) => ({
        status: 201,
        body: await deps.treasuryAccountPlans.activation(
          { chain: body.chain, network: body.network, ...(body.project_id ? { projectId: body.project_id } : {}) },
          scopeOf(auth, WRITE),
          restActor(auth, requestId),
        ),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/treasury/accounts/sweepers',
      summary: 'EVM: plan the deployment of the EIP-7702 token sweeper for a destination, from the gas account, signed offline.',
      description:
        'Once the plan is confirmed, the sweeper is recorded for the destination and eip7702 sweeps to it use it (after checking its code on chain); a configured sweeper for the destination still wins.',
      tags: ['treasury'],
      auth: 'pat',
      body: SweeperDeploymentBody,
      responses: { 201: AccountPlanSchema },
      errors: [...BUILD_ERRORS, 'permission_denied'],
      handler: async ({ auth, body, requestId }) => ({
        status: 201,
        body: await deps.treasuryAccountPlans.sweeperDeployment(
          { chain: body.chain, network: body.network, destination: body.destination },
          scopeOf(auth, WRITE),
          restActor(auth, requestId),
        ),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/treasury/accounts/sweepers',
      summary: 'EVM: the token sweepers the treasury deployed and recorded, per destination.',
      tags: ['treasury'],
      auth: 'pat',
      query: SweepersQuery,
      responses: { 200: SweepersPage },
      errors: [...AUTH_ERRORS, 'validation_error'],
      handler: async ({ auth, query }) => {
        scopeOf(auth, READ);
        return {
          body: {
            sweepers: await deps.treasurySweepers.list({
              ...(query.chain ? { chain: query.chain } : {}),
              ...(query.network ? { network: query.network } : {}),
            }),
          },
        };
      },
    }),
  ];
}
