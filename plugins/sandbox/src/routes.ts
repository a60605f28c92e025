import { coreErrors, defineRoute, restActor, type RouteDefinition, withDeps } from '@gw/kernel';
import { INVOICE_CREATE_BODY_ERRORS, invoiceApiRoutes } from '@gw/plugin-invoices/contract';
import { webhookApiRoutes } from '@gw/plugin-webhooks/contract';
import type { TSchema } from 'typebox';
import {
  aliased,
  ClockAdvanceBody,
  ClockAdvanceResultSchema,
  DeleteResultSchema,
  DetectBody,
  DuplicateDeliveryResultSchema,
  exactlyOne,
  OverpaidBody,
  PartialBody,
  ResetResultSchema,
  SandboxInvoiceParams,
  SandboxProjectParams,
  SandboxWalletListSchema,
  SimulateEventBody,
  simulateEventInput,
  SimulationResultSchema,
} from './schemas.js';
import type { SimulationInput } from './services/simulator.js';
import { SIMULATION_ERRORS, SIMULATION_RULES, type Simulation } from './simulations.js';

const BASE = '/api/v1/sandbox';
const MIRROR = { projectKind: 'sandbox', crossModeByKey: true } as const;
const SIMULATE_ERRORS = [...SIMULATION_ERRORS, 'validation_error', 'amount_out_of_range'];
const PROJECT_ERRORS = ['sandbox_project_required', 'sandbox_key_against_production_project', 'production_key_against_sandbox_project', 'validation_error'];

/** What every write on one invoice of the caller's sandbox project (`/invoices/:invoiceId/…`) declares. */
const ON_INVOICE = {
  tags: ['sandbox'],
  auth: 'signed',
  access: { projectKind: 'sandbox', write: true },
  params: SandboxInvoiceParams,
} satisfies Partial<RouteDefinition>;
/** What every route on the sandbox project of the path (`/:projectId/…`) declares; a read narrows `access` to no write. */
const ON_PROJECT = {
  tags: ['sandbox'],
  auth: 'signed',
  access: { projectKind: 'sandbox', projectParam: 'projectId', write: true },
  params: SandboxProjectParams,
} satisfies Partial<RouteDefinition>;

/** Bodies of the named simulations that take one; the others take an empty object (or none). */
const SIMULATION_BODIES: Partial<Record<Simulation, TSchema>> = { detect: DetectBody, overpaid: OverpaidBody, partial: PartialBody };

/** The sandbox API of spec 4.5 under /api/v1/sandbox: invoice and webhook mirrors, simulations, project routes. */
export const sandboxRoutes = withDeps(
  ['sandboxInvoices', 'sandboxSimulator', 'sandboxProjects', 'invoicesService', 'webhooksEventStream', 'webhooksEventLog'],
  (deps): RouteDefinition[] => {
    const invoices = () => deps.sandboxInvoices;
    const simulator = () => deps.sandboxSimulator;
    const projects = () => deps.sandboxProjects;
    return [
      // --- invoice and webhook mirrors: the owners' APIs under BASE, writes through the sandbox's checks ---
      ...invoiceApiRoutes({
        path: `${BASE}/invoices`,
        tags: ['sandbox'],
        access: MIRROR,
        reads: () => deps.invoicesService,
        writes: invoices,
        docs: {
          create: {
            summary: 'Create a sandbox invoice (idempotent on external_id).',
            description:
              'Same body and response as POST /invoices. No subscription check; a flat write limit per project; a cap on active invoices (422 ' +
              'sandbox_active_invoice_cap_reached, remedy: reset); 503 rate_quote_unavailable with Retry-After when amount_usd cannot be converted.',
          },
          list: { summary: "Search the sandbox project's invoices (same filters and envelope as GET /invoices)." },
          get: { summary: 'Retrieve a sandbox invoice with its transactions and confirmations.' },
          transactions: {
            summary: 'List every transaction of a sandbox invoice (cursor-paginated, detection order; as GET /invoices/{id}/transactions).',
          },
          cancel: { summary: 'Cancel a pending or detected sandbox invoice.' },
        },
        errors: {
          create: [
            ...INVOICE_CREATE_BODY_ERRORS,
            'sandbox_active_invoice_cap_reached',
            'overlay_matching_mode_required_exact',
            'rate_limit_exceeded',
            'pool_exhausted',
            'rate_quote_unavailable',
          ],
          cancel: ['validation_error', 'invoice_not_found', 'invoice_not_cancellable', 'rate_limit_exceeded'],
        },
      }),
      ...webhookApiRoutes({
        path: `${BASE}/webhooks`,
        tags: ['sandbox'],
        access: MIRROR,
        stream: () => deps.webhooksEventStream,
        log: () => deps.webhooksEventLog,
        resends: invoices,
        docs: {
          stream: { summary: "Follow the sandbox project's webhook events (same as GET /webhooks/stream)." },
          list: { summary: "The sandbox project's webhook delivery log (same filters and envelope as GET /webhooks/events)." },
          get: { summary: 'One sandbox webhook event with its delivery attempts.' },
          resend: {
            summary: 'Resend a delivered or skipped sandbox event as a new event (fresh event_id, original_event_id set).',
            description: 'Events still retrying (in flight) or dead-lettered are 409 event_not_resendable.',
          },
        },
        resendErrors: ['event_not_found', 'event_not_resendable', 'rate_limit_exceeded'],
      }),
      // --- simulations ----------------------------------------------------------------------------
      ...Object.entries(SIMULATION_RULES).map(([name, rule]) => {
        const simulation = name as Simulation;
        const body = SIMULATION_BODIES[simulation];
        return defineRoute({
          method: 'POST',
          path: `${BASE}/invoices/:invoiceId/simulate-${simulation}`,
          summary: `Simulate ${simulation}: needs ${rule.from.join(' or ')}; emits ${rule.event}${rule.to === 'same' ? ' (the invoice stays detected)' : `; the invoice becomes ${rule.to}`}.`,
          ...ON_INVOICE,
          ...(body ? { body } : {}),
          responses: { 200: SimulationResultSchema },
          errors: SIMULATE_ERRORS,
          handler: async ({ auth, params, body: raw, requestId }) => {
            const input = simulationInput(simulation, (raw ?? {}) as Record<string, unknown>);
            return { body: await simulator().simulate(auth.project!.id, params.invoiceId, simulation, input, restActor(auth, requestId)) };
          },
        });
      }),
      defineRoute({
        method: 'POST',
        path: `${BASE}/invoices/:invoiceId/simulate-duplicate-delivery`,
        summary: 'Deliver the most recent terminal webhook of the invoice again, with the same event_id.',
        description: 'No status changes. 422 sandbox_invoice_terminal while the invoice has no terminal event.',
        ...ON_INVOICE,
        responses: { 200: DuplicateDeliveryResultSchema },
        errors: [...SIMULATE_ERRORS, 'sandbox_invoice_terminal'],
        handler: async ({ auth, params, requestId }) => ({
          body: await simulator().duplicateDelivery(auth.project!.id, params.invoiceId, restActor(auth, requestId)),
        }),
      }),
      defineRoute({
        method: 'POST',
        path: `${BASE}/invoices/:invoiceId/simulate-event`,
        summary: 'Apply any event the state machine allows, when the invoice is in expectedCurrentStatus.',
        description:
          "The earlier reference's snake_case names (event_type, amount_units, block_height, chain_specific, expected_current_status) are accepted as aliases; giving both spellings of a field is a validation_error.",
        ...ON_INVOICE,
        body: SimulateEventBody,
        responses: { 200: SimulationResultSchema },
        errors: SIMULATE_ERRORS,
        handler: async ({ auth, params, body, requestId }) => ({
          body: await simulator().simulateEvent(auth.project!.id, params.invoiceId, simulateEventInput(body), restActor(auth, requestId)),
        }),
      }),
      // --- project routes -------------------------------------------------------------------------
      defineRoute({
        method: 'POST',
        path: `${BASE}/:projectId/clock/advance`,
        summary: "Advance a chain's clock: add confirmations to every detected invoice of the project on that chain.",
        description:
          'Invoices reaching their confirmation_threshold become paid (overpaid or partial when the simulated amount differs). 10 calls per minute per chain.',
        ...ON_PROJECT,
        body: ClockAdvanceBody,
        responses: { 200: ClockAdvanceResultSchema },
        errors: [...PROJECT_ERRORS, 'sandbox_rate_limit_exceeded'],
        handler: async ({ auth, params, body, requestId }) => ({
          body: await simulator().advanceClock(params.projectId, body.chain, body.blocks, restActor(auth, requestId)),
        }),
      }),
      defineRoute({
        method: 'POST',
        path: `${BASE}/:projectId/reset`,
        summary: 'Soft-purge the sandbox: invoices, transactions, webhook events and the address pool go; the project, keys, bindings and PAT stay.',
        ...ON_PROJECT,
        responses: { 200: ResetResultSchema },
        errors: [...PROJECT_ERRORS, 'sandbox_reset_failed'],
        handler: async ({ auth, params, requestId }) => ({ body: await projects().reset(params.projectId, restActor(auth, requestId)) }),
      }),
      defineRoute({
        method: 'DELETE',
        path: `${BASE}/:projectId`,
        summary: 'Delete the sandbox project and everything of it, API key and PAT included. Irreversible.',
        ...ON_PROJECT,
        responses: { 200: DeleteResultSchema },
        errors: [...PROJECT_ERRORS, 'sandbox_delete_failed'],
        handler: async ({ auth, params, requestId }) => ({ body: await projects().delete(params.projectId, restActor(auth, requestId)) }),
      }),
      defineRoute({
        method: 'GET',
        path: `${BASE}/:projectId/wallets`,
        summary: "The sandbox project's generated account keys, one per chain.",
        ...ON_PROJECT,
        access: { projectKind: 'sandbox', projectParam: 'projectId' },
        responses: { 200: SandboxWalletListSchema },
        errors: PROJECT_ERRORS,
        handler: async ({ params }) => ({ body: await projects().wallets(params.projectId) }),
      }),
    ];
  },
);

/** Resolves aliases and the exactly-one rules of a named simulation's body. */
export function simulationInput(simulation: Simulation, body: Record<string, unknown>): SimulationInput {
  if (simulation === 'overpaid') {
    const extraUnits = aliased<string>(body, 'extraUnits', 'extra_units', false);
    exactlyOne(['multiplier', body['multiplier']], ['extraUnits', extraUnits]);
    positiveUnits('extraUnits', extraUnits);
    return { ...(body['multiplier'] !== undefined ? { multiplier: body['multiplier'] as number } : {}), ...(extraUnits !== undefined ? { extraUnits } : {}) };
  }
  if (simulation === 'partial') {
    const amountUnits = aliased<string>(body, 'amountUnits', 'amount_units', false);
    exactlyOne(['fraction', body['fraction']], ['amountUnits', amountUnits]);
    positiveUnits('amountUnits', amountUnits);
    return { ...(body['fraction'] !== undefined ? { fraction: body['fraction'] as number } : {}), ...(amountUnits !== undefined ? { amountUnits } : {}) };
  }
  return body['seed'] !== undefined ? { seed: body['seed'] as string } : {};
}

function positiveUnits(field: string, value: string | undefined): void {
  if (value !== undefined && BigInt(value) === 0n)
    throw coreErrors.validation_error({ message: `body.${field} must be at least 1`, details: { field: `body.${field}` } });
}
