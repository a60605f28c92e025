import test from 'ava';
import { pino } from 'pino';
import { startTestKernel, waitFor } from '@gw/kernel/testing';
import { inviteUser, OAUTH_PLUGINS } from './helpers.js';

// Issue 26 finding 4: one-time sign-in codes go to the log only when development was chosen
// explicitly; a gateway that never set env and has no SMTP offers no e-mail sign-in instead.
// Mutation checked: with CodeMailer built with `production: false` whatever the env (plugin
// index.ts), the unset and production runs log a code and this fails.
test('without SMTP, sign-in codes are logged only with env development chosen explicitly', async (t) => {
  for (const [env, logsCodes] of [
    [undefined, false],
    ['production', false],
    ['development', true],
  ] as const) {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const gw = await startTestKernel({ plugins: OAUTH_PLUGINS, role: 'gateway', config: env ? { env } : {}, logger });
    try {
      const { email } = await inviteUser(gw, 'safe-defaults');
      const binding = `test:${env ?? 'unset'}`;
      const started = await gw.kernel.cradle.oauthSignIn.startFor(binding, email, 'Signing in to a test.', '127.0.0.1');
      const codeLines = () => lines.filter((line) => typeof line['code'] === 'string');
      if (logsCodes) {
        if (!('challengeId' in started)) return t.fail(`env ${env}: ${JSON.stringify(started)}`);
        const [line] = await waitFor(async () => (codeLines().length > 0 ? codeLines() : undefined), 10_000, 'the logged code');
        t.like(line, { to: email, level: 40 });
        // What was logged is the code itself: it signs in.
        t.truthy('userId' in (await gw.kernel.cradle.oauthSignIn.verifyFor(binding, started.challengeId, line!['code'])), 'the logged code signs in');
      } else {
        t.deepEqual(started, { problem: 'unavailable' }, `env ${env ?? 'unset'}`);
        t.deepEqual(codeLines(), [], `env ${env ?? 'unset'}: a code was logged`);
        t.false(
          lines.some((line) => /^oauth sign-in code/.test(String(line['msg']))),
          `env ${env ?? 'unset'}`,
        );
      }
    } finally {
      await gw.close();
    }
  }
});
