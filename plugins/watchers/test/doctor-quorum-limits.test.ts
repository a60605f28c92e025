/**
 * What `gateway doctor` and `/readyz` say about the quorum and the providers' limits (issue 40):
 * `watchers.disagreements` while providers disagree about a transfer or one is marked, and
 * `watchers.provider-limits` when a provider nears the pace the gateway allows itself or rests.
 *
 * Public providers cannot be reached here. The two providers are local HTTP servers that REPLAY
 * RECORDED REAL Esplora answers of the BTC chain package (chains/btc/test/fixtures/README.md says
 * where each comes from): testnet3 block 1259783 (`/block-height/1259783`, `/block/:hash`,
 * `/block/:hash/txs/0`), whose transaction `9fca06b2…df3ac` pays 1,000,000 sats (output 0) to
 * receive address 0 of the test key every project registers and 24,099,800 sats (output 1) to an
 * address of no project. Built, not recorded: the tip height (the block's own), a 404 for other
 * heights, and `[]` for the per-address mempool. The LIAR serves the recorded page with output 1
 * rewritten to pay the second invoice's address (script and address only): a transfer the honest
 * provider, serving the page as recorded, does not have. Invoices are dated back before the
 * recorded block (matching gives an invoice only receipts after its creation); the decision time is
 * moved instead of waited for. The limits part drives the real PostgreSQL budget through its own
 * service, as the pool does before each request.
 */
import { readFileSync } from 'node:fs';
import test from 'ava';
import { CLI_ACTOR, type ProviderEndpoint } from '@gw/kernel';
import { signedFetch, type TestKernel } from '@gw/kernel/testing';
import { Receiver, btcTestnetWallet, stopAll, type ReceivedRequest, type Reply } from '@gw/testing';
import type { TestProject } from '@gw/plugin-webhooks/testing';
import { drivenByTests, startWatchersKernel, watchedProject } from './scenario.js';

const recorded = (name: string): string => readFileSync(new URL(`../../../chains/btc/test/fixtures/${name}`, import.meta.url), 'utf8');
const HEIGHT = 1259783;
const HASH = recorded('testnet-block-height-1259783.txt').trim();
const BLOCK = recorded('testnet-block-1259783.json');
const PAGE = recorded('testnet-block-1259783-txs-0.json');

/** The 20-byte key hash of a P2WPKH `tb1q…` address (bech32's 5-bit groups after the version, regrouped in bytes). */
function keyHashOf(address: string): string {
  const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
  const groups = [...address.slice(address.lastIndexOf('1') + 1, -6)].map((c) => CHARSET.indexOf(c)).slice(1);
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const group of groups) {
    value = (value << 5) | group;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((value >> bits) & 0xff);
    }
  }
  return Buffer.from(bytes).toString('hex');
}

/** An Esplora provider replaying the recorded block, its first page as `page` gives it. */
async function esplora(page: () => string): Promise<Receiver> {
  const server = await Receiver.start();
  server.reply = (request: ReceivedRequest): Reply => {
    const path = request.path.split('?')[0]!;
    if (path === '/blocks/tip/height') return { status: 200, body: String(HEIGHT) };
    if (path === `/block-height/${HEIGHT}`) return { status: 200, body: HASH };
    if (path === `/block/${HASH}`) return { status: 200, body: BLOCK };
    if (path === `/block/${HASH}/txs/0`) return { status: 200, body: page() };
    if (/^\/address\/[a-z0-9]+\/txs\/mempool$/.test(path)) return { status: 200, body: '[]' };
    return { status: 404, body: 'Block not found' };
  };
  return server;
}

let gw: TestKernel;
let project: TestProject;
let liarPage = PAGE;
let servers: Receiver[] = [];

test.before(async () => {
  servers = [await esplora(() => liarPage), await esplora(() => PAGE), await Receiver.start()];
  const [liar, honest] = servers;
  gw = await startWatchersKernel(
    {
      btc: {
        testnet: {
          providers: [
            { name: 'liar', url: liar!.url, operator: 'liar-co' },
            { name: 'honest', url: honest!.url, operator: 'honest-co' },
          ],
          startHeight: HEIGHT,
        },
      },
    },
    { ...drivenByTests(4), 'chains.testNetworks': { btc: 'testnet' } },
    { role: 'gateway' },
  );
  project = await watchedProject(gw, servers[2]!, 'doctor-quorum', 'btc');
  await gw.kernel.cradle.invoicesPolicies.set(project.projectId, { confirmations: { btc: 1 } }, CLI_ACTOR);
});
test.after.always(() => stopAll(gw, ...servers));

const finding = async (check: string) => (await gw.kernel.readiness()).checks.find((c) => c.check === check)!;

async function invoice(amount: string): Promise<{ id: string; address: string }> {
  const created = await signedFetch(gw.url, '/api/v1/invoices', {
    ...project,
    method: 'POST',
    body: { external_id: `d-${Math.random().toString(36).slice(2)}`, coin: 'btc', amount_crypto: amount },
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  await gw.kernel.cradle.db('invoices_invoices').where({ id: created.body.id }).update({ created_at: '2018-01-21T00:00:00Z' });
  return created.body;
}

test.serial(
  'doctor counts the open disagreements (naming none), then those awaiting a decision, and names the marked provider; quiet again once decided and cleared',
  async (t) => {
    t.like(await finding('watchers.disagreements'), { ok: true, detail: 'no open disagreement between providers, no marked provider.' });
    const real = await invoice('0.01');
    t.is(real.address, btcTestnetWallet.address0!);
    const target = await invoice('0.240998');
    const hash = keyHashOf(target.address);
    liarPage = JSON.stringify(
      (JSON.parse(PAGE) as { vout: Record<string, string>[] }[]).map((tx, i) =>
        i > 0
          ? tx
          : {
              ...tx,
              vout: tx.vout.map((out, n) =>
                n === 1 ? { ...out, scriptpubkey: `0014${hash}`, scriptpubkey_asm: `OP_0 OP_PUSHBYTES_20 ${hash}`, scriptpubkey_address: target.address } : out,
              ),
            },
      ),
    );
    const { watchersScanner, watchersRegistry, watchersDisagreements: desk, db } = gw.kernel.cradle;
    const report = await watchersScanner.pass(watchersRegistry.get('btc', 'testnet')!);
    t.falsy(report.error);
    const [open] = await desk.list({ status: 'open' });
    t.truthy(open, 'the liar is caught');

    const waiting = await finding('watchers.disagreements');
    t.like(waiting, { ok: false, severity: 'warning' });
    t.is(
      waiting.detail,
      '1 open disagreement(s) between providers, their payments waiting; 0 past their waiting time, awaiting a decision. marked (passed over, not counted toward a quorum): liar on btc.testnet.',
    );
    // The check is the deployment's (any operator's administrators read it on the dashboard's
    // Readiness page): it counts, and names no operator's disagreement, transaction or address.
    for (const secret of [open!.id, open!.txHash, open!.toAddress]) t.false(JSON.stringify(waiting).includes(secret), secret);
    t.regex(
      waiting.fix!,
      /gateway watcher disagreements --status open.*gateway watcher decide --id <id> --accept\|--reject.*gateway watcher unmark --chain <chain> --network <network> --provider <name>/,
    );

    await db('watchers_disagreements')
      .where({ id: open!.id })
      .update({ decide_after: db.raw(`now() - interval '1 second'`) });
    t.regex((await finding('watchers.disagreements')).detail, /; 1 past their waiting time, awaiting a decision\./);

    await desk.decide(open!.id, 'reject', CLI_ACTOR, 'invented: honest has the block without it');
    t.is((await finding('watchers.disagreements')).detail, 'marked (passed over, not counted toward a quorum): liar on btc.testnet.');
    await desk.unmark('btc', 'testnet', 'liar', CLI_ACTOR);
    t.like(await finding('watchers.disagreements'), { ok: true });
  },
);

test.serial(
  'doctor names a provider near the pace the gateway allows itself, then resting; providers of networks no longer watched are left out',
  async (t) => {
    const budget = gw.kernel.cradle.watchersBudget.forNetwork('btc', 'testnet');
    // As configured: the honest provider with a plan of 5 requests a day (its own limit, not a share of it).
    const honest: ProviderEndpoint = {
      name: 'honest',
      url: servers[1]!.url,
      operator: 'honest-co',
      limit: { requestsPerSecond: 100, requestsPerDay: 5 },
      origin: 'configured',
    };
    t.like(await finding('watchers.provider-limits'), { ok: true, detail: 'no provider with a limit has been asked yet.' });
    for (let i = 0; i < 3; i++) t.deepEqual(await budget.acquire(honest), {});
    t.like(await finding('watchers.provider-limits'), {
      ok: true,
      detail: '1 provider(s) with a limit asked; the busiest, honest on btc.testnet, at 60 % of its pace (3 request(s) in the last minute, 3 today).',
    });
    await budget.acquire(honest);
    const busy = await finding('watchers.provider-limits');
    t.like(busy, { ok: false, severity: 'warning' });
    t.is(
      busy.detail,
      'honest on btc.testnet at 80 % of its pace (4 request(s) in the last minute, 4 today). Scans slow down to stay within the limits, so payments are seen later.',
    );
    t.regex(busy.fix!, /^Raise the provider's limit if your plan allows more/, 'a configured provider: its own plan');

    await budget.rateLimited(honest, 60_000);
    const resting = await finding('watchers.provider-limits');
    t.regex(resting.detail, /^honest on btc\.testnet rests until \d{4}-\d\d-\d\dT[\d:.]+Z \(it answered 429, or its day's requests are used up\)\./);

    // A public provider's own fix: your node. (A network no longer watched is not reported.)
    const publicOne: ProviderEndpoint = {
      name: 'mempool.space',
      url: 'https://mempool.space/api',
      operator: 'mempool-space',
      limit: { requestsPerSecond: 2 },
      origin: 'public',
    };
    await gw.kernel.cradle.watchersBudget.forNetwork('btc', 'bitcoin').rateLimited(publicOne, 60_000);
    t.notRegex((await finding('watchers.provider-limits')).detail, /mempool\.space/);
  },
);
