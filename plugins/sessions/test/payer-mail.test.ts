import test from 'ava';
import { CLI_ACTOR, sql, sqlQuery } from '@gw/kernel';
import { freePort, waitFor, type TestKernel } from '@gw/kernel/testing';
import { checkoutPlugin } from '@gw/plugin-checkout';
import { oauthPlugin } from '@gw/plugin-oauth';
import { MailSink } from '@gw/plugin-oauth/testing';
import { SANDBOX_PLUGINS, sandboxClient, startSandboxKernel, type SandboxClient } from '@gw/plugin-sandbox/testing';
import { watchersPlugin } from '@gw/plugin-watchers';
import type { CreateSessionInput } from '../src/contract.js';
import { sessionsPlugin } from '../src/index.js';
import { paidInSandbox, simulated } from './helpers.js';
import { RECEIPT_EMAIL_JOB } from '../src/job-names.js';

// The receipt and the partial-payment notice: mailed through the oauth plugin's mailer to a local
// SMTP sink, in the language the payer used on the session's page; an SMTP server that is down
// delays the receipt (the job is retried) and loses none. Serial: one test stops the sink.

let gw: TestKernel;
let c: SandboxClient;
let sink: MailSink;
let smtpPort: number;
test.before(async () => {
  smtpPort = await freePort();
  sink = await MailSink.start(smtpPort);
  const port = await freePort();
  gw = await startSandboxKernel(
    {
      'http.port': port,
      'http.baseUrl': `http://127.0.0.1:${port}`,
      'plugins.oauth.smtp.url': `smtp://127.0.0.1:${smtpPort}`,
      'plugins.oauth.smtp.from': 'Gateway <gw@example.test>',
    },
    [...SANDBOX_PLUGINS, watchersPlugin, checkoutPlugin, oauthPlugin, sessionsPlugin],
  );
  c = await sandboxClient(gw);
});
test.after.always(async () => {
  await gw?.close();
  await sink?.close();
});

let seq = 0;
async function session(input: Partial<CreateSessionInput> = {}) {
  const { session } = await gw.kernel.cradle.sessionsCheckout.create(
    { id: c.projectId, kind: 'sandbox' },
    { price_currency: 'USD', price_amount: '25', allowed_coins: ['btc', 'eth'], external_id: `mail-${++seq}`, ...input },
    CLI_ACTOR,
  );
  return session;
}
const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;
const simulate = (invoiceId: string, what: string, body?: unknown) => simulated(c, invoiceId, what, body);
const pay = (invoiceId: string) => paidInSandbox(c, invoiceId);

/** Posts the forms of a session's page as a browser does, in `lang`. */
async function payerPosts(url: string, lang: string, fields: Record<string, string>[]): Promise<void> {
  const shown = await fetch(url, { redirect: 'manual' });
  const cookie = shown.headers.get('set-cookie')!.split(';')[0]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(await shown.text())![1]!;
  for (const form of fields) {
    const action = 'coin' in form ? 'coin' : 'email';
    const res = await fetch(`${url}/${action}?lang=${lang}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, ...form }).toString(),
    });
    if (res.status !== 303) throw new Error(`${action}: ${res.status}`);
  }
}

/** A mail's subject and text as the payer reads them (quoted-printable or base64 decoded). */
function readMail(raw: string): { subject: string; text: string } {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const subject = (/^Subject: (.*)$/m.exec(unfolded)?.[1] ?? '').replace(/=\?UTF-8\?([BQ])\?([^?]*)\?=\s*/gi, (_, kind: string, data: string) =>
    kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : qp(data.replace(/_/g, ' ')),
  );
  const body = rest.join('\n\n');
  const encoding = /^Content-Transfer-Encoding: (.*)$/im.exec(unfolded)?.[1]?.trim().toLowerCase();
  const text = encoding === 'base64' ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8') : encoding === 'quoted-printable' ? qp(body) : body;
  return { subject, text: text.replace(/\r\n/g, '\n') };
}
function qp(text: string): string {
  const soft = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const hex = soft.slice(i + 1, i + 3);
    if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(soft[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}
const mailTo = (email: string, after = 0) => waitFor(async () => sink.messages.filter((m) => m.to.includes(email))[after], 30_000, `a mail to ${email}`);

test.serial('the receipt of a paid session is mailed in the payer’s language, with the receipt page’s link, once', async (t) => {
  const email = `payer-${++seq}@example.test`;
  const s = await session({ description: 'Order 7', line_items: [{ name: 'Mug', quantity: 2, unit_amount: '12.5' }] });
  await payerPosts(s.url, 'de', [{ email }, { coin: 'btc' }]);
  const picked = (await gw.kernel.cradle.sessionsCheckout.byToken(tokenOf(s.url)))!;
  await pay(picked.session.invoice_id!);
  const done = (await gw.kernel.cradle.sessionsCheckout.byToken(tokenOf(s.url)))!.session;
  t.is(done.status, 'completed');
  const mail = readMail((await mailTo(email)).raw);
  t.is(mail.subject, `Ihr Beleg von ${picked.projectName}`);
  t.true(mail.text.includes('Vielen Dank für Ihre Zahlung'));
  t.true(mail.text.includes('2 × Mug'));
  t.true(mail.text.includes('Order 7'));
  t.true(mail.text.includes(`${done.receipt_url}?lang=de`), mail.text);
  const receipt = await fetch(`${done.receipt_url}?lang=de`);
  t.is(receipt.status, 200);
  t.true((await receipt.text()).includes('<h1>Beleg</h1>'));
  // Nothing else is queued for it: one receipt.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  t.is(sink.count(email), 1);
});

test.serial('a partial payment mails a notice in the payer’s language with the remaining amount and the checkout page’s link', async (t) => {
  const email = `short-${++seq}@example.test`;
  const s = await session({ customer_email: email });
  await payerPosts(s.url, 'es', [{ coin: 'btc' }]);
  const invoiceId = (await gw.kernel.cradle.sessionsCheckout.byToken(tokenOf(s.url)))!.session.invoice_id!;
  const invoice = (await gw.kernel.cradle.invoicesService.getMany([invoiceId])).get(invoiceId)!;
  await simulate(invoiceId, 'detect');
  const half = BigInt(invoice.amount_crypto_units) / 2n;
  await simulate(invoiceId, 'event', {
    eventType: 'invoice.partial',
    amountUnits: half.toString(),
    confirmations: 1,
    blockHeight: 1,
    expectedCurrentStatus: 'detected',
  });
  const mail = readMail((await mailTo(email)).raw);
  t.regex(mail.subject, /^Su pago a .* no está completo$/);
  t.true(mail.text.includes(`${invoice.checkout_url}?lang=es`), mail.text);
  t.true(mail.text.includes(' BTC '));
  t.regex(mail.text, /Queda por enviar: [\d,.]+ BTC/);
});

test.serial('an SMTP server that is down delays the receipt: the job is retried, and the mail arrives once the server is back', async (t) => {
  await sink.close();
  const email = `later-${++seq}@example.test`;
  const s = await session({ customer_email: email });
  await payerPosts(s.url, 'en', [{ coin: 'eth' }]);
  await pay((await gw.kernel.cradle.sessionsCheckout.byToken(tokenOf(s.url)))!.session.invoice_id!);
  const db = gw.kernel.cradle.db;
  const state = async () =>
    (
      await sqlQuery<{ state: string; retry_count: number }>(
        db,
        sql`select state, retry_count from pgboss.job where name = ${RECEIPT_EMAIL_JOB} and data->>'sessionId' = ${s.id}`,
      )
    )[0];
  await waitFor(async () => ((await state())?.state === 'retry' ? true : undefined), 30_000, 'a failed send waiting for its retry');
  t.is(sink.count(email), 0);
  sink = await MailSink.start(smtpPort);
  // The retry is due after its backoff; the test does not wait for the clock.
  await sqlQuery(db, sql`update pgboss.job set start_after = now() where name = ${RECEIPT_EMAIL_JOB} and data->>'sessionId' = ${s.id} and state = 'retry'`);
  const mail = readMail((await mailTo(email)).raw);
  t.regex(mail.subject, /^Your receipt from /);
  const sent = await waitFor(async () => ((await state())?.state === 'completed' ? await state() : undefined), 10_000, 'the job completed');
  t.true(sent!.retry_count >= 1, 'sent by a retry');
  t.is(sink.count(email), 1);
});
