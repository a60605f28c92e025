import test from 'ava';
import { definePlugin, rootRedirect, withDeps } from '@gw/kernel';
import { startTestKernel } from '@gw/kernel/testing';

// Issue 33 finding 7: the gateway's bare address answered a JSON 404.
test('GET / leads to the API reference when no plugin owns /', async (t) => {
  const gw = await startTestKernel({ plugins: [] });
  t.teardown(() => gw.close());
  const response = await fetch(`${gw.url}/`, { redirect: 'manual' });
  t.is(response.status, 302);
  t.is(response.headers.get('location'), '/api/v1/docs');
  t.is((await fetch(`${gw.url}/`)).status, 200, 'the reference page itself answers');
});

test('a plugin that owns / decides where it leads', async (t) => {
  const home = definePlugin({ id: 'home-probe', routes: withDeps([], () => [rootRedirect('/home')]) });
  const gw = await startTestKernel({ plugins: [home] });
  t.teardown(() => gw.close());
  const response = await fetch(`${gw.url}/`, { redirect: 'manual' });
  t.is(response.status, 302);
  t.is(response.headers.get('location'), '/home');
});
