import { configSlice } from '@gw/kernel';
import Type, { type Static } from 'typebox';

/** Config slice `plugins.dashboard` (plugins/dashboard/README.md). */
export const DashboardConfigSchema = configSlice({
  idleTimeoutSeconds: Type.Integer({
    minimum: 60,
    maximum: 86_400,
    default: 1800,
    description: 'A signed-in dashboard session that sees no request for this long ends (idle timeout).',
  }),
  absoluteTimeoutSeconds: Type.Integer({
    minimum: 300,
    maximum: 2_592_000,
    default: 43_200,
    description: 'A dashboard session ends this long after sign-in, however active it is (absolute timeout).',
  }),
  signInTtlSeconds: Type.Integer({
    minimum: 60,
    maximum: 3600,
    default: 900,
    description: 'How long a browser may take from the sign-in page to entering the code.',
  }),
  signInsPerHourPerIp: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 60,
    description:
      'Sign-in pages started (each writes a session row) per client address and hour; a 429 page beyond. Code sends and attempts are limited by plugins.oauth.emailCode.',
  }),
});

export type DashboardConfig = Static<typeof DashboardConfigSchema>;
