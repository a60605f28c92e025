import test from 'ava';
import { Value } from 'typebox/value';
import { WebhooksConfigSchema } from '../config.js';
import { nominalSchedule, retryDelaySeconds } from './retry-schedule.js';

const defaults = Value.Default(WebhooksConfigSchema, {}) as ReturnType<typeof Value.Parse<typeof WebhooksConfigSchema>>;

test('the default schedule doubles from 30 s, caps at 12 h and spans at least three days', (t) => {
  const delays = nominalSchedule(defaults);
  t.is(delays.length, defaults.maxAttempts - 1);
  t.deepEqual(delays.slice(0, 5), [30, 60, 120, 240, 480]);
  t.is(Math.max(...delays), 43_200);
  const total = delays.reduce((a, b) => a + b, 0);
  t.true(total >= 3 * 86_400, `${total} s`);
});

test('jitter stays within its bound and the last attempt has no retry', (t) => {
  const config = { maxAttempts: 5, retryBaseSeconds: 100, retryMaxDelaySeconds: 1000, retryJitter: 0.2 };
  t.is(
    retryDelaySeconds(1, config, () => 0),
    80,
  );
  t.is(
    retryDelaySeconds(1, config, () => 1),
    120,
  );
  t.is(
    retryDelaySeconds(4, config, () => 0.5),
    800,
  );
  t.is(retryDelaySeconds(5, config), undefined);
  for (let i = 0; i < 200; i += 1) {
    const delay = retryDelaySeconds(3, config)!;
    t.true(delay >= 320 && delay <= 480, String(delay));
  }
});
