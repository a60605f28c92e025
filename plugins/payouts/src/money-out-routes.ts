import { defineRoute, ISO_8601_PATTERN, type RouteDefinition, ULID_PATTERN, withDeps } from '@gw/kernel';
import { patHasScope, tenancyErrors } from '@gw/plugin-tenancy/contract';
import Type from 'typebox';
import { payoutsErrors } from './errors.js';
import { MoneyOut } from './money-out.js';
import { moneyOutRange } from './money-out-range.js';

/** Either scope reads the books: the treasury's readers and the payouts' readers. */
export const MONEY_OUT_SCOPES = ['treasury:read', 'payouts:read'] as const;

const MoneyOutQuery = Type.Object(
  {
    project_id: Type.Optional(Type.String({ pattern: ULID_PATTERN, description: 'The project (default: the token’s project).' })),
    from: Type.String({ pattern: ISO_8601_PATTERN, description: 'At or after (ISO 8601 date or date-time, UTC without an offset).' }),
    to: Type.String({ pattern: ISO_8601_PATTERN, description: 'Before.' }),
    format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'json (default) or csv.' })),
  },
  { additionalProperties: false },
);

const Total = Type.Object({ kind: Type.String(), chain: Type.String(), coin: Type.String(), amount: Type.String(), amount_units: Type.String() });
const MoneyOutPage = Type.Object({
  project_id: Type.String(),
  from: Type.String(),
  to: Type.String(),
  money_in: Type.Array(Total, { description: 'Confirmed receipts of the invoices created in the period, per coin.' }),
  money_out: Type.Array(Total, { description: 'Per kind (refund, payout, sweep, network_fee) and coin.' }),
  rows: Type.Array(
    Type.Object({
      kind: Type.Union([Type.Literal('refund'), Type.Literal('payout'), Type.Literal('sweep'), Type.Literal('network_fee')]),
      project_id: Type.String(),
      chain: Type.String(),
      network: Type.String(),
      coin: Type.String(),
      amount: Type.String(),
      amount_units: Type.String(),
      item_id: Type.Union([Type.String(), Type.Null()]),
      plan_id: Type.Union([Type.String(), Type.Null()]),
      txid: Type.Union([Type.String(), Type.Null()]),
      at_iso: Type.String(),
    }),
  ),
});

/**
 * `GET /api/v1/money-out` (issue 37 item 8): one project's money out in a period beside its money
 * in, for accounting, with a personal access token carrying `treasury:read` or `payouts:read`
 * (an operator's token reaches its operator's projects; a project's token that project only).
 */
export const moneyOutRoutes = withDeps(['payoutsMoneyOut', 'tenancyProjects'], (deps): RouteDefinition[] => [
  defineRoute({
    method: 'GET',
    path: '/api/v1/money-out',
    summary: 'Money out of a project in a period (refunds, payouts, sweeps, network fees) beside money in, as JSON or CSV.',
    tags: ['payouts'],
    auth: 'pat',
    query: MoneyOutQuery,
    responses: { 200: MoneyOutPage },
    errors: ['auth_invalid', 'insufficient_scope', 'project_not_found', 'validation_error'],
    handler: async ({ auth, query }) => {
      if (!MONEY_OUT_SCOPES.some((scope) => patHasScope(auth.scopes, scope))) {
        throw payoutsErrors.insufficient_scope({
          message: 'This route needs the scope treasury:read or payouts:read.',
          details: { scope: MONEY_OUT_SCOPES.join(' ') },
        });
      }
      const projectId = query.project_id ?? auth.project?.id;
      if (!projectId) throw tenancyErrors.project_not_found({ message: 'Name the project: project_id.' });
      const principal = auth.project ? (auth.project.id === projectId ? auth.project : undefined) : await deps.tenancyProjects.principal(projectId);
      if (!principal || (auth.operatorId !== undefined && principal.operatorId !== auth.operatorId)) throw tenancyErrors.project_not_found();
      const range = moneyOutRange(projectId, query.from, query.to);
      const rows = await deps.payoutsMoneyOut.rows(range);
      if (query.format === 'csv') return { body: MoneyOut.csv(rows), headers: { 'content-type': 'text/csv; charset=utf-8' } };
      return {
        body: { project_id: projectId, from: range.from.toISOString(), to: range.to.toISOString(), ...(await deps.payoutsMoneyOut.books(range)), rows },
      };
    },
  }),
]);
