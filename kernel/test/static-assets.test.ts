import test from 'ava';
import { definePlugin, staticAssets, withDeps } from '@gw/kernel';
import { startTestKernel } from '@gw/kernel/testing';

const assets = staticAssets('/probe/assets', [
  { name: 'app.css', type: 'text/css; charset=utf-8', content: 'body{color:#111}' },
  { name: 'app.js', type: 'text/javascript; charset=utf-8', content: 'console.log(1)' },
]);
const probe = definePlugin({ id: 'asset-probe', routes: withDeps([], () => assets.routes) });

test('assets are served with their type, hashed URLs are cached forever, others revalidate, unknown names are 404', async (t) => {
  const gw = await startTestKernel({ plugins: [probe] });
  t.teardown(() => gw.close());
  const url = assets.url('app.css');
  t.regex(url, /^\/probe\/assets\/app\.css\?v=[0-9a-f]{16}$/);
  const hashed = await fetch(gw.url + url);
  t.is(hashed.status, 200);
  t.is(hashed.headers.get('content-type'), 'text/css; charset=utf-8');
  t.is(hashed.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  t.is(hashed.headers.get('x-content-type-options'), 'nosniff');
  t.is(await hashed.text(), 'body{color:#111}');
  const stale = await fetch(`${gw.url}/probe/assets/app.css?v=0000000000000000`);
  t.is(stale.headers.get('cache-control'), 'no-cache');
  await stale.arrayBuffer();
  const again = await fetch(gw.url + url, { headers: { 'if-none-match': hashed.headers.get('etag')! } });
  t.is(again.status, 304);
  const missing = await fetch(`${gw.url}/probe/assets/nope.js`);
  t.is(missing.status, 404);
  t.is(((await missing.json()) as { error_code: string }).error_code, 'not_found');
  t.throws(() => assets.url('nope.js'));
  t.throws(() => staticAssets('/x', [{ name: '../etc/passwd', type: 'text/plain', content: '' }]));
});
