import { ChainIdSchema, ULID_PATTERN } from '@gw/kernel';
import Type from 'typebox';
import { PLAN_KINDS, PLAN_STATUSES } from './plan-status.js';

const UNITS = Type.String({ pattern: '^[0-9]{1,78}$', description: 'Base units, decimal string.' });
const RATE = Type.String({ pattern: '^[0-9]{1,30}$', description: 'Base units per size unit (sat/vB, lovelace/byte), decimal string.' });
const NULLABLE_UNITS = Type.Union([UNITS, Type.Null()]);
const TX_HASH = Type.String({ minLength: 1, maxLength: 128, pattern: '^[0-9a-fA-F]+$' });

export const BalancesQuery = Type.Object(
  {
    group_by: Type.Union([Type.Literal('network'), Type.Literal('project'), Type.Literal('address')], { default: 'network' }),
    chain: Type.Optional(ChainIdSchema()),
    network: Type.Optional(Type.String({ maxLength: 40 })),
    project_id: Type.Optional(Type.String({ pattern: ULID_PATTERN })),
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
    after: Type.Optional(Type.String({ maxLength: 400, description: 'next of the previous page.' })),
  },
  { additionalProperties: false },
);

export const BalanceSchema = Type.Object({
  chain: Type.String(),
  network: Type.String(),
  coin: Type.String(),
  project_id: Type.Union([Type.String(), Type.Null()]),
  address: Type.Union([Type.String(), Type.Null()]),
  confirmed_units: UNITS,
  unconfirmed_units: UNITS,
  outputs: Type.Integer(),
  unclaimed_units: Type.String({ description: 'Orphans and late payments among them: money that belongs to no paid invoice.' }),
});
export const BalancesPage = Type.Object({ rows: Type.Array(BalanceSchema), next: Type.Union([Type.String(), Type.Null()]) });

export const OutputsQuery = Type.Object(
  {
    chain: ChainIdSchema(),
    network: Type.String({ maxLength: 40 }),
    project_id: Type.Optional(Type.String({ pattern: ULID_PATTERN })),
    address: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
    after: Type.Optional(Type.String({ maxLength: 400 })),
  },
  { additionalProperties: false },
);
export const OutputSchema = Type.Object({
  tx_hash: Type.String(),
  output_index: Type.Integer(),
  chain: Type.String(),
  network: Type.String(),
  coin: Type.String(),
  project_id: Type.String(),
  address: Type.String(),
  amount_units: UNITS,
  block_height: Type.Union([Type.Integer(), Type.Null()]),
  invoice_id: Type.Union([Type.String(), Type.Null()]),
  match: Type.String(),
  unclaimed: Type.Boolean(),
  received_at_iso: Type.String(),
  spent_by: Type.Union([Type.String(), Type.Null()]),
  plan_id: Type.Union([Type.String(), Type.Null()], { description: 'The open plan holding it.' }),
});
export const OutputsPage = Type.Object({ outputs: Type.Array(OutputSchema), next: Type.Union([Type.String(), Type.Null()]) });

const Outpoint = Type.Object({ tx_hash: TX_HASH, output_index: Type.Integer({ minimum: 0 }) }, { additionalProperties: false });

export const CreatePlanBody = Type.Object(
  {
    chain: ChainIdSchema(),
    network: Type.String({ maxLength: 40 }),
    select: Type.Object(
      {
        outpoints: Type.Optional(Type.Array(Outpoint, { minItems: 1, maxItems: 5000 })),
        invoice_ids: Type.Optional(Type.Array(Type.String({ pattern: ULID_PATTERN }), { minItems: 1, maxItems: 5000 })),
        project_id: Type.Optional(Type.String({ pattern: ULID_PATTERN })),
        received_before: Type.Optional(Type.String({ format: 'date-time', description: 'Only outputs received at or before (age).' })),
        min_units: Type.Optional(UNITS),
      },
      {
        additionalProperties: false,
        description: 'Which outputs: named outpoints, the outputs of invoices, or every confirmed unspent one (of a project, older than, above a value).',
      },
    ),
    destination: Type.Union([
      Type.Object({ kind: Type.Literal('own'), project_id: Type.Optional(Type.String({ pattern: ULID_PATTERN })) }, { additionalProperties: false }),
      Type.Object({ kind: Type.Literal('external'), address: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
    ]),
    fee_rate: Type.Optional(RATE),
    max_fee_rate: Type.Optional({ ...RATE, description: 'Wait until the next-block rate is at most this, then build at the next-block rate.' }),
  },
  { additionalProperties: false },
);

const PlanInputSchema = Type.Object({
  tx_hash: Type.String(),
  output_index: Type.Integer(),
  address: Type.String(),
  amount_units: UNITS,
  project_id: Type.String(),
  invoice_id: Type.Union([Type.String(), Type.Null()]),
});
const SkippedSchema = Type.Object({ tx_hash: Type.String(), output_index: Type.Integer(), address: Type.String(), amount_units: UNITS });

/** Kind `payout` (issue 37): whom the plan pays, in order; empty for other kinds. */
export const RecipientsSchema = Type.Array(Type.Object({ reference: Type.String(), address: Type.String(), units: UNITS }), {
  description: 'Kind payout: whom the plan pays (reference: the refund or payout id), in order; empty otherwise.',
});

export const PlanSchema = Type.Object({
  id: Type.String({ pattern: ULID_PATTERN }),
  chain: Type.String(),
  network: Type.String(),
  coin: Type.String(),
  kind: Type.Enum(PLAN_KINDS),
  status: Type.Enum(PLAN_STATUSES),
  destination: Type.String(),
  destination_kind: Type.Union([Type.Literal('own'), Type.Literal('external')]),
  value_units: UNITS,
  fee_units: NULLABLE_UNITS,
  fee_rate: NULLABLE_UNITS,
  fee_percent: Type.Union([Type.String(), Type.Null()], { description: 'The fee as a share of the value, percent.' }),
  send_units: NULLABLE_UNITS,
  max_fee_rate: NULLABLE_UNITS,
  size: Type.Union([Type.Integer(), Type.Null()]),
  txid: Type.Union([Type.String(), Type.Null()]),
  replaces_plan_id: Type.Union([Type.String(), Type.Null()]),
  parent_txid: Type.Union([Type.String(), Type.Null()]),
  confirmations: Type.Integer(),
  block_height: Type.Union([Type.Integer(), Type.Null()]),
  failure: Type.Union([Type.String(), Type.Null()]),
  created_by: Type.String(),
  inputs: Type.Array(PlanInputSchema),
  skipped: Type.Array(SkippedSchema, { description: 'Outputs not worth moving at the fee rate.' }),
  created_at_iso: Type.String(),
  signed_at_iso: Type.Union([Type.String(), Type.Null()]),
  broadcast_at_iso: Type.Union([Type.String(), Type.Null()]),
  confirmed_at_iso: Type.Union([Type.String(), Type.Null()]),
  plan_file: Type.Union([Type.Object({}, { additionalProperties: true, description: 'The gateway-treasury-plan file to sign.' }), Type.Null()]),
  recipients: RecipientsSchema,
});

export const PlansQuery = Type.Object(
  {
    status: Type.Optional(Type.Enum(PLAN_STATUSES)),
    chain: Type.Optional(ChainIdSchema()),
    network: Type.Optional(Type.String({ maxLength: 40 })),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    after: Type.Optional(Type.String({ pattern: ULID_PATTERN })),
  },
  { additionalProperties: false },
);
export const PlansPage = Type.Object({ plans: Type.Array(PlanSchema), next: Type.Union([Type.String(), Type.Null()]) });

export const PlanIdParams = Type.Object({ plan_id: Type.String({ pattern: ULID_PATTERN }) }, { additionalProperties: false });

export const ImportBody = Type.Object(
  {
    signed: Type.String({
      minLength: 1,
      maxLength: 4_000_000,
      description: 'A gateway-treasury-signed file (JSON text), or the bare signed PSBT (base64) or transaction (hex) a wallet exported.',
    }),
    broadcast: Type.Boolean({ default: false, description: 'Broadcast once verified (queued).' }),
  },
  { additionalProperties: false },
);

export const BumpBody = Type.Object({ fee_rate: Type.Optional(RATE) }, { additionalProperties: false });

export const AccelerateBody = Type.Object(
  {
    chain: ChainIdSchema(),
    network: Type.String({ maxLength: 40 }),
    tx_hash: TX_HASH,
    output_index: Type.Integer({ minimum: 0 }),
    fee_rate: Type.Optional(RATE),
  },
  { additionalProperties: false },
);

export const ReconciliationSchema = Type.Object({
  runs: Type.Array(
    Type.Object({
      id: Type.String(),
      chain: Type.String(),
      network: Type.String(),
      addresses: Type.Integer(),
      provider_calls: Type.Integer(),
      differences: Type.Integer(),
      failure: Type.Union([Type.String(), Type.Null()]),
      started_at_iso: Type.String(),
      finished_at_iso: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  differences: Type.Array(
    Type.Object({
      reconciliation_id: Type.String(),
      chain: Type.String(),
      network: Type.String(),
      address: Type.String(),
      tx_hash: Type.Union([Type.String(), Type.Null()], { description: 'UTXO chains: the output’s transaction; null for an account chain’s balance_differs.' }),
      output_index: Type.Union([Type.Integer(), Type.Null()]),
      coin: Type.Union([Type.String(), Type.Null()], { description: 'Account chains: the coin whose balance differs.' }),
      kind: Type.String({ description: 'missing_at_provider, unknown_to_gateway, amount_differs (UTXO); balance_differs (account chains)' }),
      gateway_units: NULLABLE_UNITS,
      provider_units: NULLABLE_UNITS,
    }),
  ),
});

export const MovedOutQuery = Type.Object(
  {
    from: Type.String({ format: 'date-time', description: 'Plans confirmed at or after.' }),
    to: Type.String({ format: 'date-time', description: 'Plans confirmed before.' }),
  },
  { additionalProperties: false },
);
export const MovedOutPage = Type.Object({
  rows: Type.Array(
    Type.Object({
      plan_id: Type.String(),
      confirmed_at_iso: Type.String(),
      chain: Type.String(),
      network: Type.String(),
      coin: Type.String(),
      kind: Type.String(),
      txid: Type.String(),
      project_id: Type.String(),
      value_units: UNITS,
      fee_units: Type.String({ description: 'This project’s share of the fee, in proportion to its value.' }),
      destination: Type.String(),
      destination_kind: Type.Union([Type.Literal('own'), Type.Literal('external')]),
      method: Type.String({ description: 'Account-chain plans: how it moved (native, gas_top_up, eip7702, eip3009, ..., activation); empty for UTXO plans.' }),
      paid_units: Type.Union([UNITS, Type.Literal('')], {
        description: 'Kind payout (refunds and payouts): what the recipients received; empty for other kinds.',
      }),
    }),
  ),
});
