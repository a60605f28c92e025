import { ChainIdSchema, ULID_PATTERN } from '@gw/kernel';
import Type from 'typebox';
import { PLAN_STATUSES } from './plan-status.js';
import { RecipientsSchema } from './schemas.js';
import { ACCOUNT_METHODS } from './services/account-plans.js';

/* Schemas of the account-chain treasury routes (issue 36). */

const UNITS = Type.String({ pattern: '^[0-9]{1,78}$', description: 'Base units, decimal string.' });
const UNITS_BY_COIN = Type.Record(Type.String(), UNITS, { description: 'Coin id → base units, decimal strings.' });
const NULLABLE_STRING = Type.Union([Type.String(), Type.Null()]);
const METHOD = Type.Enum(ACCOUNT_METHODS, { description: 'How the plan moves money; absent: the cheapest the quote finds.' });

export const HoldingsQuery = Type.Object(
  {
    chain: ChainIdSchema(),
    network: Type.String({ maxLength: 40 }),
    project_id: Type.Optional(Type.String({ pattern: ULID_PATTERN })),
  },
  { additionalProperties: false },
);
export const HoldingSchema = Type.Object({
  address: Type.String(),
  project_id: Type.String(),
  balances: UNITS_BY_COIN,
  nonce: UNITS,
  tokens: Type.Array(
    Type.Object({
      coin: Type.String(),
      move_cost_units: { ...UNITS, description: 'Native base units a transfer of it costs now.' },
      gas_lacking_units: { ...UNITS, description: 'Native base units the address lacks to move it alone.' },
      dust: Type.Boolean({ description: 'Worth less than moving it.' }),
    }),
  ),
  plan_id: Type.Union([Type.String(), Type.Null()], { description: 'The open plan holding it.' }),
});
export const HoldingsPage = Type.Object({ holdings: Type.Array(HoldingSchema) });

export const AccountSweepBody = Type.Object(
  {
    chain: ChainIdSchema(),
    network: Type.String({ maxLength: 40 }),
    coin: Type.String({ minLength: 1, maxLength: 40 }),
    destination: Type.String({ minLength: 1, maxLength: 200, description: 'An address of this chain and network (your cold wallet, an exchange).' }),
    method: Type.Optional(METHOD),
    project_id: Type.Optional(Type.String({ pattern: ULID_PATTERN })),
    min_units: Type.Optional({ ...UNITS, description: 'Leave out addresses holding less than this of the coin.' }),
  },
  { additionalProperties: false },
);

export const QuotesSchema = Type.Object({
  sources: Type.Integer({ description: 'Pool addresses holding the coin outside open plans.' }),
  quotes: Type.Array(
    Type.Object({
      method: Type.String(),
      available: Type.Boolean(),
      reason: NULLABLE_STRING,
      sources: Type.Integer(),
      moved_units: UNITS,
      fee_units: { ...UNITS, description: 'Every fee of the plan, native base units.' },
      operator_pays_units: { ...UNITS, description: 'The part of the fees the operator accounts pay.' },
      steps: Type.Integer(),
      rounds: Type.Integer(),
    }),
  ),
});

export const ActivationBody = Type.Object(
  { chain: ChainIdSchema(), network: Type.String({ maxLength: 40 }), project_id: Type.Optional(Type.String({ pattern: ULID_PATTERN })) },
  { additionalProperties: false },
);

export const SweeperDeploymentBody = Type.Object(
  {
    chain: ChainIdSchema(),
    network: Type.String({ maxLength: 40 }),
    destination: Type.String({
      minLength: 1,
      maxLength: 120,
      description: 'Where the sweeper sends every delegated address’s tokens, fixed in the contract for good.',
    }),
  },
  { additionalProperties: false },
);
export const SweepersQuery = Type.Object(
  { chain: Type.Optional(ChainIdSchema()), network: Type.Optional(Type.String({ maxLength: 40 })) },
  { additionalProperties: false },
);
export const SweepersPage = Type.Object({
  sweepers: Type.Array(
    Type.Object({
      chain: Type.String(),
      network: Type.String(),
      destination: Type.String(),
      contract: Type.String(),
      plan_id: NULLABLE_STRING,
      recorded_at_iso: Type.String(),
    }),
  ),
});

const StepSchema = Type.Object({
  id: Type.String(),
  round: Type.Integer(),
  stage: Type.Integer(),
  kind: Type.Union([Type.Literal('transaction'), Type.Literal('authorization')]),
  description: Type.String(),
  signer: Type.Object({
    kind: Type.Union([Type.Literal('deposit'), Type.Literal('operator')]),
    role: NULLABLE_STRING,
    address: Type.String(),
    path: Type.String(),
  }),
  nonce: Type.Union([UNITS, Type.Null()]),
  to: Type.String(),
  moves: UNITS_BY_COIN,
  fee_units: UNITS,
  status: Type.String(),
  signed_by: NULLABLE_STRING,
  txid: NULLABLE_STRING,
  confirmations: Type.Integer(),
  failure: NULLABLE_STRING,
});

export const AccountPlanSchema = Type.Object({
  id: Type.String({ pattern: ULID_PATTERN }),
  chain: Type.String(),
  network: Type.String(),
  coin: Type.String(),
  kind: Type.Union([Type.Literal('sweep'), Type.Literal('activation'), Type.Literal('sweeper_deployment'), Type.Literal('payout')]),
  method: Type.String(),
  status: Type.Enum(PLAN_STATUSES),
  round: Type.Integer({ description: 'The signing round awaited, or the last completed.' }),
  rounds: Type.Integer(),
  stage: Type.Union([Type.Integer(), Type.Null()], { description: 'The broadcast stage being sent.' }),
  destination: Type.String(),
  moved_units: UNITS,
  fee_units: UNITS,
  operator_pays_units: UNITS,
  addresses: Type.Array(Type.Object({ address: Type.String(), project_id: Type.String(), amount_units: UNITS })),
  skipped: Type.Array(Type.Object({ address: Type.String(), units: UNITS, cost_units: UNITS }), { description: 'Addresses not worth moving.' }),
  steps: Type.Array(StepSchema),
  failure: NULLABLE_STRING,
  created_by: Type.String(),
  created_at_iso: Type.String(),
  signed_at_iso: NULLABLE_STRING,
  broadcast_at_iso: NULLABLE_STRING,
  confirmed_at_iso: NULLABLE_STRING,
  recipients: RecipientsSchema,
});
export const AccountPlansPage = Type.Object({ plans: Type.Array(AccountPlanSchema), next: NULLABLE_STRING });

export const AccountPlanFileSchema = Type.Object(
  {
    format: Type.Literal('gateway-treasury-account-plan'),
    version: Type.Literal(1),
    plan_id: Type.String(),
    round: Type.Integer(),
    steps: Type.Array(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true, description: 'The gateway-treasury-account-plan file of the round awaited, for gateway-signer.' },
);

export const AccountImportBody = Type.Object(
  {
    signed: Type.String({ minLength: 1, maxLength: 8_000_000, description: 'A gateway-treasury-account-signed file (JSON text) of the round awaited.' }),
    broadcast: Type.Boolean({ default: false, description: 'Broadcast once every round is signed (queued).' }),
  },
  { additionalProperties: false },
);
