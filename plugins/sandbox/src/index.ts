import { contribute, definePlugin, service, serviceValue, withDeps } from '@gw/kernel';
import { WEBHOOK_RESEND_RULES } from '@gw/plugin-webhooks/contract';
import { invoicePageParts } from '@gw/plugin-invoices/contract';
import { INVOICE_SIMULATIONS_DEPS, invoiceSimulationsPage, invoiceSimulationsPart } from './dashboard/invoice-simulations.js';
import { dashboardPages, pageSections } from '@gw/plugin-dashboard/contract';
import { NEW_SANDBOX_DEPS, newSandboxPage, newSandboxSection } from './dashboard/new-sandbox.js';
import { SANDBOX_PAGE_DEPS, sandboxPage } from './dashboard/sandbox-page.js';
import { SANDBOX_EXPORTS } from './contract.js';
import { sandboxCommands } from './cli.js';
import { SandboxConfigSchema } from './config.js';
import { sandboxErrors } from './errors.js';
import { sandboxRoutes } from './routes.js';
import { sandboxMcpTools } from './mcp-tools.js';
import { sandboxCheckoutPanels } from './checkout/simulation-panel.js';
import { SANDBOX_RESEND_REFUSES, SandboxInvoices } from './services/sandbox-invoices.js';
import { SandboxProjects } from './services/sandbox-projects.js';
import { Simulator } from './services/simulator.js';
import { SandboxChain } from './services/sandbox-chain.js';

/**
 * The sandbox (spec 1, 3.1, 4.5): one-action provisioning of sandbox projects, the invoice and
 * webhook mirrors under /api/v1/sandbox, and the simulations that drive invoices through the
 * same state machine, outbox and signed webhooks as real chain observations. It owns no tables:
 * everything it writes goes through the other plugins' services.
 */
export const sandboxPlugin = definePlugin({
  id: 'sandbox',
  dependsOn: ['tenancy', 'wallets', 'address-pool', 'rates', 'invoices', 'webhooks'],
  exports: SANDBOX_EXPORTS,
  config: SandboxConfigSchema,
  errors: [sandboxErrors],
  register: ({ config }) => ({
    sandboxConfig: serviceValue(config),
    sandboxProjects: service(
      [
        'db',
        'audit',
        'logger',
        'chains',
        'tenancyProjects',
        'tenancyApiKeys',
        'tenancyPats',
        'walletsWallets',
        'addressPoolService',
        'addressPoolReplenisher',
        'invoicesService',
        'webhooksEventLog',
        'extensions',
      ],
      (deps) => new SandboxProjects(deps),
    ),
    sandboxInvoices: service(['rateLimiter', 'sandboxConfig', 'invoicesService', 'webhooksEventLog'], (deps) => new SandboxInvoices(deps)),
    sandboxSimulator: service(
      ['db', 'chains', 'rateLimiter', 'sandboxConfig', 'invoicesService', 'invoicesLifecycle', 'webhooksEventLog', 'sandboxChain'],
      (deps) => new Simulator(deps),
    ),
    sandboxChain: service(['invoicesLifecycle'], (deps) => new SandboxChain(deps)),
  }),
  routes: sandboxRoutes,
  mcpTools: sandboxMcpTools,
  // Its dashboard pages, the projects page's form and the invoice page's simulations, the checkout
  // page's simulation buttons on sandbox invoices, and its resend rule for the webhooks page (ADR 0011).
  contributes: [
    dashboardPages(INVOICE_SIMULATIONS_DEPS, [invoiceSimulationsPage]),
    invoicePageParts(INVOICE_SIMULATIONS_DEPS, [invoiceSimulationsPart]),
    contribute(
      WEBHOOK_RESEND_RULES,
      withDeps([], () => [{ kind: 'sandbox' as const, refuse: SANDBOX_RESEND_REFUSES }]),
    ),
    dashboardPages(SANDBOX_PAGE_DEPS, [sandboxPage]),
    dashboardPages(NEW_SANDBOX_DEPS, [newSandboxPage]),
    pageSections(NEW_SANDBOX_DEPS, [newSandboxSection]),
    sandboxCheckoutPanels,
  ],
  cli: sandboxCommands,
});

export * from './contract.js';
export { sandboxErrors } from './errors.js';
export { SandboxConfigSchema, type SandboxConfig } from './config.js';
export { SandboxProjects, SANDBOX_PAT_SCOPE, type ProvisionedSandbox, type SandboxWallet } from './services/sandbox-projects.js';
export { SandboxInvoices } from './services/sandbox-invoices.js';
export { Simulator, type SimulationResult, type SimulationInput } from './services/simulator.js';
export { SandboxChain, unconfirmedPayments, countedPayments } from './services/sandbox-chain.js';
export { SIMULATIONS, SIMULATION_RULES, EVENT_RULES, TERMINAL_EVENT_TYPES, synthesizedTxHash, type Simulation } from './simulations.js';
export * from './schemas.js';
