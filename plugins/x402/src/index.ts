import { contribute, definePlugin, MACHINE_PAYMENT_RESPONDERS, MCP_PAYWALLS, service, serviceValue, withDeps } from '@gw/kernel';
import { dashboardPages } from '@gw/plugin-dashboard/contract';
import { m0001X402 } from '../migrations/0001_x402.js';
import { x402Commands } from './cli.js';
import { X402ConfigSchema } from './config.js';
import { X402_EXPORTS } from './contract.js';
import { X402_PAGE_DEPS, x402Page } from './dashboard/x402-page.js';
import { x402Errors } from './errors.js';
import { createFacilitatorAuthenticator } from './facilitator-authenticator.js';
import { x402Jobs } from './jobs.js';
import { x402McpTools } from './mcp/mcp-tools.js';
import { checkPaidTools, PAID_TOOLS_CHECK_DEPS } from './mcp/paid-tools-check.js';
import { X402_PAYWALL_DEPS, X402Paywall } from './mcp/x402-paywall.js';
import { createX402Metrics } from './metrics.js';
import { x402Readiness } from './readiness.js';
import { FACILITATOR_ROUTES_DEPS, facilitatorRoutes } from './routes/facilitator-routes.js';
import { PAYER_URL_RESPONDER_DEPS, payerUrlResponder } from './routes/payer-url-responder.js';
import { ExternalFacilitator } from './services/external-facilitator.js';
import { GasWallets } from './services/gas-wallets.js';
import { PayerOffers } from './services/payer-offers.js';
import { SettlementFollower } from './services/settlement-follower.js';
import { X402Networks } from './services/x402-networks.js';
import { X402Offers } from './services/x402-offers.js';
import { X402Payments } from './services/x402-payments.js';
import { X402Settlements } from './services/x402-settlements.js';

/**
 * x402 (issue 41): invoices and checkout sessions payable by agents with a signed USDC
 * authorization (EIP-3009), settled into the invoice's own deposit address by the operator's capped
 * gas wallet or an external facilitator; a facilitator for partners' own APIs whose every paid call
 * is an invoice; x402's MCP transport for paid tools. Off until `plugins.x402.settlement` is set.
 */
export const x402Plugin = definePlugin({
  id: 'x402',
  dependsOn: ['tenancy', 'address-pool', 'invoices', 'watchers', 'sessions'],
  exports: X402_EXPORTS,
  config: X402ConfigSchema,
  errors: [x402Errors],
  migrations: [m0001X402],
  register: ({ config }) => ({
    x402Config: serviceValue(config),
    x402Metrics: service(['metrics'], ({ metrics }) => createX402Metrics(metrics.registry)),
    x402Networks: service(['chains', 'watchersOutputs', 'x402Config', 'logger'], (deps) => new X402Networks(deps)),
    x402GasWallets: service(['db', 'logger', 'x402Config', 'watchersOutputs', 'addressPoolService', 'x402Metrics'], (deps) => new GasWallets(deps)),
    x402ExternalFacilitator: service(['x402Config'], (deps) => new ExternalFacilitator(deps)),
    x402Settlements: service(['db', 'logger', 'x402Config', 'x402GasWallets', 'x402ExternalFacilitator', 'x402Metrics'], (deps) => new X402Settlements(deps)),
    x402SettlementFollower: service(['logger', 'x402Config', 'x402Settlements', 'watchersOutputs', 'x402Metrics'], (deps) => new SettlementFollower(deps)),
    x402Payments: service(
      [
        'db',
        'chains',
        'logger',
        'invoicesService',
        'tenancyProjects',
        'x402Config',
        'x402Networks',
        'x402GasWallets',
        'x402Settlements',
        'x402ExternalFacilitator',
      ],
      (deps) => new X402Payments(deps),
    ),
    x402Offers: service(['db', 'rateLimiter', 'invoicesService', 'x402Config', 'x402Networks', 'x402Payments'], (deps) => new X402Offers(deps)),
    x402PayerOffers: service(['invoicesService', 'sessionsCheckout', 'x402Networks', 'x402Payments'], (deps) => new PayerOffers(deps)),
  }),
  // Settlements not mined while their settler waited: followed to their outcome.
  jobs: x402Jobs,
  cli: x402Commands,
  readiness: x402Readiness,
  // An invoice's or session's requirements, for agents that pay.
  mcpTools: x402McpTools,
  start: withDeps(['x402GasWallets', 'x402Metrics', ...PAID_TOOLS_CHECK_DEPS], async (deps) => {
    // Resolved now so the counters are on /metrics before the first settlement.
    void deps.x402Metrics;
    // A key file that cannot be read stops start-up here, not the first paying agent.
    if (deps.x402Config.settlement === 'gas_wallet') deps.x402GasWallets.checkKeys((message) => deps.logger.warn(message));
    // A paid tool that names no tool, or a price no agent can pay, stops the start.
    await checkPaidTools(deps);
  }),
  // The facilitator routes' credential: a token derived from the project's API secret.
  authenticators: withDeps(['tenancyApiKeys', 'tenancyProjects'], (deps) => ({ x402_facilitator: createFacilitatorAuthenticator(deps) })),
  // The facilitator for partners' own APIs.
  routes: withDeps([...FACILITATOR_ROUTES_DEPS], (deps) => facilitatorRoutes(deps)),
  contributes: [
    // Its dashboard page (ADR 0011).
    dashboardPages(X402_PAGE_DEPS, [x402Page]),
    // The payer URLs (an invoice's checkout page, a session's page) answer x402 clients.
    contribute(
      MACHINE_PAYMENT_RESPONDERS,
      withDeps([...PAYER_URL_RESPONDER_DEPS], (deps) => [payerUrlResponder(deps)]),
    ),
    // x402's MCP transport for the paid tools (plugins.x402.paidTools).
    contribute(
      MCP_PAYWALLS,
      withDeps([...X402_PAYWALL_DEPS], (deps) => [new X402Paywall(deps)]),
    ),
  ],
});

export * from './contract.js';
