import { configSlice } from '@gw/kernel';
import Type, { type Static } from 'typebox';

export const CheckoutConfigSchema = configSlice({
  streamsPerClient: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 20,
    description: 'Status streams (SSE and long polls) one client address may hold open over every gateway instance; more get 429.',
  }),
  heartbeatSeconds: Type.Integer({
    minimum: 5,
    maximum: 120,
    default: 25,
    description: 'Comment line sent on idle status streams so proxies keep them open.',
  }),
  streamMaxSeconds: Type.Integer({
    minimum: 5,
    maximum: 86_400,
    default: 900,
    description: 'A status stream is closed after this long; the browser reconnects (spreads long-lived connections over instances).',
  }),
  longPollSeconds: Type.Integer({
    minimum: 1,
    maximum: 60,
    default: 25,
    description: 'How long a long poll (browsers without EventSource) waits for a change.',
  }),
  returnDelaySeconds: Type.Integer({
    minimum: 0,
    maximum: 60,
    default: 3,
    description: 'Seconds the page shows "paid" before sending the payer to return_url.',
  }),
});
export type CheckoutConfig = Static<typeof CheckoutConfigSchema>;
