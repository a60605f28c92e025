import { definePlugin, serviceValue } from '@gw/kernel';
import { m0001Btcpay } from '../migrations/0001_btcpay.js';
import { joinParts, joinRecords } from './area.js';
import { authorizationArea } from './authorization/area.js';
import { BtcpayConfigSchema } from './config.js';
import { BTCPAY_EXPORTS } from './contract.js';
import { credentialsArea } from './credentials/area.js';
import { btcpayErrors } from './errors.js';
import { invoicesArea } from './invoices/area.js';
import { refundsArea } from './refunds/area.js';
import { webhooksArea } from './webhooks/area.js';

const AREAS = [credentialsArea, authorizationArea, invoicesArea, webhooksArea, refundsArea];

/**
 * A BTCPay Greenfield-compatible API (issue 39), off unless `plugins.btcpay.enabled`: the calls
 * BTCPay's client library makes for the shop plugins (WooCommerce, PrestaShop, Magento, WHMCS,
 * Odoo), with BTCPay's paths, bodies, status codes, error shapes and webhook signatures, under
 * `{base_url}{pathPrefix}`. A store is a project, an invoice a checkout session, a refund a refund
 * of the payouts plugin (docs/btcpay-compatibility.md).
 */
export const btcpayPlugin = definePlugin({
  id: 'btcpay',
  enabledByDefault: false,
  dependsOn: ['tenancy', 'wallets', 'rates', 'invoices', 'webhooks', 'sessions', 'payouts'],
  exports: BTCPAY_EXPORTS,
  config: BtcpayConfigSchema,
  errors: [btcpayErrors],
  migrations: [m0001Btcpay, ...AREAS.flatMap((area) => area.migrations ?? [])],
  sealedColumns: [
    { table: 'btcpay_webhooks', column: 'sealed_secret', aad: (id) => `btcpay_webhooks:${id}` },
    { table: 'btcpay_pull_payments', column: 'sealed_claim_token', aad: (id) => `btcpay_pull_payments:${id}` },
  ],
  register: ({ config }) => Object.assign({ btcpayConfig: serviceValue(config) }, ...AREAS.map((area) => area.services?.(config) ?? {})),
  routes: joinParts(AREAS.map((area) => area.routes)),
  errorFormats: joinParts(AREAS.map((area) => area.errorFormats)),
  authenticators: joinRecords(AREAS.map((area) => area.authenticators)),
  contributes: AREAS.flatMap((area) => area.contributes ?? []),
  jobs: joinParts(AREAS.map((area) => area.jobs)),
  userAccessEnders: joinParts(AREAS.map((area) => area.userAccessEnders)),
  cli: AREAS.flatMap((area) => area.cli ?? []),
});

export * from './contract.js';
export { btcpayErrors } from './errors.js';
export { BtcpayConfigSchema, type BtcpayConfig } from './config.js';
