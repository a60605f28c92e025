import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { isPrivateAddress, targetRefusal } from './target-guard.js';
import { WebhookSender } from './webhook-sender.js';

test('private, loopback, link-local and reserved addresses are recognised, public ones are not', (t) => {
  for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '[::1]', '64:ff9b::7f00:1']) {
    t.true(isPrivateAddress(address), address);
  }
  // An IPv6-only host reaches IPv4 partners through NAT64: their public address is what counts.
  for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', 'example.com']) {
    t.false(isPrivateAddress(address), address);
  }
});

test('with private targets refused, a loopback IP and a name resolving to loopback are never contacted', async (t) => {
  let contacted = 0;
  const server = createServer((_req, res) => {
    contacted += 1;
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const sender = new WebhookSender({ timeoutMs: 2000, allowPrivateTargets: false, maxSocketsPerHost: 4, responseExcerptBytes: 64 });
  try {
    const literal = await sender.post(`http://127.0.0.1:${port}/hook`, '{}', {}, 'testnet');
    t.false(literal.ok);
    t.regex(literal.error!, /private, loopback or link-local/);
    const named = await sender.post(`http://localhost:${port}/hook`, '{}', {}, 'testnet');
    t.false(named.ok);
    t.regex(named.error!, /private, loopback or link-local/);
    t.is(contacted, 0);
    const allowed = new WebhookSender({ timeoutMs: 2000, allowPrivateTargets: true, maxSocketsPerHost: 4, responseExcerptBytes: 64 });
    const ok = await allowed.post(`http://localhost:${port}/hook`, '{}', {}, 'testnet');
    t.true(ok.ok);
    t.is(contacted, 1);
    allowed.close();
  } finally {
    sender.close();
    server.close();
  }
});

test('redirects are failures, not followed; unsupported schemes and bad URLs are reported', async (t) => {
  const server = createServer((_req, res) => {
    res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sender = new WebhookSender({ timeoutMs: 2000, allowPrivateTargets: true, maxSocketsPerHost: 4, responseExcerptBytes: 64 });
  try {
    const redirected = await sender.post(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, '{}', {}, 'testnet');
    t.like(redirected, { ok: false, httpStatus: 302, error: 'HTTP 302' });
    t.like(await sender.post('ftp://example.com/x', '{}', {}, 'testnet'), { ok: false, error: 'unsupported scheme ftp:' });
    t.like(await sender.post('not a url', '{}', {}, 'testnet'), { ok: false, error: 'invalid target URL' });
  } finally {
    sender.close();
    server.close();
  }
});

test('the target rules by project kind (issue 26 finding 4)', (t) => {
  for (const kind of ['production', 'testnet'] as const) {
    for (const address of ['127.0.0.1', '10.0.0.1', '169.254.169.254', 'fe80::1', '::1']) t.truthy(targetRefusal(address, kind, false), `${kind} ${address}`);
    for (const address of ['127.0.0.1', '10.0.0.1', '169.254.169.254']) t.is(targetRefusal(address, kind, true), undefined, `${kind} ${address} allowed by config`);
    t.is(targetRefusal('8.8.8.8', kind, false), undefined);
  }
  // A sandbox project may reach loopback (a partner's laptop), never link-local or metadata.
  for (const allow of [false, true]) {
    t.is(targetRefusal('127.0.0.1', 'sandbox', allow), undefined);
    t.is(targetRefusal('::1', 'sandbox', allow), undefined);
    for (const address of ['169.254.169.254', '::ffff:169.254.169.254', 'fe80::1']) t.regex(targetRefusal(address, 'sandbox', allow) ?? '', /link-local/, `${address} allow=${allow}`);
  }
  t.truthy(targetRefusal('10.0.0.1', 'sandbox', false));
});

test('a response excerpt is kept only from a public address unless the operator asked otherwise', async (t) => {
  const server = createServer((_req, res) => res.end('internal secret'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const quiet = new WebhookSender({ timeoutMs: 2000, allowPrivateTargets: true, maxSocketsPerHost: 4, responseExcerptBytes: 64 });
  const told = new WebhookSender({ timeoutMs: 2000, allowPrivateTargets: true, maxSocketsPerHost: 4, responseExcerptBytes: 64, privateResponseExcerpts: true });
  try {
    t.like(await quiet.post(url, '{}', {}, 'testnet'), { ok: true, httpStatus: 200, responseExcerpt: null });
    t.like(await quiet.post(url, '{}', {}, 'sandbox'), { ok: true, httpStatus: 200, responseExcerpt: null });
    t.like(await told.post(url, '{}', {}, 'testnet'), { ok: true, responseExcerpt: 'internal secret' });
  } finally {
    quiet.close();
    told.close();
    server.close();
  }
});
