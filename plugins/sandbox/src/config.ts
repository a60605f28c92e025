import { configSlice } from '@gw/kernel';
import Type, { type Static } from 'typebox';

/** Config slice `plugins.sandbox`. */
export const SandboxConfigSchema = configSlice({
  writeRateLimitPerMinute: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 60,
    description: 'Sandbox invoice writes (create, cancel) per project per minute (spec 8); resends count against plugins.webhooks.resendRateLimitPerMinute.',
  }),
  simulateRateLimitPerMinute: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 60,
    description: 'simulate-* calls per project and chain per minute.',
  }),
  clockAdvanceRateLimitPerMinute: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 10,
    description: 'clock/advance calls per project and chain per minute (spec 8).',
  }),
  activeInvoiceCap: Type.Integer({
    minimum: 1,
    maximum: 10_000_000,
    default: 10_000,
    description: 'Active (unfinished) invoices per sandbox project (spec 8).',
  }),
  provisionOnFirstStart: Type.Boolean({
    default: true,
    description:
      'On the first start against a database without projects, provision one sandbox project and hand out its credentials (see firstStartCredentialsFile).',
  }),
  firstStartCredentialsFile: Type.String({
    minLength: 1,
    default: '.data/first-start-credentials.txt',
    description:
      'Where the first start writes the sandbox credentials (mode 0600, named in the log) when stderr is not a terminal. On a terminal they go to stderr only; never to stdout or the log.',
  }),
});

export type SandboxConfig = Static<typeof SandboxConfigSchema>;
