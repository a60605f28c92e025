import { html, type SafeHtml } from '@gw/kernel';
import { actionButton, csrfField, dashboardErrors, type DashboardActionRequest, definePage, type PageServices, redirect } from '@gw/plugin-dashboard/contract';
import type { InvoiceView } from '@gw/plugin-invoices/contract';
import { type InvoicePagePart } from '@gw/plugin-invoices/contract';
import type { SimulationInput } from '../services/simulator.js';
import { SIMULATION_RULES, SIMULATIONS, simulationApplies, TERMINAL_EVENT_TYPES, type Simulation } from '../simulations.js';

/** What the invoice page's sandbox part and its actions read (ADR 0011). */
export const INVOICE_SIMULATIONS_DEPS = ['sandboxSimulator', 'sandboxInvoices', 'webhooksEventLog', 'chains'] as const;
type Services = PageServices<typeof INVOICE_SIMULATIONS_DEPS>;

/** Fixed inputs of the simulations that need one (the REST body's), said on their buttons. */
const SIMULATION_INPUTS: Partial<Record<Simulation, { input: SimulationInput; note: string }>> = {
  overpaid: { input: { multiplier: 1.5 }, note: ' (×1.5)' },
  partial: { input: { fraction: 0.5 }, note: ' (half)' },
};
/** Blocks one "advance the clock" adds at most (as the REST body's limit). */
const CLOCK_BLOCKS_MAX = 64;

const invoicesPath = (projectId: string) => `/dashboard/projects/${projectId}/invoices`;
const invoiceChain = (services: Services, invoice: InvoiceView): string => services.chains.coin(invoice.coin).adapter.definition.id;

/**
 * The dashboard invoice page of a sandbox invoice (ADR 0011): a button per simulation (disabled
 * where it does not apply, with why), duplicate delivery of the last terminal webhook, the chain
 * clock; its cancel counts against the sandbox's write limit, as the sandbox API's.
 */
export const invoiceSimulationsPart: InvoicePagePart<Services> = {
  id: 'sandbox',
  kinds: ['sandbox'],
  verb: { participle: 'simulated', gerund: 'simulating' },
  cancel: (req, invoiceId) => req.services.sandboxInvoices.cancel(req.project!.id, invoiceId, req.actor),
  actions: async (req, invoice): Promise<SafeHtml> => {
    const path = `${invoicesPath(req.project!.id)}/${invoice.id}`;
    const events = await req.services.webhooksEventLog.list(req.project!.id, { invoice_id: invoice.id, limit: 100 });
    // A button that would only be refused is disabled, with the reason in its description.
    const buttons = SIMULATIONS.map((s) => {
      const rule = SIMULATION_RULES[s];
      const possible = simulationApplies(s, invoice);
      const why = `Needs ${rule.from.join(' or ')}${s === 'partial' ? ' and a matching mode that can be short (not any)' : ''}; emits ${rule.event}`;
      return html`<form class="inline" method="post" action="${path}/simulate">${csrfField(req)}<input type="hidden" name="simulation" value="${s}"><button type="submit"${possible ? null : html` disabled`} title="${why}">Simulate ${s}${SIMULATION_INPUTS[s]?.note ?? ''}</button></form>`;
    });
    const terminal = events.items.some((e) => (TERMINAL_EVENT_TYPES as readonly string[]).includes(e.event_type));
    return html`<section class="sandbox" aria-labelledby="simulate-heading">
<h2 id="simulate-heading">Simulate (sandbox)</h2>
<p class="note">Each button drives this invoice through the same lifecycle a chain watcher would, and the partner receives real signed webhooks with <code>mode: sandbox</code>. Buttons that do not apply to status <strong>${invoice.status}</strong>${invoice.matching_mode === 'any' ? html` and matching mode <strong>any</strong>` : null} are disabled.</p>
<div class="button-row">${buttons}
${terminal ? actionButton(req, `${path}/duplicate-delivery`, 'Deliver the last terminal webhook again') : html`<button type="button" disabled title="${`No terminal webhook (${TERMINAL_EVENT_TYPES.join(', ')}) was sent for this invoice yet`}">Deliver the last terminal webhook again</button>`}</div>
<form class="inline-form" method="post" action="/dashboard/projects/${req.project!.id}/sandbox/clock-advance">${csrfField(req)}
<input type="hidden" name="chain" value="${invoiceChain(req.services, invoice)}"><input type="hidden" name="invoice" value="${invoice.id}">
<label for="clock-blocks">Advance the ${invoiceChain(req.services, invoice)} clock by blocks</label>
<input id="clock-blocks" name="blocks" type="number" min="1" max="${CLOCK_BLOCKS_MAX}" value="1" required>
<button type="submit">Advance clock</button>
</form>
</section>`;
  },
};

function requireSandbox(req: DashboardActionRequest<Services>): void {
  if (req.project!.kind !== 'sandbox') throw dashboardErrors.invalid_form({ message: 'Simulations exist only for sandbox projects. Nothing was changed.' });
}

/** The actions of the invoice page's sandbox section (no page or navigation entry of their own). */
export const invoiceSimulationsPage = definePage<Services>({
  id: 'invoice-simulations',
  routes: (services) => [
    {
      method: 'POST',
      path: '/dashboard/projects/:projectId/invoices/:invoiceId/simulate',
      summary: 'Sandbox: run one named simulation (detect, paid, overpaid, partial, expire, late-payment, reorg, reconfirm) on the invoice.',
      handle: async (req) => {
        requireSandbox(req);
        const simulation = req.form.choice<Simulation>('simulation', 'Simulation', SIMULATIONS);
        const result = await services.sandboxSimulator.simulate(
          req.project!.id,
          req.params['invoiceId']!,
          simulation,
          SIMULATION_INPUTS[simulation]?.input ?? {},
          req.actor,
        );
        return redirect(
          `${invoicesPath(req.project!.id)}/${req.params['invoiceId']}`,
          `Simulated ${simulation}: the invoice is ${result.status} (event ${result.event_id}).`,
        );
      },
    },
    {
      method: 'POST',
      path: '/dashboard/projects/:projectId/invoices/:invoiceId/duplicate-delivery',
      summary: 'Sandbox: deliver the latest terminal webhook of the invoice again with the same event_id.',
      handle: async (req) => {
        requireSandbox(req);
        const result = await services.sandboxSimulator.duplicateDelivery(req.project!.id, req.params['invoiceId']!, req.actor);
        return redirect(`${invoicesPath(req.project!.id)}/${req.params['invoiceId']}`, `Event ${result.event_id} is delivered once more.`);
      },
    },
    {
      method: 'POST',
      path: '/dashboard/projects/:projectId/sandbox/clock-advance',
      summary: "Sandbox: advance a chain's clock, adding confirmations to every detected invoice of the project on it.",
      handle: async (req) => {
        requireSandbox(req);
        const chain = req.form.choice('chain', 'Chain', services.chains.chainIds());
        const blocksText = req.form.text('blocks', 'Blocks', { max: 3 });
        const blocks = /^\d+$/.test(blocksText) ? Number(blocksText) : NaN;
        if (!(blocks >= 1 && blocks <= CLOCK_BLOCKS_MAX))
          throw dashboardErrors.invalid_form({ message: `Blocks must be a whole number from 1 to ${CLOCK_BLOCKS_MAX}.` });
        const result = await services.sandboxSimulator.advanceClock(req.project!.id, chain, blocks, req.actor);
        const back = req.form.optional('invoice', 'Invoice', { max: 26 });
        const location = back && /^[0-9A-HJKMNP-TV-Z]{26}$/.test(back) ? `${invoicesPath(req.project!.id)}/${back}` : invoicesPath(req.project!.id);
        return redirect(location, `The ${chain} clock advanced ${blocks} block(s): ${result.advanced} invoice(s) moved, ${result.remaining} still waiting.`);
      },
    },
  ],
});
