/**
 * The contract of the x402 plugin (issue 41: payments by agents over HTTP and MCP, settled into the
 * operator's own addresses): the services it registers and what other plugins may import from it
 * (`@gw/plugin-x402/contract`), nothing else (ADR 0009).
 */
import type { ServiceName } from '@gw/kernel';
import type { X402Config } from './config.js';
import type { X402Metrics } from './metrics.js';
import type { ExternalFacilitator } from './services/external-facilitator.js';
import type { GasWallets } from './services/gas-wallets.js';
import type { PayerOffers } from './services/payer-offers.js';
import type { SettlementFollower } from './services/settlement-follower.js';
import type { X402Networks } from './services/x402-networks.js';
import type { X402Offers } from './services/x402-offers.js';
import type { X402Payments } from './services/x402-payments.js';
import type { X402Settlements } from './services/x402-settlements.js';

declare module '@gw/kernel' {
  interface Cradle {
    readonly x402Config: X402Config;
    /** Which coins and networks x402 can be paid in here. */
    readonly x402Networks: X402Networks;
    /** Requirements, verification and settlement of invoices' x402 payments. */
    readonly x402Payments: X402Payments;
    /** Fresh payTo invoices of partners' paid calls and paid MCP tools. */
    readonly x402Offers: X402Offers;
    /** What an invoice's or checkout session's payer URL offers an x402 client (its answers, `get_x402_requirements`). */
    readonly x402PayerOffers: PayerOffers;
    /** The settlements: one per authorization, the gas wallet or the external facilitator, the receipt. */
    readonly x402Settlements: X402Settlements;
    /** The follow job's work: settlements left `submitted`/`pending` to their outcome, dropped ones failed. */
    readonly x402SettlementFollower: SettlementFollower;
    /** The capped settlement gas wallets. */
    readonly x402GasWallets: GasWallets;
    /** The external facilitator of `settlement: facilitator`. */
    readonly x402ExternalFacilitator: ExternalFacilitator;
    /** Counters of settlements and of the gas wallets' spend (`gateway_x402_*`). */
    readonly x402Metrics: X402Metrics;
  }
}

/** No other plugin uses x402's services: it contributes to the payer URLs and MCP through extension points. */
export const X402_EXPORTS: readonly ServiceName[] = [];

export { x402Errors } from './errors.js';
export * from './protocol/messages.js';
export { X402_REASONS, type X402Reason } from './protocol/reasons.js';
export { decodeX402Header, encodeX402Header } from './protocol/headers.js';
