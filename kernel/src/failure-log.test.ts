import test from 'ava';
import { pino } from 'pino';
import { createFailureLog } from './failure-log.js';

function capture() {
  const lines: any[] = [];
  return { lines, logger: pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) }) };
}

test('a streak logs its first failure with the error, then counts at 10, 100, 1000, then one recovery; keys are independent', (t) => {
  const { lines, logger } = capture();
  let now = new Date('2026-11-26T10:00:00Z');
  const log = createFailureLog(logger, { failed: 'probe failed', stillFailing: 'probe still failing', recovered: 'probe recovered' }, () => now);
  log.succeeded('a'); // not failing: nothing to say
  for (let i = 0; i < 1000; i++) {
    log.failed('a', new Error(`down ${i}`), { probe: 'a' });
    now = new Date(now.getTime() + 60_000);
  }
  log.failed('b', new Error('b down'));
  t.is(log.streak('a'), 1000);
  log.succeeded('a', { probe: 'a' });
  t.is(log.streak('a'), 0);
  t.is(log.streak('b'), 1);
  t.deepEqual(
    lines.map((l) => [l.msg, l.failures, l.level]),
    [
      ['probe failed', 1, 40],
      ['probe still failing (10 failures since 2026-11-26T10:00:00.000Z)', 10, 40],
      ['probe still failing (100 failures since 2026-11-26T10:00:00.000Z)', 100, 40],
      ['probe still failing (1000 failures since 2026-11-26T10:00:00.000Z)', 1000, 40],
      ['probe failed', 1, 40],
      ['probe recovered after 1000 failures', 1000, 30],
    ],
  );
  t.is(lines[0].err.message, 'down 0');
  t.truthy(lines[0].err.stack);
  t.is(lines[3].error, 'down 999', 'a count carries the latest message, no stack');
  t.is(lines[3].err, undefined);
  t.is(lines[5].since, '2026-11-26T10:00:00.000Z');
  // A new streak after the recovery starts over with the error.
  log.failed('a', new Error('down again'));
  t.is(lines.at(-1).msg, 'probe failed');
});
