import Type, { type Static } from 'typebox';
import { ChainIdSchema, coreErrors, INVOICE_EVENT_TYPES, ULID_PATTERN, type InvoiceEventType } from '@gw/kernel';
import { INVOICE_STATUSES, type InvoiceStatus } from '@gw/plugin-invoices/contract';

const UNITS = { pattern: '^\\d+$', maxLength: 78 } as const;
const units = (description: string) => Type.String({ ...UNITS, description });
const SEED = Type.String({ minLength: 1, maxLength: 256, description: 'Deterministic seed: the same seed gives the same synthesized tx hash.' });

export const SandboxInvoiceParams = Type.Object(
  { invoiceId: Type.String({ pattern: ULID_PATTERN, description: 'Invoice id (ULID).' }) },
  { additionalProperties: false },
);
export const SandboxProjectParams = Type.Object(
  { projectId: Type.String({ pattern: ULID_PATTERN, description: 'Sandbox project id (ULID); must be the signing project.' }) },
  { additionalProperties: false },
);

export const EmptyBody = Type.Object({}, { additionalProperties: false, description: 'An empty object (or no body).' });
export const DetectBody = Type.Object({ seed: Type.Optional(SEED) }, { additionalProperties: false });

/** simulate-overpaid: exactly one of `multiplier` and `extraUnits` (alias `extra_units`). */
export const OverpaidBody = Type.Object(
  {
    multiplier: Type.Optional(
      Type.Number({ exclusiveMinimum: 1, maximum: 1_000_000, description: 'Factor (> 1) on amount_crypto_units; the product is rounded up.' }),
    ),
    extraUnits: Type.Optional(units('Base units paid beyond the invoice amount.')),
    extra_units: Type.Optional(units('Alias of extraUnits (the earlier reference).')),
  },
  { additionalProperties: false },
);

/** simulate-partial: exactly one of `fraction` and `amountUnits` (alias `amount_units`). */
export const PartialBody = Type.Object(
  {
    fraction: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        exclusiveMaximum: 1,
        description: 'Share of the amount paid, strictly between 0 and 1 (rounded down, at least 1 unit).',
      }),
    ),
    amountUnits: Type.Optional(units('Base units paid; below the invoice amount.')),
    amount_units: Type.Optional(units('Alias of amountUnits (the earlier reference).')),
  },
  { additionalProperties: false },
);

const EventTypeSchema = Type.Enum(INVOICE_EVENT_TYPES);
const StatusSchema = Type.Enum(INVOICE_STATUSES);

/** simulate-event body (spec 4.5), with the earlier reference's snake_case names as aliases. */
export const SimulateEventBody = Type.Object(
  {
    eventType: Type.Optional(EventTypeSchema),
    event_type: Type.Optional(EventTypeSchema),
    amountUnits: Type.Optional(units('Amount of the simulated payment in base units.')),
    amount_units: Type.Optional(units('Alias of amountUnits.')),
    confirmations: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
    blockHeight: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    block_height: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    chainSpecific: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Chain-namespaced extras, echoed in the event data.' })),
    chain_specific: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    expectedCurrentStatus: Type.Optional(StatusSchema),
    expected_current_status: Type.Optional(StatusSchema),
    seed: Type.Optional(SEED),
  },
  { additionalProperties: false },
);

export const ClockAdvanceBody = Type.Object(
  {
    chain: ChainIdSchema(),
    blocks: Type.Integer({ minimum: 1, maximum: 64 }),
  },
  { additionalProperties: false },
);

export const SimulationResultSchema = Type.Object({ event_id: Type.String({ pattern: ULID_PATTERN }), status: StatusSchema }, { additionalProperties: false });
export const DuplicateDeliveryResultSchema = Type.Object({ event_id: Type.String({ pattern: ULID_PATTERN }) }, { additionalProperties: false });
export const ClockAdvanceResultSchema = Type.Object(
  {
    advanced: Type.Integer({ minimum: 0, description: 'Invoices whose status changed.' }),
    remaining: Type.Integer({ minimum: 0, description: 'Detected invoices still below finalization.' }),
  },
  { additionalProperties: false },
);
export const ResetResultSchema = Type.Object({ status: Type.Literal('reset') }, { additionalProperties: false });
export const DeleteResultSchema = Type.Object({ status: Type.Literal('deleted') }, { additionalProperties: false });
export const SandboxWalletSchema = Type.Object(
  { chain: ChainIdSchema(), xpub: Type.String(), bound_at_iso: Type.String({ format: 'date-time' }) },
  { additionalProperties: false },
);
export const SandboxWalletListSchema = Type.Array(SandboxWalletSchema);

/** simulate-event input after aliases are resolved. */
export interface SimulateEventInput {
  readonly eventType: InvoiceEventType;
  readonly amountUnits: string;
  readonly confirmations: number;
  readonly blockHeight: number;
  readonly chainSpecific?: Record<string, unknown>;
  readonly expectedCurrentStatus: InvoiceStatus;
  readonly seed?: string;
}

/**
 * The value of a field that may be written in camelCase or (earlier reference) snake_case. Both
 * at once is 400 `validation_error`; so is neither when `required`.
 */
export function aliased<T>(body: Record<string, unknown>, camel: string, snake: string, required: boolean): T | undefined {
  const a = body[camel];
  const b = body[snake];
  if (a !== undefined && b !== undefined)
    throw coreErrors.validation_error({ message: `body.${camel}: give ${camel} or its alias ${snake}, not both`, details: { field: `body.${camel}` } });
  const value = (a ?? b) as T | undefined;
  if (required && value === undefined) throw coreErrors.validation_error({ message: `body.${camel} is required`, details: { field: `body.${camel}` } });
  return value;
}

/** Exactly one of two (already alias-resolved) fields; else 400 `validation_error`. */
export function exactlyOne(first: [string, unknown], second: [string, unknown]): void {
  const given = [first, second].filter(([, value]) => value !== undefined);
  if (given.length === 1) return;
  throw coreErrors.validation_error({
    message: given.length === 0 ? `Give one of ${first[0]} or ${second[0]}.` : `Give either ${first[0]} or ${second[0]}, not both.`,
    details: { field: `body.${first[0]}` },
  });
}

export function simulateEventInput(body: Static<typeof SimulateEventBody>): SimulateEventInput {
  const raw = body as Record<string, unknown>;
  const chainSpecific = aliased<Record<string, unknown>>(raw, 'chainSpecific', 'chain_specific', false);
  const seed = body.seed;
  return {
    eventType: aliased<InvoiceEventType>(raw, 'eventType', 'event_type', true)!,
    amountUnits: aliased<string>(raw, 'amountUnits', 'amount_units', true)!,
    confirmations: body.confirmations,
    blockHeight: aliased<number>(raw, 'blockHeight', 'block_height', true)!,
    expectedCurrentStatus: aliased<InvoiceStatus>(raw, 'expectedCurrentStatus', 'expected_current_status', true)!,
    ...(chainSpecific ? { chainSpecific } : {}),
    ...(seed ? { seed } : {}),
  };
}
