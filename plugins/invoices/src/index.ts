import { asFunction, asValue } from 'awilix';
import { definePlugin, type Cradle } from '@gw/kernel';
import { m0001Invoices } from '../migrations/0001_invoices.js';
import { invoicesCommands } from './cli.js';
import { InvoicesConfigSchema, type InvoicesConfig } from './config.js';
import { invoicesErrors } from './errors.js';
import { invoicesRoutes } from './routes.js';
import { invoicesMcpTools } from './mcp-tools.js';
import { InvoiceService } from './services/invoice-service.js';
import { PolicyService } from './services/policy-service.js';
import { InvoiceTransitions } from './services/invoice-transitions.js';
import { InvoiceAttribution } from './services/invoice-attribution.js';
import { InvoiceExpiry } from './services/invoice-expiry.js';
import { invoicesJobs } from './jobs.js';

declare module '@gw/kernel' {
  interface Cradle {
    readonly invoicesConfig: InvoicesConfig;
    readonly invoicesService: InvoiceService;
    readonly invoicesPolicies: PolicyService;
    readonly invoicesTransitions: InvoiceTransitions;
    readonly invoicesAttribution: InvoiceAttribution;
    readonly invoicesExpiry: InvoiceExpiry;
  }
}

/**
 * Invoices over REST (spec 2.1, 4.2): idempotent creation with a pool address and an exchange-rate
 * snapshot, search with cursor pagination, retrieval, cancellation; per-project invoice policies
 * set by the operator CLI.
 */
export const invoicesPlugin = definePlugin({
  id: 'invoices',
  dependsOn: ['tenancy', 'wallets', 'address-pool', 'rates'],
  config: InvoicesConfigSchema,
  errors: [invoicesErrors],
  migrations: [m0001Invoices],
  register: ({ config }) => ({
    invoicesConfig: asValue(config),
    invoicesPolicies: asFunction((cradle: Cradle) => new PolicyService(cradle)).singleton(),
    invoicesService: asFunction((cradle: Cradle) => new InvoiceService(cradle)).singleton(),
    invoicesTransitions: asFunction((cradle: Cradle) => new InvoiceTransitions(cradle)).singleton(),
    invoicesAttribution: asFunction((cradle: Cradle) => new InvoiceAttribution(cradle)).singleton(),
    invoicesExpiry: asFunction((cradle: Cradle) => new InvoiceExpiry(cradle)).singleton(),
  }),
  routes: invoicesRoutes,
  mcpTools: invoicesMcpTools,
  jobs: invoicesJobs,
  cli: invoicesCommands,
});

export { invoicesErrors } from './errors.js';
export { InvoicesConfigSchema, MATCHING_MODES, type InvoicesConfig, type MatchingMode } from './config.js';
export { INVOICE_STATUSES, WAITING_STATUSES, PAID_STATUSES, type InvoiceStatus } from './invoice-status.js';
export { InvoiceService, paymentCandidateKey, type PaymentCandidateKey, type CreateInvoiceInput, type InvoiceListFilter, type InvoicePage } from './services/invoice-service.js';
export { InvoiceTransitions, type TransitionRequest, type TransitionResult, type TransactionWrite, type TransactionStatus, type TransactionUpdate } from './services/invoice-transitions.js';
export { InvoiceAttribution, type AttributionInput } from './services/invoice-attribution.js';
export { InvoiceExpiry, EXPIRING_STATUSES } from './services/invoice-expiry.js';
export { EXPIRE_JOB } from './jobs.js';
export { PolicyService, POLICY_LIMITS, type PolicyPatch, type ResolvedPolicy } from './services/policy-service.js';
export type { InvoiceView, InvoiceTransactionView } from './services/invoice-view.js';
export * from './schemas.js';
export { invoiceWriteTools, type InvoiceWriteHandlers } from './mcp-tools.js';
