import type { AnyPlugin } from '@gw/kernel';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
import { addressPoolPlugin } from '@gw/plugin-address-pool';
import { ratesPlugin } from '@gw/plugin-rates';
import { invoicesPlugin } from '@gw/plugin-invoices';
import { webhooksPlugin } from '@gw/plugin-webhooks';
import { sandboxPlugin } from '@gw/plugin-sandbox';
import { watchersPlugin } from '@gw/plugin-watchers';
import { treasuryPlugin } from '@gw/plugin-treasury';
import { payoutsPlugin } from '@gw/plugin-payouts';
import { oauthPlugin } from '@gw/plugin-oauth';
import { mcpPlugin } from '@gw/plugin-mcp';
import { checkoutPlugin } from '@gw/plugin-checkout';
import { dashboardPlugin } from '@gw/plugin-dashboard';
import { sessionsPlugin } from '@gw/plugin-sessions';
import { btcpayPlugin } from '@gw/plugin-btcpay';
import { x402Plugin } from '@gw/plugin-x402';

/**
 * The composition root: every plugin and chain of this build, imported explicitly. Config only
 * enables, disables and parameterises them. The gateway, worker, combined and CLI apps all use
 * this one list, so every process runs the same migrations and knows the same queues.
 */
export const plugins: readonly AnyPlugin[] = [
  tenancyPlugin,
  walletsPlugin,
  addressPoolPlugin,
  ratesPlugin,
  invoicesPlugin,
  webhooksPlugin,
  watchersPlugin,
  treasuryPlugin,
  payoutsPlugin,
  sandboxPlugin,
  checkoutPlugin,
  oauthPlugin,
  mcpPlugin,
  sessionsPlugin,
  btcpayPlugin,
  x402Plugin,
  dashboardPlugin,
];

export { chains } from './chains.js';
