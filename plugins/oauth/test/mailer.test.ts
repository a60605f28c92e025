import test from 'ava';
import { pino } from 'pino';
import { CodeMailer } from '../src/services/mailer.js';
import { MailSink } from './helpers.js';

const logger = pino({ level: 'silent' });

test('sendMessage mails a plain message through the sign-in SMTP transport; without SMTP it reports that nothing was sent', async (t) => {
  const sink = await MailSink.start();
  t.teardown(() => sink.close());
  const mailer = new CodeMailer({ smtpUrl: sink.url, from: 'Gateway <gw@example.test>', production: true, logger });
  t.teardown(() => mailer.close());
  t.true(await mailer.sendMessage('Payer@Example.test', 'Your refund', 'Open https://gw.example/refunds/claim/abc'));
  t.is(sink.count('payer@example.test'), 1);
  const raw = sink.messages[0]!.raw;
  t.regex(raw, /^Subject: Your refund$/m);
  t.regex(raw, /^From: Gateway <gw@example\.test>$/m);
  t.true(raw.includes('https://gw.example/refunds/claim/abc'));

  for (const production of [true, false]) {
    const none = new CodeMailer({ smtpUrl: undefined, from: 'gw@example.test', production, logger });
    t.false(await none.sendMessage('payer@example.test', 'Your refund', 'text'));
  }
  t.is(sink.messages.length, 1);
});
