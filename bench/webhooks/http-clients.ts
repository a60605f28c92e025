/**
 * Benchmark: what one signed webhook POST costs the sending process with node's `http` client (the
 * delivery worker's and the drain baseline's) and with undici's `Pool`, alternated in one process
 * against the drain benchmark's receiver (its own process, verifying every signature). Each request
 * carries the worker's headers and a fresh envelope and signature; `--connections` keep-alive
 * connections, each carrying one request after the other (as the drain baseline sends). Prints, per client
 * and round, POSTs per second and the sender's CPU per POST (user + system), then the means.
 *
 * Run: npx -y pnpm@10.34.9 exec tsx bench/webhooks/http-clients.ts [--requests 40000] [--rounds 3] [--connections 128]
 */
import { Agent } from 'node:http';
import { Pool } from 'undici';
import { DELIVERY_ATTEMPT_HEADER, EVENT_ID_HEADER, EVENT_TYPE_HEADER, SIGNATURE_HEADER, WEBHOOK_USER_AGENT } from '@gw/webhook-verify';
import { postViaNodeHttp, signedEnvelope } from './signed-post.js';
import { benchOptions } from '../bench-options.js';
import { minimalEnv, startTsxChild, stopChild } from '../child-process.js';

const { requests, rounds, connections } = benchOptions({ requests: 40_000, rounds: 3, connections: 128 });
const SECRET = 'cd'.repeat(32);

const receiver = await startTsxChild([new URL('./receiver.ts', import.meta.url).pathname], /"url"/, { env: { ...minimalEnv(), BENCH_SECRET: SECRET } });
const target = new URL('/hooks', (JSON.parse(receiver.line) as { url: string }).url);

/** A fresh signed envelope and the headers the delivery worker sends with it. */
function signedEvent(): { body: string; headers: Record<string, string> } {
  const { eventId, body, signature } = signedEnvelope(SECRET);
  return {
    body,
    headers: {
      'user-agent': WEBHOOK_USER_AGENT,
      [SIGNATURE_HEADER]: signature,
      [EVENT_ID_HEADER]: eventId,
      [EVENT_TYPE_HEADER]: 'invoice.paid',
      [DELIVERY_ATTEMPT_HEADER]: '1',
      'content-type': 'application/json',
    },
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: connections });
function viaNodeHttp(): Promise<number> {
  const { body, headers } = signedEvent();
  return postViaNodeHttp(agent, target, body, headers);
}

const pool = new Pool(target.origin, { connections });
async function viaUndici(): Promise<number> {
  const { body, headers } = signedEvent();
  const response = await pool.request({ path: target.pathname, method: 'POST', headers, body });
  await response.body.text();
  return response.statusCode;
}

const clients = { 'node:http': viaNodeHttp, 'undici Pool': viaUndici } as const;
type ClientName = keyof typeof clients;

/** `n` POSTs over `connections` loops, each sending one after the other; POSTs per second and this process's CPU µs per POST. */
async function round(send: () => Promise<number>, n: number): Promise<{ perSecond: number; cpuUs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let sent = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (sent < n) {
        sent += 1;
        if ((await send()) !== 200) failed += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  if (failed > 0) throw new Error(`${failed} of ${n} POSTs were not answered 200 (the receiver refused a signature?)`);
  return { perSecond: n / seconds, cpuUs: (used.user + used.system) / n };
}

const results: { client: ClientName; round: number; perSecond: number; cpuUs: number }[] = [];
try {
  // Warm-up: connections opened, code optimised.
  for (const send of Object.values(clients)) await round(send, Math.min(5_000, requests));
  for (let r = 1; r <= rounds; r += 1) {
    for (const client of Object.keys(clients) as ClientName[]) results.push({ client, round: r, ...(await round(clients[client], requests)) });
  }
} finally {
  await pool.close();
  agent.destroy();
  await stopChild(receiver.child);
}

console.log(`\nsigned webhook POSTs, ${requests} per client and round, ${connections} connections, node ${process.version}\n`);
console.log('| client | round | POSTs/s | sender CPU per POST (µs) |');
console.log('| --- | --- | --- | --- |');
for (const r of results) console.log(`| ${r.client} | ${r.round} | ${Math.round(r.perSecond)} | ${Math.round(r.cpuUs)} |`);
const mean = (client: ClientName, key: 'perSecond' | 'cpuUs') => {
  const own = results.filter((r) => r.client === client);
  return own.reduce((sum, r) => sum + r[key], 0) / own.length;
};
for (const client of Object.keys(clients) as ClientName[])
  console.log(`\n${client}: ${Math.round(mean(client, 'perSecond'))} POSTs/s, ${Math.round(mean(client, 'cpuUs'))} µs of CPU per POST (means)`);
