import test from 'ava';
import { startTestKernel } from '@gw/kernel/testing';
import { OAUTH_PLUGINS } from './helpers.js';

// Issue 26 finding 4: one-time sign-in codes go to the log only when development was chosen
// explicitly; a gateway that never set env and has no SMTP offers no e-mail sign-in instead.
test('without SMTP, sign-in codes are logged only with env development chosen explicitly', async (t) => {
  for (const [env, logsCodes] of [[undefined, false], ['production', false], ['development', true]] as const) {
    const gw = await startTestKernel({ plugins: OAUTH_PLUGINS, role: 'gateway', config: env ? { env } : {} });
    try {
      t.is(gw.kernel.cradle.oauthMailer.available, logsCodes, `env ${env ?? 'unset'}`);
    } finally {
      await gw.close();
    }
  }
});
