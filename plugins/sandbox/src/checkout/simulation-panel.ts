import { html, withDeps } from '@gw/kernel';
import { CHECKOUT_PANELS, defineMessages, type CheckoutPanel } from '@gw/plugin-checkout/contract';
import { contribute } from '@gw/kernel';
import type { SimulationInput } from '../services/simulator.js';
import { SIMULATION_RULES, type Simulation } from '../simulations.js';

/** The panel's words in every payer language (the checkout page's catalogue tool). */
export const SIMULATION_MESSAGES = defineMessages(
  { title: 'Simulate', detect: 'Detect payment', paid: 'Confirm as paid', partial: 'Pay too little', overpaid: 'Pay too much', expire: 'Expire' },
  {
    de: {
      title: 'Simulieren',
      detect: 'Zahlung erkennen',
      paid: 'Als bezahlt bestätigen',
      partial: 'Zu wenig zahlen',
      overpaid: 'Zu viel zahlen',
      expire: 'Ablaufen lassen',
    },
    es: {
      title: 'Simular',
      detect: 'Detectar el pago',
      paid: 'Confirmar como pagado',
      partial: 'Pagar de menos',
      overpaid: 'Pagar de más',
      expire: 'Hacer vencer',
    },
    fr: {
      title: 'Simuler',
      detect: 'Détecter le paiement',
      paid: 'Confirmer comme payée',
      partial: 'Payer trop peu',
      overpaid: 'Payer trop',
      expire: 'Faire expirer',
    },
    pt: {
      title: 'Simular',
      detect: 'Detectar o pagamento',
      paid: 'Confirmar como pago',
      partial: 'Pagar a menos',
      overpaid: 'Pagar a mais',
      expire: 'Fazer expirar',
    },
    it: {
      title: 'Simula',
      detect: 'Rileva il pagamento',
      paid: 'Conferma come pagato',
      partial: 'Paga troppo poco',
      overpaid: 'Paga troppo',
      expire: 'Fai scadere',
    },
    tr: { title: 'Simüle et', detect: 'Ödemeyi algıla', paid: 'Ödendi olarak onayla', partial: 'Eksik öde', overpaid: 'Fazla öde', expire: 'Süresini doldur' },
    zh: { title: '模拟', detect: '检测到付款', paid: '确认为已支付', partial: '支付不足', overpaid: '超额支付', expire: '设为过期' },
  },
);

/**
 * The simulations the checkout page offers on sandbox invoices, with the statuses each applies to
 * (the sandbox's rule) and its input (spec 4.5). "Pay too little" is simulate-event
 * `invoice.partial` with half the amount at the threshold, so the payer sees the partial status and
 * the remainder (simulate-partial leaves the invoice detected, spec 3.1).
 */
export const PAGE_SIMULATIONS = [
  { name: 'detect', from: SIMULATION_RULES.detect.from, input: {} },
  { name: 'paid', from: SIMULATION_RULES.paid.from, input: {} },
  { name: 'partial', from: SIMULATION_RULES.partial.from, input: {} },
  { name: 'overpaid', from: SIMULATION_RULES.overpaid.from, input: { multiplier: 1.5 } },
  { name: 'expire', from: SIMULATION_RULES.expire.from, input: {} },
] as const satisfies readonly { name: Simulation; from: readonly string[]; input: SimulationInput }[];

const applies = (simulation: (typeof PAGE_SIMULATIONS)[number], status: string) => (simulation.from as readonly string[]).includes(status);

/**
 * The sandbox's panel of the hosted checkout page (ADR 0011): a sandbox invoice's page gets a
 * button per simulation, enabled where it applies; the checkout knows nothing of the sandbox.
 */
export const sandboxCheckoutPanels = contribute(
  CHECKOUT_PANELS,
  withDeps(['sandboxSimulator'], ({ sandboxSimulator }): CheckoutPanel[] => [
    {
      id: 'simulate',
      shows: (kind) => kind === 'sandbox',
      actions: PAGE_SIMULATIONS.map((s) => s.name),
      enabledActions: (status) => PAGE_SIMULATIONS.filter((s) => applies(s, status)).map((s) => s.name),
      render: ({ locale, status, base, formToken, error }) => {
        const t = SIMULATION_MESSAGES.in(locale);
        return html`<section class="sandbox" aria-labelledby="sandbox-title">
<h2 id="sandbox-title">${t('title')}</h2>
${error ? html`<p class="error" role="alert">${error}</p>` : null}
<div class="simulations">${PAGE_SIMULATIONS.map(
          (s) =>
            html`<form method="post" action="${base}/simulate/${s.name}?lang=${locale}"><input type="hidden" name="csrf" value="${formToken}"><button type="submit" data-simulation="${s.name}"${applies(s, status) ? null : html` disabled`}>${t(s.name)}</button></form>`,
        )}</div>
</section>`;
      },
      act: async (name, invoice, actor) => {
        const simulation = PAGE_SIMULATIONS.find((s) => s.name === name)!;
        if (simulation.name === 'partial') {
          const half = BigInt(invoice.amount_crypto_units) / 2n;
          await sandboxSimulator.simulateEvent(
            invoice.project_id,
            invoice.id,
            {
              eventType: 'invoice.partial',
              amountUnits: (half > 0n ? half : 1n).toString(),
              confirmations: Math.max(invoice.confirmation_threshold, 1),
              blockHeight: 1,
              expectedCurrentStatus: invoice.status,
            },
            actor,
          );
        } else {
          await sandboxSimulator.simulate(invoice.project_id, invoice.id, simulation.name, simulation.input, actor);
        }
      },
    },
  ]),
);
