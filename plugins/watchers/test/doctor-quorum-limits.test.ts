/**
 * What `gateway doctor` and `/readyz` say about the quorum and the providers' limits (issue 40):
 * `watchers.disagreements` while providers disagree about a transfer or one is marked, and
 * `watchers.provider-limits` when a provider nears the pace the gateway allows itself or rests.
 *
 * Public providers cannot be reached here. The two providers are local HTTP servers that REPLAY
 * RECORDED REAL Esplora answers of the BTC chain package (`test/esplora-replay.ts`;
 * chains/btc/test/fixtures/README.md says where each comes from): testnet3 block 1259783
 * (`/block-height/1259783`, `/block/:hash`, `/block/:hash/txs/0`), whose transaction
 * `9fca06b2…df3ac` pays 1,000,000 sats (output 0) to receive address 0 of the test key every
 * project registers and 24,099,800 sats (output 1) to an address of no project. Built, not
 * recorded: the tip height (the block's own), a 404 for other heights, `GET /tx/9fca06b2…` (the
 * page's transaction object as it is) and `[]` for the per-address mempool. The LIAR serves the
 * recorded page with output 1 rewritten to pay the second invoice's address (script and address
 * only): a transfer the honest provider, serving the page as recorded, does not have. Invoices are
 * dated back before the recorded block (matching gives an invoice only receipts after its
 * creation); the decision time is moved instead of waited for. The limits part drives the real
 * PostgreSQL budget through its own service, as the pool does before each request.
 */
import test from 'ava';
import { CLI_ACTOR, type ProviderEndpoint } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { Receiver, btcTestnetWallet, stopAll } from '@gw/testing';
import type { TestProject } from '@gw/plugin-webhooks/testing';
import { EsploraReplay, HEIGHT, invoiceBeforeBlock, pageWithOutputTo } from './esplora-replay.js';
import { drivenByTests, startWatchersKernel, watchedProject } from './scenario.js';

let gw: TestKernel;
let project: TestProject;
let liarReplay: EsploraReplay;
let honestReplay: EsploraReplay;
let receiver: Receiver;

test.before(async () => {
  [liarReplay, honestReplay, receiver] = await Promise.all([EsploraReplay.start(), EsploraReplay.start(), Receiver.start()]);
  gw = await startWatchersKernel(
    {
      btc: {
        testnet: {
          providers: [
            { name: 'liar', url: liarReplay.url, operator: 'liar-co' },
            { name: 'honest', url: honestReplay.url, operator: 'honest-co' },
          ],
          startHeight: HEIGHT,
        },
      },
    },
    { ...drivenByTests(4), 'chains.testNetworks': { btc: 'testnet' } },
    { role: 'gateway' },
  );
  project = await watchedProject(gw, receiver, 'doctor-quorum', 'btc');
  await gw.kernel.cradle.invoicesPolicies.set(project.projectId, { confirmations: { btc: 1 } }, CLI_ACTOR);
});
test.after.always(() => stopAll(gw, liarReplay, honestReplay, receiver));

const finding = async (check: string) => (await gw.kernel.readiness()).checks.find((c) => c.check === check)!;

const invoice = (amount: string) => invoiceBeforeBlock(gw, project, amount);

test.serial('doctor names an open disagreement, then one awaiting a decision, and the marked provider; quiet again once decided and cleared', async (t) => {
  t.like(await finding('watchers.disagreements'), { ok: true, detail: 'no open disagreement between providers, no marked provider.' });
  const real = await invoice('0.01');
  t.is(real.address, btcTestnetWallet.address0!);
  const target = await invoice('0.240998');
  liarReplay.page = pageWithOutputTo(1, target.address);
  const { watchersScanner, watchersRegistry, watchersDisagreements: desk, db } = gw.kernel.cradle;
  const report = await watchersScanner.pass(watchersRegistry.get('btc', 'testnet')!);
  t.falsy(report.error);
  const [open] = await desk.list({ status: 'open' });
  t.truthy(open, 'the liar is caught');

  const waiting = await finding('watchers.disagreements');
  t.like(waiting, { ok: false, severity: 'warning' });
  t.is(
    waiting.detail,
    `1 open disagreement(s) between providers, their invoices waiting: ${open!.id} on btc.testnet (tx ${open!.txHash}; reported by liar, denied by honest); 0 past their waiting time, awaiting your decision. marked (passed over, not counted toward a quorum): liar on btc.testnet.`,
  );
  t.regex(
    waiting.fix!,
    /gateway watcher disagreements --status open.*gateway watcher decide --id <id> --accept\|--reject.*gateway watcher unmark --chain <chain> --network <network> --provider <name>/,
  );

  await db('watchers_disagreements')
    .where({ id: open!.id })
    .update({ decide_after: db.raw(`now() - interval '1 second'`) });
  t.regex((await finding('watchers.disagreements')).detail, /; 1 past their waiting time, awaiting your decision\./);

  await desk.decide(open!.id, 'reject', CLI_ACTOR, 'invented: honest has the block without it');
  t.is((await finding('watchers.disagreements')).detail, 'marked (passed over, not counted toward a quorum): liar on btc.testnet.');
  await desk.unmark('btc', 'testnet', 'liar', CLI_ACTOR);
  t.like(await finding('watchers.disagreements'), { ok: true });
});

test.serial(
  'doctor names a provider near the pace the gateway allows itself, then resting; providers of networks no longer watched are left out',
  async (t) => {
    const budget = gw.kernel.cradle.watchersBudget.forNetwork('btc', 'testnet');
    // As configured: the honest provider with a plan of 5 requests a day (its own limit, not a share of it).
    const honest: ProviderEndpoint = {
      name: 'honest',
      url: honestReplay.url,
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
