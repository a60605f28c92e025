import { defineMcpTool, mcpArguments, type McpToolDefinition, ULID_PATTERN, withDeps } from '@gw/kernel';
import { invoiceWriteTools } from '@gw/plugin-invoices/contract';
import { retryWebhookTool } from '@gw/plugin-webhooks/contract';
import Type, { type TProperties } from 'typebox';
import { simulationInput } from './routes.js';
import { ClockAdvanceBody, DetectBody, OverpaidBody, PartialBody, simulateEventInput, SimulateEventBody } from './schemas.js';
import { SIMULATION_ERRORS, SIMULATION_RULES, type Simulation } from './simulations.js';

const SANDBOX = { projectKind: 'sandbox', write: true } as const;
const SIMULATE_ERRORS = ['validation_error', 'sandbox_project_required', ...SIMULATION_ERRORS];
const INVOICE_ID = Type.String({ pattern: ULID_PATTERN, description: 'Id of a sandbox invoice of the project (ULID).' });
const SIMULATION_ARGUMENTS: Partial<Record<Simulation, TProperties>> = {
  detect: DetectBody.properties,
  overpaid: OverpaidBody.properties,
  partial: PartialBody.properties,
};

/** The tools on the whole sandbox project: `sandbox_<action>` runs that action of the project service. */
const PROJECT_ACTIONS = [
  {
    action: 'reset',
    title: 'Reset the sandbox',
    description: 'Sandbox: remove every invoice, transaction, webhook event and pool address of the project; the project, its keys, bindings and PATs stay.',
  },
  {
    action: 'delete',
    title: 'Delete the sandbox project',
    description:
      'Sandbox: delete the sandbox project and everything of it, its API key and PATs included (this credential stops working if bound to it). Irreversible.',
  },
] as const;

/**
 * The sandbox's MCP tools (spec 4.6): one `sandbox_simulate_<name>` per simulation of spec 4.5,
 * `sandbox_clock_advance`, `sandbox_reset` and `sandbox_delete`, all needing `sandbox:simulate`; and
 * the sandbox variants of `create_invoice`, `cancel_invoice` and `retry_webhook`, which the MCP
 * plugin picks for sandbox projects.
 */
export const sandboxMcpTools = withDeps(['sandboxSimulator', 'sandboxInvoices', 'sandboxProjects'], (deps): McpToolDefinition[] => {
  const simulator = () => deps.sandboxSimulator;
  const invoices = () => deps.sandboxInvoices;
  const projects = () => deps.sandboxProjects;
  return [
    ...invoiceWriteTools(
      'sandbox',
      {
        create: (project, body, actor) => invoices().create(project, body, actor),
        cancel: (projectId, invoiceId, actor) => invoices().cancel(projectId, invoiceId, actor),
      },
      {
        create: [
          'validation_error',
          'external_id_conflict',
          'coin_not_enabled',
          'amount_out_of_range',
          'sandbox_active_invoice_cap_reached',
          'rate_quote_unavailable',
        ],
        cancel: ['validation_error', 'invoice_not_found', 'invoice_not_cancellable', 'sandbox_rate_limit_exceeded'],
      },
    ),
    retryWebhookTool('sandbox', (projectId, eventId, actor) => invoices().resend(projectId, eventId, actor), [
      'event_not_found',
      'event_not_resendable',
      'rate_limit_exceeded',
    ]),
    ...Object.entries(SIMULATION_RULES).map(([name, rule]) => {
      const simulation = name as Simulation;
      return defineMcpTool({
        name: `sandbox_simulate_${simulation.replace(/-/g, '_')}`,
        title: `Simulate ${simulation}`,
        description:
          `Sandbox: simulate ${simulation} on an invoice in ${rule.from.join(' or ')}; emits ${rule.event} (a real signed webhook)` +
          `${rule.to === 'same' ? ' and the invoice stays detected' : ` and the invoice becomes ${rule.to}`}. Returns { event_id, status }.` +
          (simulation === 'overpaid' ? ' Give exactly one of multiplier (> 1) and extraUnits (base units).' : '') +
          (simulation === 'partial' ? ' Give exactly one of fraction (0 < f < 1) and amountUnits (base units).' : ''),
        input: mcpArguments({ invoice_id: INVOICE_ID, ...(SIMULATION_ARGUMENTS[simulation] ?? {}) }),
        scope: 'sandbox:simulate',
        access: SANDBOX,
        writes: true,
        errors: SIMULATE_ERRORS,
        handler: async ({ args, project, actor }) => {
          const { project_id: _, invoice_id, ...body } = args as Record<string, unknown> & { invoice_id: string };
          return simulator().simulate(project.id, invoice_id, simulation, simulationInput(simulation, body), actor);
        },
      });
    }),
    defineMcpTool({
      name: 'sandbox_simulate_duplicate_delivery',
      title: 'Simulate a duplicate delivery',
      description:
        'Sandbox: deliver the most recent terminal webhook of the invoice again with the same event_id (no status change). sandbox_invoice_terminal while it has none.',
      input: mcpArguments({ invoice_id: INVOICE_ID }),
      scope: 'sandbox:simulate',
      access: SANDBOX,
      writes: true,
      errors: [...SIMULATE_ERRORS, 'sandbox_invoice_terminal'],
      handler: async ({ args, project, actor }) => simulator().duplicateDelivery(project.id, args.invoice_id, actor),
    }),
    defineMcpTool({
      name: 'sandbox_simulate_event',
      title: 'Simulate any event',
      description:
        'Sandbox: apply any event the invoice state machine allows (eventType, amountUnits, confirmations, blockHeight), only while the invoice ' +
        'is in expectedCurrentStatus. Returns { event_id, status }.',
      input: mcpArguments({ invoice_id: INVOICE_ID, ...SimulateEventBody.properties }),
      scope: 'sandbox:simulate',
      access: SANDBOX,
      writes: true,
      errors: SIMULATE_ERRORS,
      handler: async ({ args, project, actor }) => {
        const { project_id: _, invoice_id, ...body } = args;
        return simulator().simulateEvent(project.id, invoice_id, simulateEventInput(body as never), actor);
      },
    }),
    defineMcpTool({
      name: 'sandbox_clock_advance',
      title: 'Advance the sandbox clock',
      description:
        'Sandbox: add `blocks` (1 to 64) confirmations on `chain` to every detected invoice of the project; those reaching their threshold become paid ' +
        '(overpaid or partial when the simulated amount differs). 10 calls per minute per chain. Returns { advanced, ... }.',
      input: mcpArguments(ClockAdvanceBody.properties),
      scope: 'sandbox:simulate',
      access: SANDBOX,
      writes: true,
      errors: ['validation_error', 'sandbox_project_required', 'sandbox_rate_limit_exceeded'],
      handler: async ({ args, project, actor }) => simulator().advanceClock(project.id, args.chain, args.blocks, actor),
    }),
    ...PROJECT_ACTIONS.map(({ action, title, description }) =>
      defineMcpTool({
        name: `sandbox_${action}`,
        title,
        description,
        input: mcpArguments({}),
        scope: 'sandbox:simulate',
        access: SANDBOX,
        writes: true,
        errors: ['sandbox_project_required', `sandbox_${action}_failed`],
        handler: async ({ project, actor }) => projects()[action](project.id, actor),
      }),
    ),
  ];
});
