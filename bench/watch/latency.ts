/**
 * Benchmark: block-to-webhook latency on a real EVM node (`@foundry-rs/anvil`, Sepolia's chain id).
 *
 * One gateway kernel (role `all`: HTTP, pg-boss workers, the `watchers.scan` job loop, webhook
 * delivery) on a fresh database, a testnet project with a verified eth wallet, and a local
 * receiver that checks every signature. For each sample: an invoice over the signed REST API; a
 * real ETH payment, mined at once (automine), at time B1; `invoice.detected` arrives at D; the
 * remaining confirmation blocks are mined at B2; `invoice.paid` arrives at P. Reported per
 * setting of `scanIntervalSeconds`:
 * - detected: D - B1 and paid: P - B2 (block mined to signed webhook at the partner), where B1 and
 *   B2 are when the bench's own `eth_subscribe("newHeads")` on anvil's WebSocket hears of the
 *   block with the payment and of the threshold block (the block's arrival at the provider, as
 *   any client sees it; independent of the gateway's own subscription);
 * - of which delivery: arrival minus the envelope's `created_at_iso` (the outbox write in the
 *   scan pass): the rest is the wait for the next scan pass.
 * A random pause before each payment spreads the samples over the phase of the scan loop.
 *
 * `--modes poll,push`: `poll` gives the provider only its HTTP URL (detection at the next scan
 * pass); `push` adds anvil's WebSocket as `wsUrl`, so `eth_subscribe("newHeads")` starts a pass
 * as soon as the block is mined (polling goes on beside it at the interval).
 *
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx -y pnpm@10.34.9 exec tsx bench/watch/latency.ts [--samples 10] [--intervals 5,1] [--modes poll,push]
 */
import { parseArgs } from 'node:util';
import { CLI_ACTOR } from '@gw/kernel';
import { signedFetch, startTestKernel, waitFor } from '@gw/kernel/testing';
import { chains, plugins } from '@gw/app-gateway';
import { Anvil } from '@gw/plugin-watchers/testing';
import { verifyWebhook } from '@gw/webhook-verify';
import { parseEther } from 'ethers';
import { benchPostgres } from '../bench-database.js';
import { projectWithPools } from '../../plugins/invoices/test/helpers.js';
import { Receiver } from '../../plugins/webhooks/test/helpers.js';

const { values } = parseArgs({ options: { samples: { type: 'string', default: '10' }, intervals: { type: 'string', default: '5,1' }, modes: { type: 'string', default: 'poll' } } });
const samples = Number(values.samples);
const intervals = values.intervals.split(',').map(Number);
const modes = values.modes.split(',') as ('poll' | 'push')[];

/** When each block's header is pushed to a client of `wsUrl` (`eth_subscribe("newHeads")`). */
async function headTimes(wsUrl: string): Promise<{ at: Map<number, number>; close(): void }> {
  const at = new Map<number, number>();
  const ws = new WebSocket(wsUrl);
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve);
    ws.addEventListener('error', reject);
  });
  ws.addEventListener('message', (event) => {
    const now = Date.now();
    const message = JSON.parse(String(event.data)) as { method?: string; params?: { result?: { number?: string } } };
    if (message.method === 'eth_subscription' && message.params?.result?.number) at.set(Number(BigInt(message.params.result.number)), now);
  });
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
  return { at, close: () => ws.close() };
}

const postgres = await benchPostgres();
const rows: string[] = [];

for (const mode of modes)
for (const interval of intervals) {
  const anvil = await Anvil.start(11155111);
  const receiver = await Receiver.start();
  try {
    await postgres.withDatabase(async (url) => {
      const gw = await startTestKernel({
        plugins,
        chains,
        role: 'all',
        database: { url, name: new URL(url).pathname.slice(1), drop: async () => undefined },
        config: {
          'plugins.rates.providers': ['fixed'],
          'plugins.rates.fixed': { ETH: '3000' },
          'plugins.address-pool.targetFree': samples + 5,
          'plugins.webhooks.allowPrivateTargets': true,
          'plugins.watchers.chains': { eth: { sepolia: { providers: [{ name: 'anvil', url: anvil.url, ...(mode === 'push' ? { wsUrl: anvil.url.replace('http://', 'ws://') } : {}) }], startHeight: 0 } } },
          'plugins.watchers.scanIntervalSeconds': interval,
        },
      });
      try {
        const operatorId = (await gw.kernel.cradle.tenancyOperators.create('bench-latency', CLI_ACTOR)).id;
        const project = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
        if (mode === 'push') await waitFor(async () => (await gw.kernel.cradle.watchersMetrics.pushConnected.get()).values.some((v) => v.value === 1), 30_000);
        await gw.kernel.cradle.tenancyProjects.setWebhookUrl(project.projectId, `${receiver.url}/hooks`, CLI_ACTOR);
        const payer = (await anvil.accounts())[0]!;
        const heads = await headTimes(anvil.url.replace('http://', 'ws://'));
        const arrival = (invoiceId: string, type: string) =>
          receiver.requests.find((r) => {
            const body = JSON.parse(r.body) as { event_type: string; data: { invoice_id: string } };
            return body.event_type === type && body.data.invoice_id === invoiceId;
          });
        const detected: number[] = [];
        const paid: number[] = [];
        const delivery: number[] = [];
        for (let i = 0; i < samples; i += 1) {
          const created = await signedFetch(gw.url, '/api/v1/invoices', { ...project, method: 'POST', body: { external_id: `latency-${i}`, coin: 'eth', amount_crypto: '0.1' } });
          if (created.status !== 201) throw new Error(JSON.stringify(created.body));
          const invoice = created.body as { id: string; address: string; confirmation_threshold: number };
          await new Promise((resolve) => setTimeout(resolve, Math.random() * interval * 1000));
          const txHash = await anvil.sendEth(payer, invoice.address, parseEther('0.1'));
          await waitFor(async () => arrival(invoice.id, 'invoice.detected') !== undefined, 60_000);
          const block = Number(BigInt((await anvil.receipt(txHash)).blockNumber));
          await anvil.mine(invoice.confirmation_threshold - 1);
          await waitFor(async () => arrival(invoice.id, 'invoice.paid') !== undefined, 60_000);
          const threshold = block + invoice.confirmation_threshold - 1;
          await waitFor(async () => heads.at.has(block) && heads.at.has(threshold), 10_000);
          const mined = heads.at.get(block)!;
          const confirming = heads.at.get(threshold)!;
          for (const [type, from, into] of [['invoice.detected', mined, detected], ['invoice.paid', confirming, paid]] as const) {
            const request = arrival(invoice.id, type)!;
            if (!verifyWebhook({ rawBody: request.body, header: String(request.headers['x-service-signature']), secrets: [project.secret] }).ok) throw new Error('bad signature');
            into.push(request.at - from);
            delivery.push(request.at - Date.parse((JSON.parse(request.body) as { created_at_iso: string }).created_at_iso));
          }
        }
        const stat = (list: number[]) => {
          const sorted = [...list].sort((a, b) => a - b);
          const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
          return `${at(50)} | ${at(90)} | ${at(99)} | ${sorted[sorted.length - 1]}`;
        };
        rows.push(`| ${mode} | ${interval} s | block with the payment to invoice.detected | ${samples} | ${stat(detected)} |`);
        rows.push(`| ${mode} | ${interval} s | threshold block to invoice.paid | ${samples} | ${stat(paid)} |`);
        rows.push(`| ${mode} | ${interval} s | of which delivery (event written to arrival) | ${delivery.length} | ${stat(delivery)} |`);
        console.error(`${mode}, scanIntervalSeconds ${interval}: done`);
        heads.close();
      } finally {
        await gw.close();
      }
    });
  } finally {
    await receiver.close();
    await anvil.stop();
  }
}
await postgres.stop();

console.log(`\nblock-to-webhook latency on anvil (ms), node ${process.version}\n`);
console.log('| detection | scanIntervalSeconds | leg | samples | p50 | p90 | p99 | max |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const row of rows) console.log(row);
