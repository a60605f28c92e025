/**
 * The operator CLI's `watcher` noun (issue 40) on a real PostgreSQL, with the disagreement and the
 * mark made by a real scan pass: two Esplora providers REPLAY RECORDED REAL answers of the BTC chain
 * package (`test/esplora-replay.ts`, chains/btc/test/fixtures/README.md), one of them lying (the
 * recorded block page with output 1 rewritten to pay the invoice's address; nothing else changed).
 * The usage a provider shows comes from the real provider budget: the pass's own requests to the
 * provider with a limit, and a 429 rest given through the budget as the pool gives it.
 *
 * Rows the test writes itself, as the quorum tests do: the invoice's creation time, dated back to
 * before the recorded block (the matcher gives an invoice only receipts after it was created), and
 * the disagreement's `decide_after`, moved to the past instead of waiting
 * `disagreementDecisionSeconds` (there is no service path for time passing).
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { signedFetch, type TestKernel } from '@gw/kernel/testing';
import { ALL_CHAINS, Receiver, cliRunner, stopAll } from '@gw/testing';
import { WEBHOOK_PLUGINS, type TestProject } from '@gw/plugin-webhooks/testing';
import { watchersPlugin } from '../src/index.js';
import { PUBLIC_PROVIDERS_NOTE } from '../src/services/provider-overview.js';
import { EsploraReplay, HASH, HEIGHT, invoiceBeforeBlock, pageWithOutputTo, TXID } from './esplora-replay.js';
import { drivenByTests, startWatchersKernel, watchedProject } from './scenario.js';

let gw: TestKernel;
let project: TestProject;
let receiver: Receiver;
let liar: EsploraReplay;
let honest: EsploraReplay;
let watching: Record<string, unknown>;
const config = () => ({ 'chains.testNetworks': { btc: 'testnet' }, 'plugins.watchers.publicProviders': false, 'plugins.watchers.chains': watching });

test.before(async () => {
  [liar, honest, receiver] = await Promise.all([EsploraReplay.start(), EsploraReplay.start(), Receiver.start()]);
  watching = {
    btc: {
      testnet: {
        providers: [
          { name: 'liar', url: liar.url, operator: 'liar-co' },
          { name: 'honest', url: honest.url, operator: 'honest-co', limit: { requestsPerSecond: 20, requestsPerDay: 100_000 } },
        ],
        startHeight: HEIGHT,
      },
    },
  };
  gw = await startWatchersKernel(watching, { ...drivenByTests(4), ...config() }, { role: 'gateway' });
  project = await watchedProject(gw, receiver, 'watcher-cli', 'btc');
  await gw.kernel.cradle.invoicesPolicies.set(project.projectId, { confirmations: { btc: 1 } }, CLI_ACTOR);
});
test.after.always(() => stopAll(gw, receiver, liar, honest));

const run = cliRunner({ plugins: [...WEBHOOK_PLUGINS, watchersPlugin], chains: ALL_CHAINS, databaseUrl: () => gw.database.url, overrides: config });
const cli = (...argv: string[]) => run(...argv, '--json');

async function pass(): Promise<void> {
  const { db, watchersScanner, watchersRegistry } = gw.kernel.cradle;
  await db('watchers_cursors').where({ chain: 'btc', network: 'testnet' }).update({ next_scan_at: null });
  for (;;) if ((await watchersScanner.pass(watchersRegistry.get('btc', 'testnet')!)).ran) return;
}

const invoice = (amount: string) => invoiceBeforeBlock(gw, project, amount);

const statusOf = async (id: string) => (await signedFetch(gw.url, `/api/v1/invoices/${id}`, project)).body.status;

test.serial('watcher providers before any pass: the network, its quorum and each provider with operator and limits, no usage, no mark', async (t) => {
  const shown = await cli('watcher', 'providers');
  t.is(shown.code, 0, shown.stdout + shown.stderr);
  t.deepEqual(shown.json, {
    public_limit_share: 0.5,
    networks: [
      {
        chain: 'btc',
        network: 'testnet',
        origin: 'configured',
        quorum: 2,
        operators: 2,
        idle_until_used: false,
        providers: [
          { name: 'liar', operator: 'liar-co', kind: null, origin: 'configured', url: null, limit: null, paced_at: null, usage: null, mark: null },
          {
            name: 'honest',
            operator: 'honest-co',
            kind: null,
            origin: 'configured',
            url: null,
            limit: { requests_per_second: 20, requests_per_day: 100_000 },
            paced_at: { requests_per_second: 20, requests_per_day: 100_000 },
            usage: null,
            mark: null,
          },
        ],
      },
    ],
    note: null,
  });
  t.false(shown.stdout.includes(honest.url), 'a configured URL (it may carry a key) is never printed');
  t.deepEqual((await cli('watcher', 'providers', '--chain', 'eth')).json.networks, [], 'a chain watched nowhere lists nothing');
  const human = await run('watcher', 'providers');
  t.is(human.code, 0);
  t.regex(human.stdout, /quorum: 2/);
  t.regex(human.stdout, /operator: honest-co/);
});

test.serial(
  'a liar found by a real pass: watcher providers shows its mark and the honest one its usage; watcher disagreements lists it; decide refuses bad input, then rejects once ripe; unmark clears the mark',
  async (t) => {
    // The first invoice takes pool address 0, which the recorded transaction really pays.
    const real = await invoice('0.01');
    const target = await invoice('0.240998');
    t.not(target.address, real.address);
    liar.page = pageWithOutputTo(1, target.address);
    await pass();
    t.is(await statusOf(real.id), 'paid', 'the real payment, reported by both providers');
    t.is(await statusOf(target.id), 'detected', 'the invented transfer is held below the threshold');

    const providers = await cli('watcher', 'providers', '--chain', 'btc', '--network', 'testnet');
    t.is(providers.code, 0);
    const [liarView, honestView] = providers.json.networks[0].providers;
    t.like(liarView, { name: 'liar', usage: null });
    t.regex(liarView.mark.reason, new RegExp(`reported ${TXID}:1 .* which honest do not have`));
    t.regex(liarView.mark.disagreement_id, /^[0-9A-Z]{26}$/);
    t.false(Number.isNaN(Date.parse(liarView.mark.marked_at)));
    t.is(honestView.mark, null);
    t.true(
      honestView.usage.last_minute >= 2 && honestView.usage.today === honestView.usage.last_minute,
      'the pass asked the provider with a limit through the budget (its tip, then the transaction: `GET /tx/:txid`)',
    );
    t.true(honestView.usage.share_of_limit > 0 && honestView.usage.share_of_limit < 1);
    t.is(honestView.usage.resting_until, null);

    const listed = await cli('watcher', 'disagreements');
    t.is(listed.code, 0);
    t.is(listed.json.disagreements.length, 1);
    const [open] = listed.json.disagreements;
    t.like(open, {
      status: 'open',
      ripe: false,
      chain: 'btc',
      network: 'testnet',
      coin: 'btc',
      tx_hash: TXID,
      output_index: 1,
      to_address: target.address,
      amount_units: '24099800',
      invoice_id: target.id,
      project_id: project.projectId,
      block_height: HEIGHT,
      block_hash: HASH,
      reported_by: ['liar'],
      denied_by: ['honest'],
      other_branch: [],
      lagging: [],
      decided_at: null,
      decided_by: null,
      reason: null,
    });
    t.is(open.id, liarView.mark.disagreement_id);
    t.true(Date.parse(open.decide_after) - Date.parse(open.opened_at) >= 1_799_000);
    t.deepEqual((await cli('watcher', 'disagreements', '--status', 'resolved')).json.disagreements, []);
    t.is((await cli('watcher', 'disagreements', '--chain', 'btc', '--network', 'testnet', '--status', 'open')).json.disagreements.length, 1);

    // Bad input: refused with a clear error, nothing decided.
    const usage = async (argv: string[], pattern: RegExp) => {
      const refused = await cli(...argv);
      t.is(refused.code, 2, `${argv.join(' ')}: ${refused.stdout}`);
      t.is(refused.json.error_code, 'usage');
      t.regex(refused.json.message, pattern);
    };
    await usage(['watcher', 'disagreements', '--status', 'pending'], /--status must be one of open, resolved, accepted, rejected/);
    await usage(['watcher', 'decide', '--id', open.id, '--reject'], /missing required flag --reason/);
    await usage(['watcher', 'decide', '--id', open.id, '--reject', '--reason', ''], /--reason must say why/);
    await usage(['watcher', 'decide', '--id', open.id, '--reject', '--reason', 'x'.repeat(1001)], /--reason must be at most 1000 characters/);
    await usage(['watcher', 'decide', '--id', 'nope', '--reject', '--reason', 'r'], /--id must be a disagreement id/);
    await usage(['watcher', 'unmark', '--chain', 'btc', '--network', 'Test Net', '--provider', 'liar'], /--network must be a network id/);
    await usage(['watcher', 'unmark', '--chain', 'doge', '--network', 'testnet', '--provider', 'liar'], /--chain must be one of/);
    const failed = async (argv: string[], code: string, pattern: RegExp) => {
      const refused = await cli(...argv);
      t.is(refused.code, 1, `${argv.join(' ')}: ${refused.stdout}`);
      t.is(refused.json.error_code, code);
      t.regex(refused.json.message, pattern);
    };
    await failed(['watcher', 'decide', '--id', open.id, '--reason', 'which?'], 'validation_error', /exactly one of --accept and --reject/);
    await failed(
      ['watcher', 'decide', '--id', open.id, '--accept', '--reject', '--reason', 'both'],
      'validation_error',
      /exactly one of --accept and --reject/,
    );
    await failed(['watcher', 'decide', '--id', '01HZZZZZZZZZZZZZZZZZZZZZZZ', '--reject', '--reason', 'r'], 'disagreement_not_found', /No such disagreement/);
    await failed(
      ['watcher', 'decide', '--id', open.id, '--reject', '--reason', 'too early'],
      'disagreement_not_ripe',
      new RegExp(`decided from ${open.decide_after}`),
    );
    await failed(
      ['watcher', 'providers', '--chain', 'btc', '--network', 'sepolia'],
      'validation_error',
      /btc has no network "sepolia"; its networks: bitcoin, testnet, signet, regtest\./,
    );
    await failed(['watcher', 'unmark', '--chain', 'btc', '--network', 'testnet', '--provider', 'honest'], 'provider_not_marked', /not marked/);
    t.is(await statusOf(target.id), 'detected');
    t.is((await cli('watcher', 'disagreements', '--status', 'open')).json.disagreements.length, 1, 'nothing decided');

    // The decision time passes; the operator rejects with a reason.
    await gw.kernel.cradle
      .db('watchers_disagreements')
      .where({ id: open.id })
      .update({ decide_after: gw.kernel.cradle.db.raw(`now() - interval '1 second'`) });
    t.like((await cli('watcher', 'disagreements', '--status', 'open')).json.disagreements[0], { id: open.id, ripe: true });
    const rejected = await cli('watcher', 'decide', '--id', open.id, '--reject', '--reason', '  not in any block explorer  ');
    t.is(rejected.code, 0, rejected.stdout);
    t.like(rejected.json.disagreement, { id: open.id, status: 'rejected', ripe: false, decided_by: 'operator-cli', reason: 'not in any block explorer' });
    t.is(await statusOf(target.id), 'pending', 'dropped: the invoice waits for real money');
    t.like(await gw.kernel.cradle.db('kernel_audit_log').where({ action: 'watcher.disagreement_reject' }).first(), {
      actor: 'operator-cli',
      channel: 'cli',
      project_id: project.projectId,
      target: `disagreement:${open.id}`,
    });
    await failed(['watcher', 'decide', '--id', open.id, '--accept', '--reason', 'changed my mind'], 'disagreement_closed', /closed/);
    t.is((await cli('watcher', 'disagreements', '--status', 'rejected')).json.disagreements.length, 1);

    // A 429 rests the honest provider (as the pool reports it to the budget): shown until when.
    const endpoint = gw.kernel.cradle.watchersRegistry.get('btc', 'testnet')!.attestors!.find((a) => a.endpoint.name === 'honest')!.endpoint;
    await gw.kernel.cradle.watchersBudget.forNetwork('btc', 'testnet').rateLimited(endpoint, 120_000);
    const resting = (await cli('watcher', 'providers')).json.networks[0].providers[1].usage.resting_until;
    t.true(Date.parse(resting) > Date.now() + 60_000, 'rests for the Retry-After given');

    const unmarked = await cli('watcher', 'unmark', '--chain', 'btc', '--network', 'testnet', '--provider', 'liar');
    t.is(unmarked.code, 0, unmarked.stdout);
    t.deepEqual(unmarked.json, { unmarked: { chain: 'btc', network: 'testnet', provider: 'liar' }, marks: [] });
    t.is((await cli('watcher', 'providers')).json.networks[0].providers[0].mark, null);
    t.like(await gw.kernel.cradle.db('kernel_audit_log').where({ action: 'watcher.provider_unmark' }).first(), {
      actor: 'operator-cli',
      channel: 'cli',
      target: 'provider:btc:testnet:liar',
    });
    await failed(['watcher', 'unmark', '--chain', 'btc', '--network', 'testnet', '--provider', 'liar'], 'provider_not_marked', /not marked/);
  },
);

test.serial(
  'watcher providers with no watcher configuration: the public defaults, their documented limits, the pace kept, and the note that they suit trials',
  async (t) => {
    const defaults = cliRunner({
      plugins: [...WEBHOOK_PLUGINS, watchersPlugin],
      chains: ALL_CHAINS,
      databaseUrl: () => gw.database.url,
      overrides: () => ({ 'chains.testNetworks': { btc: 'testnet' }, 'plugins.watchers.publicProviders': true }),
    });
    const shown = await defaults('watcher', 'providers', '--chain', 'btc', '--json');
    t.is(shown.code, 0, shown.stdout + shown.stderr);
    t.is(shown.json.note, PUBLIC_PROVIDERS_NOTE);
    t.regex(shown.json.note, /Public providers suit trials and small volumes/);
    const esplora = (name: string, operator: string, url: string, perSecond: number) => ({
      name,
      operator,
      kind: 'esplora',
      origin: 'public',
      url,
      limit: { requests_per_second: perSecond, requests_per_day: null },
      paced_at: { requests_per_second: perSecond / 2, requests_per_day: null },
      usage: null,
      mark: null,
    });
    t.deepEqual(
      shown.json.networks,
      [
        ['bitcoin', '/api'],
        ['testnet', '/testnet/api'],
      ].map(([network, path]) => ({
        chain: 'btc',
        network,
        origin: 'public',
        quorum: 2,
        operators: 2,
        idle_until_used: true,
        providers: [
          esplora('mempool.space', 'mempool-space', `https://mempool.space${path}`, 2),
          esplora('blockstream.info', 'blockstream', `https://blockstream.info${path}`, 5),
        ],
      })),
      'the mainnet and the test network in use, each through both public Esploras, at half their documented limits (publicLimitShare 0.5)',
    );
  },
);

test('every watcher command has full help, without a database', async (t) => {
  for (const verb of ['providers', 'disagreements', 'decide', 'unmark']) {
    const help = await run('watcher', verb, '--help');
    t.is(help.code, 0);
    t.regex(help.stdout, new RegExp(`Usage: pnpm gateway watcher ${verb} \\[flags\\] \\[--json\\]`));
  }
  t.regex((await run('watcher', 'decide', '--help')).stdout, /--accept[\s\S]*--reject[\s\S]*--reason <value> \(required\)/);
  const noun = await run('watcher', '--help');
  t.is(noun.code, 0);
  t.regex(noun.stdout, /watcher providers[\s\S]*watcher disagreements[\s\S]*watcher decide[\s\S]*watcher unmark/);
});
