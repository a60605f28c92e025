import test from 'ava';
import { MailSink, startDashboardKernel } from './kernel.js';

// Issue 33 finding 7: opening the gateway's address in a browser gave a JSON 404.
test('GET / leads a browser to the dashboard', async (t) => {
  const sink = await MailSink.start();
  t.teardown(() => sink.close());
  const gw = await startDashboardKernel(sink);
  t.teardown(() => gw.close());
  const response = await fetch(`${gw.url}/`, { redirect: 'manual' });
  t.is(response.status, 302);
  t.is(response.headers.get('location'), '/dashboard');
  const followed = await fetch(`${gw.url}/`);
  t.true(followed.url.startsWith(`${gw.url}/dashboard`), followed.url);
  t.regex(followed.headers.get('content-type') ?? '', /text\/html/);
});
