import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { NON_PUBLIC_IP_SAMPLES, PUBLIC_IP_SAMPLES } from '@gw/kernel/testing';
import { isPrivateAddress, targetRefusal } from './target-guard.js';
import { partnerView, WebhookSender, WITHHELD_ERROR } from './webhook-sender.js';

/** The sender as the plugin makes it (2 s timeout, 4 sockets a host, 64-byte excerpts), private targets allowed or not. */
const senderWith = (allowPrivateTargets: boolean) =>
  new WebhookSender({ timeoutMs: 2000, allowPrivateTargets, maxSocketsPerHost: 4, responseExcerptBytes: 64 });

/** An HTTP server on a free loopback port answering with `handler`. */
async function loopbackServer(handler?: RequestListener): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** A loopback server answering 'ok', counting the requests that reach it. */
async function countingServer(): Promise<{ server: Server; port: number; contacted: () => number }> {
  let contacted = 0;
  const { server, port } = await loopbackServer((_req, res) => {
    contacted += 1;
    res.end('ok');
  });
  return { server, port, contacted: () => contacted };
}

test('private, loopback, link-local and reserved addresses are recognised, public ones are not', (t) => {
  for (const address of NON_PUBLIC_IP_SAMPLES) t.true(isPrivateAddress(address), address);
  // An IPv6-only host reaches IPv4 partners through NAT64: their public address is what counts.
  // A name is no address: it is checked once resolved.
  for (const address of [...PUBLIC_IP_SAMPLES, 'example.com']) t.false(isPrivateAddress(address), address);
});

test('with private targets refused, a loopback IP and a name resolving to loopback are never contacted', async (t) => {
  const { server, port, contacted } = await countingServer();
  const sender = senderWith(false);
  try {
    const literal = await sender.post(`http://127.0.0.1:${port}/hook`, '{}', {}, 'testnet');
    t.false(literal.ok);
    t.regex(literal.error!, /private, loopback or link-local/);
    const named = await sender.post(`http://localhost:${port}/hook`, '{}', {}, 'testnet');
    t.false(named.ok);
    t.regex(named.error!, /private, loopback or link-local/);
    t.is(contacted(), 0);
    const allowed = senderWith(true);
    const ok = await allowed.post(`http://localhost:${port}/hook`, '{}', {}, 'testnet');
    t.true(ok.ok);
    t.is(contacted(), 1);
    allowed.close();
  } finally {
    sender.close();
    server.close();
  }
});

test('redirects are failures, not followed; unsupported schemes and bad URLs are reported', async (t) => {
  const { server, port } = await loopbackServer((_req, res) => {
    res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
    res.end();
  });
  const sender = senderWith(true);
  try {
    const redirected = await sender.post(`http://127.0.0.1:${port}/`, '{}', {}, 'testnet');
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
    for (const address of ['127.0.0.1', '10.0.0.1', '169.254.169.254'])
      t.is(targetRefusal(address, kind, true), undefined, `${kind} ${address} allowed by config`);
    t.is(targetRefusal('8.8.8.8', kind, false), undefined);
  }
  // A sandbox project reaches loopback only when the operator allows private targets (issue 33
  // finding 13: on a shared host it would map the host's services), never link-local or metadata.
  for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '10.0.0.1']) {
    t.regex(targetRefusal(address, 'sandbox', false) ?? '', /refused unless plugins\.webhooks\.allowPrivateTargets/, address);
    t.is(targetRefusal(address, 'sandbox', true), undefined, `${address} allowed by config`);
  }
  for (const allow of [false, true]) {
    for (const address of ['169.254.169.254', '::ffff:169.254.169.254', 'fe80::1'])
      t.regex(targetRefusal(address, 'sandbox', allow) ?? '', /link-local/, `${address} allow=${allow}`);
  }
  // The reason names no address: where a partner's host name points inside the network stays unsaid.
  t.false((targetRefusal('10.1.2.3', 'testnet', false) ?? '').includes('10.1.2.3'));
});

test('a sandbox project without allowPrivateTargets never contacts a loopback receiver (issue 33 finding 13)', async (t) => {
  const { server, port, contacted } = await countingServer();
  const sender = senderWith(false);
  try {
    for (const url of [`http://127.0.0.1:${port}/`, `http://localhost:${port}/`]) {
      const outcome = await sender.post(url, '{}', {}, 'sandbox');
      t.false(outcome.ok, url);
      t.regex(outcome.error ?? '', /refused unless plugins\.webhooks\.allowPrivateTargets/, url);
    }
    t.is(contacted(), 0);
  } finally {
    sender.close();
    server.close();
  }
});

test('an attempt at a non-public address shows a partner only delivered or failed (issue 33 finding 13)', async (t) => {
  const { server, port } = await loopbackServer((req, res) => {
    res.statusCode = req.url === '/fail' ? 503 : 200;
    res.end('internal');
  });
  const { server: closed, port: closedPort } = await loopbackServer();
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const sender = senderWith(true);
  try {
    const cases = [
      { url: `http://127.0.0.1:${port}/ok`, ok: true },
      { url: `http://localhost:${port}/ok`, ok: true },
      { url: `http://127.0.0.1:${port}/fail`, ok: false },
      { url: `http://localhost:${port}/fail`, ok: false },
      { url: `http://127.0.0.1:${closedPort}/`, ok: false },
      { url: `http://localhost:${closedPort}/`, ok: false },
    ];
    for (const kind of ['sandbox', 'testnet'] as const) {
      for (const { url, ok } of cases) {
        const outcome = await sender.post(url, '{}', {}, kind);
        t.true(outcome.nonPublic, url);
        // The operator's own view (metrics, logs, privateAttemptDetails) keeps the detail.
        t.is(partnerView(outcome, true), outcome);
        t.deepEqual(
          partnerView(outcome, false),
          { ok, httpStatus: null, latencyMs: 0, error: ok ? null : WITHHELD_ERROR, responseExcerpt: null, nonPublic: true },
          `${kind} ${url}`,
        );
      }
    }
    // A failure that reached no non-public address keeps its detail: a partner debugs their own
    // receiver (`.invalid` never resolves, RFC 6761).
    const refused = await sender.post('http://receiver.invalid/', '{}', {}, 'testnet');
    t.truthy(refused.error);
    t.falsy(refused.nonPublic);
    t.is(partnerView(refused, false), refused);
  } finally {
    sender.close();
    server.close();
  }
});

test('a response excerpt is kept only from a public address unless the operator asked otherwise', async (t) => {
  const { server, port } = await loopbackServer((_req, res) => res.end('internal secret'));
  const url = `http://127.0.0.1:${port}/`;
  const quiet = senderWith(true);
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
