import { configSlice } from '@gw/kernel';
import Type, { type Static } from 'typebox';

/** Config slice `plugins.webhooks`. Retry schedule and timeout: docs/webhooks.md. */
export const WebhooksConfigSchema = configSlice({
  timeoutMs: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 10_000,
    description: 'How long one delivery may take (connect to last byte); longer is a failed attempt.',
  }),
  maxAttempts: Type.Integer({ minimum: 1, maximum: 50, default: 17, description: 'Attempts before an event is dead-lettered (17 spans about 3.2 days).' }),
  retryBaseSeconds: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 30,
    description: 'Delay after the first failed attempt; doubles after each further one.',
  }),
  retryMaxDelaySeconds: Type.Integer({ minimum: 1, maximum: 86_400, default: 43_200, description: 'Longest delay between two attempts.' }),
  retryJitter: Type.Number({ minimum: 0, maximum: 0.5, default: 0.2, description: 'Each delay is scaled by a random factor in [1 - jitter, 1 + jitter].' }),
  batchWaitMs: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 2000,
    description:
      'How long a batch waits for its slowest deliveries before recording the others and fetching more; the slow ones finish and are recorded on their own, so a hanging receiver holds up nobody else.',
  }),
  allowPrivateTargets: Type.Optional(
    Type.Boolean({
      description:
        'Send events to private, loopback and link-local addresses (every project kind; sandbox projects never reach link-local). Default: true only when env is development explicitly.',
    }),
  ),
  privateAttemptDetails: Type.Optional(
    Type.Boolean({
      description:
        'Record the status code, error text and latency of attempts at private, loopback and link-local addresses. Off: such an attempt shows only delivered or failed, so the delivery log cannot map internal services. Default: true only when env is development explicitly.',
    }),
  ),
  batchSize: Type.Integer({ minimum: 1, maximum: 1000, default: 1000, description: 'Due events one fetch loop claims at once (delivered concurrently).' }),
  workers: Type.Integer({
    minimum: 1,
    maximum: 32,
    default: 2,
    description: 'Concurrent fetch loops per worker process (at most half of database.poolMax: each holds a connection while its batch is on the wire).',
  }),
  maxSocketsPerHost: Type.Integer({ minimum: 1, maximum: 1024, default: 128, description: 'Keep-alive connections per target host and process.' }),
  expireInSeconds: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 120,
    description:
      'A delivery still running past its batch is sent again by another worker this long after its timeout if its worker died; a worker silent this long past batchWaitMs (its host cut off) loses its batch to the others.',
  }),
  responseExcerptBytes: Type.Integer({ minimum: 0, maximum: 8192, default: 512, description: 'Bytes of the response body kept per attempt.' }),
  privateResponseExcerpts: Type.Boolean({
    default: false,
    description:
      "Keep response excerpts of private, loopback and link-local targets too. Off: only public targets' answers are kept, so the delivery log cannot read internal services (SSRF read-back).",
  }),
  resendRateLimitPerMinute: Type.Integer({ minimum: 1, maximum: 100_000, default: 60, description: 'Resends per project and minute (429 beyond).' }),
});

export type WebhooksConfig = Static<typeof WebhooksConfigSchema>;
