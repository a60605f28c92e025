import Type, { type Static } from 'typebox';

/** `plugins.btcpay` (issue 39): the BTCPay Greenfield-compatible API, off unless enabled. */
export const BtcpayConfigSchema = Type.Object(
  {
    pathPrefix: Type.String({
      pattern: '^/[a-z0-9-]+$',
      default: '/btcpay',
      description:
        'Where the Greenfield-compatible API lives under the gateway’s base URL: a shop plugin is given `{base_url}{pathPrefix}` as its BTCPay server URL, and calls `{pathPrefix}/api/v1/...` below it.',
    }),
  },
  { additionalProperties: false },
);
export type BtcpayConfig = Static<typeof BtcpayConfigSchema>;
